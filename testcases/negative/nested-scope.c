// SPDX-License-Identifier: GPL-2.0
// EXPECT-ERROR: user access scopes must not be nested
/*
 * A user access scope opened inside another one must not build: the inner
 * scope would end the region while the outer one still relies on it.
 */
#include <linux/uaccess.h>

int nested_scope(u32 __user *src, u32 __user *dst);
int nested_scope(u32 __user *src, u32 __user *dst)
{
	u32 val;

	scoped_user_read_access(src, efault) {
		unsafe_get_user(val, src, efault);
		scoped_user_write_access(dst, efault)
			unsafe_put_user(val, dst, efault);
	}
	return 0;
efault:
	return -EFAULT;
}
