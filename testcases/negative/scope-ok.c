// SPDX-License-Identifier: GPL-2.0
/*
 * The control for the negative tests: the same shapes used correctly must
 * build without a warning, with the same compiler and flags.
 */
#include <linux/uaccess.h>

int scope_ok(const u32 __user *src, u32 __user *dst);
int scope_ok(const u32 __user *src, u32 __user *dst)
{
	u32 val, other;

	scoped_user_read_access(src, efault)
		unsafe_get_user(val, src, efault);
	scoped_user_write_access(dst, efault)
		unsafe_put_user(val, dst, efault);
	if (get_user_inline(other, src))
		return -EFAULT;
	return val + other;
efault:
	return -EFAULT;
}
