// SPDX-License-Identifier: GPL-2.0
/* A cast integer constant points into no object: not into the region's. */
static int put_flag(u32 __user *uaddr, u32 v)
{
	if (!user_write_access_begin(uaddr, sizeof(*uaddr)))
		return -EFAULT;
	unsafe_put_user(v, uaddr, Efault);
	unsafe_put_user(v, (u32 __user *)0x1000, Efault);
	user_write_access_end();
	return 0;
Efault:
	user_write_access_end();
	return -EFAULT;
}
