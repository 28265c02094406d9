// SPDX-License-Identifier: GPL-2.0
/* Reads only, in a read scope. */
static int get_hdr(struct hdr *to, const struct hdr __user *from)
{
	scoped_user_read_access(from, Efault) {
		unsafe_get_user(to->len, &from->len, Efault);
		unsafe_copy_from_user(to->data, from->data, sizeof(to->data), Efault);
	}
	return 0;
Efault:
	return -EFAULT;
}
