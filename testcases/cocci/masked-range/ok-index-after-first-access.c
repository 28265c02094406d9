// SPDX-License-Identifier: GPL-2.0
/* The first access is at the start; indexed ones follow it. */
static int get_entries(struct table *to, const struct table __user *from)
{
	u32 i;

	scoped_user_read_access(from, Efault) {
		unsafe_get_user(to->n, &from->n, Efault);
		for (i = 1; i < to->n && i < TABLE_MAX; i++)
			unsafe_get_user(to->e[i], &from->e[i], Efault);
	}
	return 0;
Efault:
	return -EFAULT;
}
