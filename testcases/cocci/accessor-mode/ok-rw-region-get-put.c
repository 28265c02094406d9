// SPDX-License-Identifier: GPL-2.0
/* A read/write region takes any accessor. */
static int bump(u32 __user *uaddr, u32 *old)
{
	u32 val;

	if (!user_access_begin(uaddr, sizeof(*uaddr)))
		return -EFAULT;
	unsafe_get_user(val, uaddr, Efault);
	unsafe_put_user(val + 1, uaddr, Efault);
	unsafe_try_cmpxchg_user(uaddr, &val, val + 2, Efault);
	user_access_end();
	*old = val;
	return 0;
Efault:
	user_access_end();
	return -EFAULT;
}
