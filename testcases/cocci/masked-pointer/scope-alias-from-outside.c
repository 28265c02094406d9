// SPDX-License-Identifier: GPL-2.0
/* An alias taken before the scope bypasses the masked pointer inside. */
static int get_len(u32 *len, struct hdr __user *hdr)
{
	u32 __user *ulen = &hdr->len;

	scoped_user_read_access(hdr, Efault)
		unsafe_get_user(*len, ulen, Efault);
	return 0;
Efault:
	return -EFAULT;
}
