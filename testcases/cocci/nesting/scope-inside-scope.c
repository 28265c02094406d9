// SPDX-License-Identifier: GPL-2.0
/* Scopes do not nest. */
static int copy_word(u32 __user *dst, const u32 __user *src)
{
	u32 v;

	scoped_user_read_access(src, Efault) {
		unsafe_get_user(v, src, Efault);
		scoped_user_write_access(dst, Efault)
			unsafe_put_user(v, dst, Efault);
	}
	return 0;
Efault:
	return -EFAULT;
}
