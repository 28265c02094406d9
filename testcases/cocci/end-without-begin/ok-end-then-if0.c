// SPDX-License-Identifier: GPL-2.0
/* End on the success path, then a fault label with its own end in if (0). */
static int get_word(u32 *w, const u32 __user *uw)
{
	if (!user_read_access_begin(uw, sizeof(*uw)))
		return -EFAULT;
	unsafe_get_user(*w, uw, efault);
	user_read_access_end();
	if (0) {
efault:
		user_read_access_end();
		return -EFAULT;
	}
	return 0;
}
