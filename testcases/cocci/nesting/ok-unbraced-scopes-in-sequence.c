// SPDX-License-Identifier: GPL-2.0
/* Unbraced scopes one after the other: the second is not inside the first. */
static int put_both(u32 __user *a, u32 __user *b, u32 v)
{
	scoped_user_write_access(a, Efault)
		unsafe_put_user(v, a, Efault);
	scoped_user_write_access(b, Efault)
		unsafe_put_user(v, b, Efault);
	return 0;
Efault:
	return -EFAULT;
}
