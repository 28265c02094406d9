// SPDX-License-Identifier: GPL-2.0
/*
 * A call in the do-while that is an unbraced scope's body.  CLI only: the
 * CLI puts the body in braces for spatch (cocci/shim.py).
 */
static int put_words(u32 __user *uaddr, const u32 *v, int n)
{
	scoped_user_write_access(uaddr, Efault)
		do {
			n--;
			unsafe_put_user(compute(v[n]), uaddr, Efault);
		} while (n > 0);
	return 0;
Efault:
	return -EFAULT;
}
