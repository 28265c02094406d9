// SPDX-License-Identifier: GPL-2.0
/* 6.12's masked begin has no mode: a read or a write end both fit. */
static long len_masked(const char __user *str, long count)
{
	long retval;

	str = masked_user_access_begin(str);
	retval = do_strnlen(str, count);
	user_read_access_end();
	return retval;
}

static void flush_masked(void *dst, const void __user *src, size_t size)
{
	src = masked_user_access_begin(src);
	copy_to_nontemporal(dst, (__force const void *)src, size);
	user_write_access_end();
}

static __always_inline long do_strnlen(const char __user *s, long n)
{
	return n;
}
