// SPDX-License-Identifier: GPL-2.0
/* The first read happens before the region is begun. */
static int get_pair(struct pair *to, const struct pair __user *from)
{
	unsafe_get_user(to->a, &from->a, Efault_noend);
	if (!user_read_access_begin(from, sizeof(*from)))
		return -EFAULT;
	unsafe_get_user(to->b, &from->b, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
Efault_noend:
	return -EFAULT;
}
