// SPDX-License-Identifier: GPL-2.0
/* A scope whose body is one statement gets the mode check of a braced one. */
static int put_word(u32 __user *uaddr, u32 v)
{
	scoped_user_read_access(uaddr, Efault)
		unsafe_put_user(v, uaddr, Efault);
	return 0;
Efault:
	return -EFAULT;
}
