// SPDX-License-Identifier: GPL-2.0
/* A size known at run time only, and a loop up to it. */
static int get_all(u32 *v, const u32 __user *p, unsigned int n)
{
	unsigned int i;

	scoped_user_read_access_size(p, n * sizeof(*p), Efault) {
		for (i = 0; i < n; i++)
			unsafe_get_user(v[i], &p[i], Efault);
	}
	return 0;
Efault:
	return -EFAULT;
}
