// SPDX-License-Identifier: GPL-2.0
/* get_user_inline() and put_user_inline() on their own. */
static int futex_bump(u32 __user *uaddr)
{
	u32 val;

	if (get_user_inline(val, uaddr))
		return -EFAULT;
	return put_user_inline(val + 1, uaddr);
}
