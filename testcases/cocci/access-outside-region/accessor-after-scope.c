// SPDX-License-Identifier: GPL-2.0
/* An accessor after the scope closed. */
static int get_hdr(struct hdr *to, const struct hdr __user *from)
{
	scoped_user_read_access(from, Efault)
		unsafe_get_user(to->len, &from->len, Efault);
	unsafe_get_user(to->flags, &from->flags, Efault);
	return 0;
Efault:
	return -EFAULT;
}
