// SPDX-License-Identifier: GPL-2.0
/* An end inside a scope: the scope ends the region once more. */
static int get_len(u32 *len, const u32 __user *ulen)
{
	scoped_user_read_access(ulen, Efault) {
		unsafe_get_user(*len, ulen, Efault);
		user_read_access_end();
	}
	return 0;
Efault:
	return -EFAULT;
}
