// SPDX-License-Identifier: GPL-2.0
/* Two u32 checked, the third read: the index equals the count. */
static int get_triple(u32 *v, const u32 __user *p)
{
	scoped_user_read_access_size(p, 2 * sizeof(u32), Efault) {
		unsafe_get_user(v[0], &p[0], Efault);
		unsafe_get_user(v[1], &p[1], Efault);
		unsafe_get_user(v[2], &p[2], Efault);
	}
	return 0;
Efault:
	return -EFAULT;
}
