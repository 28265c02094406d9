// SPDX-License-Identifier: GPL-2.0
/* get_user_inline() opens its own scope. */
static int get_two(u32 *a, u32 *b, const u32 __user *ua, const u32 __user *ub)
{
	scoped_user_read_access(ua, Efault) {
		unsafe_get_user(*a, ua, Efault);
		if (get_user_inline(*b, ub))
			return -EFAULT;
	}
	return 0;
Efault:
	return -EFAULT;
}
