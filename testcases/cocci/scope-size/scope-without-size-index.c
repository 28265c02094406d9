// SPDX-License-Identifier: GPL-2.0
/* A scope without _size covers sizeof(*p): the next element is outside. */
static int get_next(long *v, const long __user *p)
{
	scoped_user_read_access(p, Efault)
		unsafe_get_user(*v, &p[1], Efault);
	return 0;
Efault:
	return -EFAULT;
}
