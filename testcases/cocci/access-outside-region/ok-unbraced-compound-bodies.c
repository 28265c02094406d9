// SPDX-License-Identifier: GPL-2.0
/* Unbraced scopes whose one statement is an if, an if-else, a for or a while. */
static int put_words(u32 __user *uaddr, const u32 *v, int n, bool zero)
{
	int i;

	scoped_user_write_access(uaddr, Efault)
		if (zero)
			unsafe_put_user(0, uaddr, Efault);
	scoped_user_write_access(uaddr, Efault)
		if (zero)
			unsafe_put_user(0, uaddr, Efault);
		else
			unsafe_put_user(v[0], uaddr, Efault);
	scoped_user_write_access_size(uaddr, n * sizeof(*uaddr), Efault)
		for (i = 0; i < n; i++)
			unsafe_put_user(v[i], &uaddr[i], Efault);
	scoped_user_write_access(uaddr, Efault)
		while (zero) {
			unsafe_put_user(0, uaddr, Efault);
			zero = false;
		}
	return 0;
Efault:
	return -EFAULT;
}
