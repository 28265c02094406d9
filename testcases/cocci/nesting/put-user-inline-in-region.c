// SPDX-License-Identifier: GPL-2.0
/* put_user_inline() inside an open-coded region. */
static int put_two(u32 __user *ua, u32 __user *ub, u32 a, u32 b)
{
	if (!user_write_access_begin(ua, sizeof(*ua)))
		return -EFAULT;
	unsafe_put_user(a, ua, Efault);
	if (put_user_inline(b, ub))
		goto Efault;
	user_write_access_end();
	return 0;
Efault:
	user_write_access_end();
	return -EFAULT;
}
