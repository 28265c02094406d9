// SPDX-License-Identifier: GPL-2.0
/* An open-coded region checked for one u16 and written two. */
static int put_halves(u16 __user *p, u16 lo, u16 hi)
{
	if (!user_write_access_begin(p, sizeof(u16)))
		return -EFAULT;
	unsafe_put_user(lo, &p[0], Efault);
	unsafe_put_user(hi, &p[1], Efault);
	user_write_access_end();
	return 0;
Efault:
	user_write_access_end();
	return -EFAULT;
}
