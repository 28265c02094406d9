// SPDX-License-Identifier: GPL-2.0
/* Two read regions share one fault label; both end correctly. */
static int get_two(u32 *a, u32 *b, const u32 __user *ua, const u32 __user *ub)
{
	if (!user_read_access_begin(ua, sizeof(*ua)))
		return -EFAULT;
	unsafe_get_user(*a, ua, Efault);
	user_read_access_end();

	if (!user_read_access_begin(ub, sizeof(*ub)))
		return -EFAULT;
	unsafe_get_user(*b, ub, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
