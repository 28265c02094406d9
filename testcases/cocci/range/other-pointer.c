// SPDX-License-Identifier: GPL-2.0
/* The region covers src, the write goes to dst. */
static int copy_word(u32 __user *dst, const u32 __user *src)
{
	u32 v;

	if (!user_access_begin(src, sizeof(*src)))
		return -EFAULT;
	unsafe_get_user(v, src, Efault);
	unsafe_put_user(v, dst, Efault);
	user_access_end();
	return 0;
Efault:
	user_access_end();
	return -EFAULT;
}
