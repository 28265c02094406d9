// SPDX-License-Identifier: GPL-2.0
/* The fault path reports before it ends the region. */
static int get_word(u32 *w, const u32 __user *uw)
{
	if (!user_read_access_begin(uw, sizeof(*uw)))
		return -EFAULT;
	unsafe_get_user(*w, uw, Efault);
	user_read_access_end();
	return 0;
Efault:
	pr_warn("fault reading %p\n", uw);
	user_read_access_end();
	return -EFAULT;
}
