// SPDX-License-Identifier: GPL-2.0
/* The loop starts at a caller-supplied index, not at 0. */
static int sum_from(u32 *sum, const u32 __user *uptr, int from, int n)
{
	u32 v;
	int i;

	*sum = 0;
	scoped_user_read_access_size(uptr, n * sizeof(*uptr), Efault) {
		for (i = from; i < n; i++) {
			unsafe_get_user(v, &uptr[i], Efault);
			*sum += v;
		}
	}
	return 0;
Efault:
	return -EFAULT;
}
