// SPDX-License-Identifier: GPL-2.0
/* A begin in the else of the masked prologue: every path begins once. */
static int get_word(u32 *val, const u32 __user *uaddr)
{
	if (can_do_masked_user_access())
		uaddr = masked_user_access_begin(uaddr);
	else if (!user_read_access_begin(uaddr, sizeof(*uaddr)))
		return -EFAULT;
	unsafe_get_user(*val, uaddr, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
