// SPDX-License-Identifier: GPL-2.0
/* A begin inside a region: the inner end closes both, so later ends repeat it. */
static int copy_word(u32 __user *dst, const u32 __user *src)
{
	u32 v;

	if (!user_read_access_begin(src, sizeof(*src)))
		return -EFAULT;
	unsafe_get_user(v, src, Efault_read);
	if (!user_write_access_begin(dst, sizeof(*dst)))
		goto Efault_read;
	unsafe_put_user(v, dst, Efault_write);
	user_write_access_end();
	user_read_access_end();
	return 0;
Efault_write:
	user_write_access_end();
Efault_read:
	user_read_access_end();
	return -EFAULT;
}
