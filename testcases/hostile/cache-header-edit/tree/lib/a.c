// SPDX-License-Identifier: GPL-2.0
#include <linux/helper.h>

static int caller(u32 __user *up, u32 *v)
{
	scoped_user_read_access(up, efault) {
		helper();
		unsafe_get_user(*v, up, efault);
	}
	return 0;
efault:
	return -EFAULT;
}
