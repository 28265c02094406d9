// SPDX-License-Identifier: GPL-2.0
/* The masked pointer is cast away; the accesses use the unchecked one. */
static int get_word(u32 *w, const u32 __user *uw)
{
	(void)masked_user_access_begin(uw);
	unsafe_get_user(*w, uw, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
