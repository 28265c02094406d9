// SPDX-License-Identifier: GPL-2.0
/* A loop from 0: the first access is at the pointer itself. */
static int sum_all(u32 *sum, const u32 __user *uptr, int n)
{
	u32 v;
	int i;

	*sum = 0;
	scoped_user_read_access_size(uptr, n * sizeof(*uptr), Efault) {
		for (i = 0; i < n; i++) {
			unsafe_get_user(v, uptr + i, Efault);
			*sum += v;
		}
	}
	return 0;
Efault:
	return -EFAULT;
}
