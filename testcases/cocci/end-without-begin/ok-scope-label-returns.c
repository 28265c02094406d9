// SPDX-License-Identifier: GPL-2.0
/* A scope's fault label that only returns. */
static int get_compat_argpack(struct argpack *to, struct compat_argpack __user *from)
{
	if (from) {
		scoped_user_read_access(from, Efault) {
			unsafe_get_user(to->p, &from->p, Efault);
			unsafe_get_user(to->size, &from->size, Efault);
		}
	}
	return 0;
Efault:
	return -EFAULT;
}
