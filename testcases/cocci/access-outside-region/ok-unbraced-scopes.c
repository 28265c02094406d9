// SPDX-License-Identifier: GPL-2.0
/* One-statement scopes, as the series writes x86's futex ops. */
static int futex_op(int op, u32 oparg, int *oval, u32 __user *uaddr)
{
	switch (op) {
	case FUTEX_OP_SET:
		scoped_user_rw_access(uaddr, Efault)
			unsafe_atomic_op1("xchgl %0, %2", *oval, uaddr, oparg, Efault);
		break;
	case FUTEX_OP_OR:
		scoped_user_rw_access(uaddr, Efault)
			unsafe_atomic_op2("orl %4, %3", *oval, uaddr, oparg, Efault);
		break;
	default:
		return -ENOSYS;
	}
	return 0;
Efault:
	return -EFAULT;
}
