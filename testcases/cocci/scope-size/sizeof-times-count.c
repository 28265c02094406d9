// SPDX-License-Identifier: GPL-2.0
/* The count after sizeof, and an offset well past it. */
static int put_far(u64 __user *p, u64 v)
{
	scoped_user_write_access_size(p, sizeof(*p) * 3, Efault)
		unsafe_put_user(v, p + 5, Efault);
	return 0;
Efault:
	return -EFAULT;
}
