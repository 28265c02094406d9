// SPDX-License-Identifier: GPL-2.0
/* A loop leaves the region with break; the end follows the loop. */
static long count_words(const u32 __user *uptr, long max)
{
	long n = 0;
	u32 w;

	if (!user_read_access_begin(uptr, max * sizeof(*uptr)))
		return -EFAULT;
	while (n < max) {
		unsafe_get_user(w, uptr + n, Efault);
		if (!w)
			break;
		n++;
	}
	user_read_access_end();
	return n;
Efault:
	user_read_access_end();
	return -EFAULT;
}
