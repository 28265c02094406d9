// SPDX-License-Identifier: GPL-2.0
// EXPECT-ERROR: jump into scope of identifier with variably modified type|cannot jump from this goto statement to its label
/*
 * The label a scope jumps to when its begin is rejected must lie outside
 * of the scope: inside, it would run the scope without the region open
 * and then end a region that was never begun.
 */
#include <linux/uaccess.h>

int label_inside(u32 __user *src);
int label_inside(u32 __user *src)
{
	u32 val = 0;

	scoped_user_read_access(src, efault) {
		unsafe_get_user(val, src, efault);
		if (0) {
efault:
			return -EFAULT;
		}
	}
	return val;
}
