// SPDX-License-Identifier: GPL-2.0
// EXPECT-ERROR: user access scopes must not be nested
/*
 * get_user_inline() opens a scope of its own, so it must not be used in a
 * user access scope either.
 */
#include <linux/uaccess.h>

int nested_inline(u32 __user *src, u32 __user *other);
int nested_inline(u32 __user *src, u32 __user *other)
{
	u32 a, b;

	scoped_user_read_access(src, efault) {
		unsafe_get_user(a, src, efault);
		if (get_user_inline(b, other))
			return -EFAULT;
	}
	return a + b;
efault:
	return -EFAULT;
}
