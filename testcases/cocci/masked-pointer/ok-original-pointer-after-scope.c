// SPDX-License-Identifier: GPL-2.0
/* The original pointer used after the scope, for diagnostics only. */
static int get_word(u32 *w, u32 __user *uw)
{
	scoped_user_read_access(uw, Efault)
		unsafe_get_user(*w, uw, Efault);
	return 0;
Efault:
	pr_debug("fault at %px\n", uw);
	return -EFAULT;
}
