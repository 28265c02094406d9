// SPDX-License-Identifier: GPL-2.0
/*
 * The only accessor is a wrapper macro of the file that takes the fault
 * label (the shape of readdir's unsafe_copy_dirent_name()): its label is
 * a fault label of the region, and that path has no end.
 */
#define unsafe_copy_name(dst, src, len, label) do {		\
	char __user *dst__ = (dst);				\
	unsafe_copy_to_user(dst__, src, len, label);		\
	unsafe_put_user(0, dst__ + len, label);			\
} while (0)

static int put_name(char __user *p, const char *name, int len)
{
	if (!user_write_access_begin(p, len + 1))
		return -EFAULT;
	unsafe_copy_name(p, name, len, efault);
	user_write_access_end();
	return 0;
efault:
	return -EFAULT;
}
