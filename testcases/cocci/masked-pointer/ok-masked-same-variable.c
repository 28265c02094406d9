// SPDX-License-Identifier: GPL-2.0
/* The usual shape: the pointer is replaced by its masked value. */
static long get_words(u32 *w, const u32 __user *uw)
{
	uw = masked_user_access_begin(uw);
	unsafe_get_user(w[0], uw, Efault);
	unsafe_get_user(w[1], uw + 1, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
