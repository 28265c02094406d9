// SPDX-License-Identifier: GPL-2.0
static int one(u32 __user *up, u32 *v)
{
	int x0 = 0 ) ;
	scoped_user_read_access(up, efault)
		unsafe_get_user(*v, up, efault);
	return 0;
efault:
	return -EFAULT;
}
