// SPDX-License-Identifier: GPL-2.0
/* A scope sized for one int, and accesses up to the fourth. */
static int get_quad(int *v, int __user *p)
{
	scoped_user_read_access_size(p, sizeof(int), Efault) {
		unsafe_get_user(v[0], &p[0], Efault);
		unsafe_get_user(v[1], &p[1], Efault);
		unsafe_get_user(v[2], &p[2], Efault);
		unsafe_get_user(v[3], &p[3], Efault);
	}
	return 0;
Efault:
	return -EFAULT;
}
