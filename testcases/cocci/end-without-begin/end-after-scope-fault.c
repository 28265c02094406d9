// SPDX-License-Identifier: GPL-2.0
/* A conversion to a scope left the old end at the fault label. */
static int get_argpack(struct argpack *to, struct argpack __user *from)
{
	scoped_user_read_access(from, Efault) {
		unsafe_get_user(to->p, &from->p, Efault);
		unsafe_get_user(to->size, &from->size, Efault);
	}
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
