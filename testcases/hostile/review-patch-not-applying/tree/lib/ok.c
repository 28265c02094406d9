// SPDX-License-Identifier: GPL-2.0
static int fine(u32 __user *up, u32 *v)
{
	scoped_user_read_access(up, efault)
		unsafe_get_user(*v, up, efault);
	return 0;
efault:
	return -EFAULT;
}
