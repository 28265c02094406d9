// SPDX-License-Identifier: GPL-2.0
/* A begin tested positively, with a return inside that skips the end. */
static int read_mem(unsigned long *dest, unsigned long ea, int nb)
{
	int err = -EFAULT;

	if (user_read_access_begin((void __user *)ea, nb)) {
		unsafe_get_user(*dest, (unsigned long __user *)ea, efault);
		if (!*dest)
			return -ENOENT;
		err = 0;
efault:
		user_read_access_end();
	}
	return err;
}
