// SPDX-License-Identifier: GPL-2.0
/* The strnlen_user() shape: the region lives inside the braces. */
static __always_inline long do_strnlen_user(const char __user *src, long count, unsigned long max)
{
	return 0;
}

long my_strnlen_user(const char __user *str, long count, unsigned long max)
{
	if (user_read_access_begin(str, max)) {
		long retval = do_strnlen_user(str, count, max);
		user_read_access_end();
		return retval;
	}
	return 0;
}
