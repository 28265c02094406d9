// SPDX-License-Identifier: GPL-2.0
/* An alias taken inside the scope is derived from the masked pointer. */
static int get_len(u32 *len, struct hdr __user *hdr)
{
	scoped_user_read_access(hdr, Efault) {
		u32 __user *ulen = &hdr->len;

		unsafe_get_user(*len, ulen, Efault);
	}
	return 0;
Efault:
	return -EFAULT;
}
