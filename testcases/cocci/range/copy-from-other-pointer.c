// SPDX-License-Identifier: GPL-2.0
/* unsafe_copy_from_user() reads from its second argument. */
static int get_name(char *name, const struct req __user *req, const char __user *uname)
{
	if (!user_read_access_begin(req, sizeof(*req)))
		return -EFAULT;
	unsafe_copy_from_user(name, uname, NAME_MAX, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
