// SPDX-License-Identifier: GPL-2.0
/* A call in the loop that is an unbraced scope's body runs with user access open. */
static int put_words(u32 __user *uaddr, const u32 *v, int n)
{
	int i;

	scoped_user_write_access_size(uaddr, n * sizeof(*uaddr), Efault)
		for (i = 0; i < n; i++)
			unsafe_put_user(compute(v[i]), &uaddr[i], Efault);
	return 0;
Efault:
	return -EFAULT;
}
