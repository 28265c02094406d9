// SPDX-License-Identifier: GPL-2.0
/* Four elements checked, the last one is p[3]. */
static int put_quad(u32 __user *p, const u32 *v)
{
	scoped_user_write_access_size(p, 4 * sizeof(*p), Efault) {
		unsafe_put_user(v[0], &p[0], Efault);
		unsafe_put_user(v[1], p + 1, Efault);
		unsafe_put_user(v[2], &p[2], Efault);
		unsafe_put_user(v[3], &p[3], Efault);
	}
	return 0;
Efault:
	return -EFAULT;
}
