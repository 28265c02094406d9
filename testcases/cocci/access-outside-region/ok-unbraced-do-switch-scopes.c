// SPDX-License-Identifier: GPL-2.0
/*
 * Scopes whose body is, without braces, one do-while or one switch
 * statement: their accessors run inside the scope.  CLI only: spatch
 * 1.1.1 parses these bodies as scope bodies once the CLI has put them in
 * braces (cocci/shim.py); make coccicheck cannot.
 */
static int fill_words(u32 __user *uaddr, u32 v, int n)
{
	scoped_user_write_access(uaddr, Efault)
		do {
			unsafe_put_user(v, uaddr, Efault);
		} while (--n > 0);
	return 0;
Efault:
	return -EFAULT;
}

static int get_op(const u32 __user *uaddr, int op, u32 *v)
{
	scoped_user_read_access(uaddr, Efault)
		switch (op) {
		case 0:
			unsafe_get_user(*v, uaddr, Efault);
			break;
		default:
			*v = 0;
			break;
		}
	return 0;
Efault:
	return -EFAULT;
}
