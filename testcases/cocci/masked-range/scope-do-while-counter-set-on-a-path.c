// SPDX-License-Identifier: GPL-2.0
/* The counter is set to 0, then to a caller's value on one path. */
static int sum_tail(u32 *sum, const u32 __user *uptr, unsigned int n)
{
	unsigned int i = 0;
	u32 v;

	*sum = 0;
	if (n > 16)
		i = n - 16;
	scoped_user_read_access_size(uptr, n * sizeof(*uptr), Efault) {
		do {
			unsafe_get_user(v, uptr + i, Efault);
			*sum += v;
		} while (++i < n);
	}
	return 0;
Efault:
	return -EFAULT;
}
