// SPDX-License-Identifier: GPL-2.0
/* The masked pointer goes to a new variable, the old one is still used. */
static int get_pair(struct pair *to, const struct pair __user *from)
{
	const struct pair __user *src = masked_user_access_begin(from);

	unsafe_get_user(to->a, &src->a, Efault);
	unsafe_get_user(to->b, &from->b, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
