// SPDX-License-Identifier: GPL-2.0
/* A write accessor inside a region begun for reading. */
static int bump(u32 __user *uaddr)
{
	u32 val;

	if (!user_read_access_begin(uaddr, sizeof(*uaddr)))
		return -EFAULT;
	unsafe_get_user(val, uaddr, Efault);
	unsafe_put_user(val + 1, uaddr, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
