// SPDX-License-Identifier: GPL-2.0
/* sizeof(*p) covers p[0]; the second write goes to p + 1. */
static int put_pair(u32 __user *p, u32 a, u32 b)
{
	scoped_user_write_access_size(p, sizeof(*p), Efault) {
		unsafe_put_user(a, p, Efault);
		unsafe_put_user(b, p + 1, Efault);
	}
	return 0;
Efault:
	return -EFAULT;
}
