// SPDX-License-Identifier: GPL-2.0
/* A scope for one pointer used for another one. */
static int get_both(u32 *a, u32 *b, const u32 __user *ua, const u32 __user *ub)
{
	scoped_user_read_access(ua, Efault) {
		unsafe_get_user(*a, ua, Efault);
		unsafe_get_user(*b, ub, Efault);
	}
	return 0;
Efault:
	return -EFAULT;
}
