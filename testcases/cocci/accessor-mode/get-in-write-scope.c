// SPDX-License-Identifier: GPL-2.0
/* A read accessor inside a write scope. */
static int exchange(u32 __user *uaddr, u32 new, u32 *old)
{
	scoped_user_write_access(uaddr, Efault) {
		unsafe_get_user(*old, uaddr, Efault);
		unsafe_put_user(new, uaddr, Efault);
	}
	return 0;
Efault:
	return -EFAULT;
}
