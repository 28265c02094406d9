// SPDX-License-Identifier: GPL-2.0
/* One early exit ends a read/write region with the read end. */
static int swap_flag(u32 __user *uaddr, u32 new, u32 *old)
{
	u32 cur;

	if (!user_access_begin(uaddr, sizeof(*uaddr)))
		return -EFAULT;
	unsafe_get_user(cur, uaddr, Efault);
	if (cur == new) {
		user_read_access_end();
		return 0;
	}
	unsafe_put_user(new, uaddr, Efault);
	user_access_end();
	*old = cur;
	return 1;
Efault:
	user_access_end();
	return -EFAULT;
}
