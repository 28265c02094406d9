// SPDX-License-Identifier: GPL-2.0
/*
 * A scope opened in the do-while that is an unbraced scope's body.
 * CLI only: the CLI puts the body in braces for spatch (cocci/shim.py).
 */
static int copy_word(u32 __user *dst, const u32 __user *src, int n)
{
	u32 w;

	scoped_user_write_access(dst, Efault)
		do {
			n--;
			scoped_user_read_access(src, Efault)
				unsafe_get_user(w, src, Efault);
			unsafe_put_user(w, dst, Efault);
		} while (n > 0);
	return 0;
Efault:
	return -EFAULT;
}
