// SPDX-License-Identifier: GPL-2.0
/* The failure path of the begin still reads user memory. */
static int get_len(u32 *len, const u32 __user *ulen)
{
	if (!user_read_access_begin(ulen, sizeof(*ulen))) {
		unsafe_get_user(*len, ulen, Efault_noend);
		return 0;
	}
	unsafe_get_user(*len, ulen, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
Efault_noend:
	return -EFAULT;
}
