// SPDX-License-Identifier: GPL-2.0
static int err(u32 __user *up, u32 *v)
{
	if (!user_read_access_begin(up, sizeof(*up)))
		return -EFAULT;
	unsafe_get_user(*v, up, efault);
	return 0;
efault:
	user_read_access_end();
	return -EFAULT;
}
