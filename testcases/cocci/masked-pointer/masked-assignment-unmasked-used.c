// SPDX-License-Identifier: GPL-2.0
/* Assigned, then the unmasked argument is used anyway. */
static long copy_flush(void *dst, const void __user *src, size_t size)
{
	const u64 __user *s;
	u64 first;

	s = masked_user_access_begin(src);
	unsafe_get_user(first, (const u64 __user *)src, Efault);
	user_access_end();
	return first;
Efault:
	user_access_end();
	return -EFAULT;
}
