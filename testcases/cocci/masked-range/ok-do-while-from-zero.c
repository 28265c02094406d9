// SPDX-License-Identifier: GPL-2.0
/* A do-while whose counter is set to 0 before the scope: the first access
 * is at the pointer itself. */
static int sum_some(u32 *sum, const u32 __user *uptr, unsigned int n)
{
	unsigned int i;
	u32 v;

	*sum = 0;
	i = 0;
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
