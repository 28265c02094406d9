// SPDX-License-Identifier: GPL-2.0
/*
 * A put in a read scope whose body is an unbraced switch.  CLI only: the
 * CLI puts the body in braces for spatch (cocci/shim.py).
 */
static int clear_op(u32 __user *uaddr, int op)
{
	scoped_user_read_access(uaddr, Efault)
		switch (op) {
		case 1:
			unsafe_put_user(0, uaddr, Efault);
			break;
		default:
			break;
		}
	return 0;
Efault:
	return -EFAULT;
}
