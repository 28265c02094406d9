// SPDX-License-Identifier: GPL-2.0
/* A read-modify-write accessor needs a read/write region. */
static int cmpxchg_user(u32 __user *uaddr, u32 *old, u32 new)
{
	if (!user_write_access_begin(uaddr, sizeof(*uaddr)))
		return -EFAULT;
	unsafe_try_cmpxchg_user(uaddr, old, new, Efault);
	user_write_access_end();
	return 0;
Efault:
	user_write_access_end();
	return -EFAULT;
}
