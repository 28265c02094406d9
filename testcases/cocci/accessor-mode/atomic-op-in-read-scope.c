// SPDX-License-Identifier: GPL-2.0
/* The futex atomic ops read and write: a read scope is wrong. */
static __always_inline int futex_add(int oparg, int *oval, u32 __user *uaddr)
{
	scoped_user_read_access(uaddr, Efault)
		unsafe_atomic_op1(LOCK_PREFIX "xaddl %0, %2", oval, uaddr, oparg, Efault);
	return 0;
Efault:
	return -EFAULT;
}
