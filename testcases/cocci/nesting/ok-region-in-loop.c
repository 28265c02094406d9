// SPDX-License-Identifier: GPL-2.0
/* A region begun and ended in every pass of a loop. */
static int get_all(u32 *vals, u32 __user * const *uptrs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		const u32 __user *p = uptrs[i];

		if (!user_read_access_begin(p, sizeof(*p)))
			return -EFAULT;
		unsafe_get_user(vals[i], p, Efault);
		user_read_access_end();
	}
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
