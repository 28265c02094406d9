// SPDX-License-Identifier: GPL-2.0
/* A constant offset of two pages from the masked pointer. */
static int get_far(u8 *val, const u8 __user *buf)
{
	if (can_do_masked_user_access())
		buf = masked_user_access_begin(buf);
	else if (!user_read_access_begin(buf, 8192 + 1))
		return -EFAULT;
	unsafe_get_user(*val, buf + 8192, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
