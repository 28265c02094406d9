// SPDX-License-Identifier: GPL-2.0
/* A sized scope whose first access is at its far end. */
static int get_last(u8 *last, const u8 __user *buf, size_t len)
{
	scoped_user_read_access_size(buf, len, Efault)
		unsafe_get_user(*last, buf + len - 1, Efault);
	return 0;
Efault:
	return -EFAULT;
}
