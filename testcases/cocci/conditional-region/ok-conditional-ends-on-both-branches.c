// SPDX-License-Identifier: GPL-2.0
/* Ends under a condition, but the begin has none: both branches end. */
static int get_flag(u32 *flag, const u32 __user *uaddr, bool strict)
{
	if (unlikely(!user_read_access_begin(uaddr, sizeof(*uaddr))))
		return -EFAULT;
	unsafe_get_user(*flag, uaddr, Efault);
	if (strict && *flag > 1) {
		user_read_access_end();
		return -EINVAL;
	}
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
