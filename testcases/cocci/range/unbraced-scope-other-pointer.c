// SPDX-License-Identifier: GPL-2.0
/* A scope whose one statement is an if-else: its else branch uses another pointer. */
static int put_other(u32 __user *uaddr, u32 __user *other, u32 v)
{
	scoped_user_write_access(uaddr, Efault)
		if (v)
			unsafe_put_user(v, uaddr, Efault);
		else
			unsafe_put_user(v, other, Efault);
	return 0;
Efault:
	return -EFAULT;
}
