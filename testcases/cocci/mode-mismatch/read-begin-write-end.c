// SPDX-License-Identifier: GPL-2.0
/* The success path ends a read region with the write end. */
static int get_pair(struct pair *to, const struct pair __user *from)
{
	if (!user_read_access_begin(from, sizeof(*from)))
		return -EFAULT;
	unsafe_get_user(to->a, &from->a, Efault);
	unsafe_get_user(to->b, &from->b, Efault);
	user_write_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
