// SPDX-License-Identifier: GPL-2.0
/* An unbraced scope whose one statement is another scope. */
static int put_both(u32 __user *a, u32 __user *b, u32 v)
{
	scoped_user_write_access(a, Efault)
		scoped_user_write_access(b, Efault)
			unsafe_put_user(v, b, Efault);
	return 0;
Efault:
	return -EFAULT;
}
