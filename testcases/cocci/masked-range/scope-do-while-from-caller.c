// SPDX-License-Identifier: GPL-2.0
/* A do-while whose counter starts at the caller's index. */
static int sum_from(u32 *sum, const u32 __user *uptr, unsigned int from, unsigned int n)
{
	unsigned int i = 0;
	u32 v;

	*sum = 0;
	i = from;
	scoped_user_read_access_size(uptr, n * sizeof(*uptr), Efault) {
		do {
			unsafe_get_user(v, &uptr[i], Efault);
			*sum += v;
		} while (++i < n);
	}
	return 0;
Efault:
	return -EFAULT;
}
