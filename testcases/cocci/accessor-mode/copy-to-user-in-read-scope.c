// SPDX-License-Identifier: GPL-2.0
/* unsafe_copy_to_user() writes: wrong in a read scope. */
static int echo_name(char __user *buf, const char *name, size_t len)
{
	char first;

	scoped_user_read_access_size(buf, len, Efault) {
		unsafe_get_user(first, buf, Efault);
		unsafe_copy_to_user(buf, name, len, Efault);
	}
	return first;
Efault:
	return -EFAULT;
}
