// SPDX-License-Identifier: GPL-2.0
/* Only the fault path is wrong: the accessors' label ends with the rw end. */
static int put_stat(struct stat64 __user *ubuf, const struct kstat *stat)
{
	if (!user_write_access_begin(ubuf, sizeof(*ubuf)))
		return -EFAULT;
	unsafe_put_user(stat->ino, &ubuf->st_ino, Efault);
	unsafe_put_user(stat->mode, &ubuf->st_mode, Efault);
	user_write_access_end();
	return 0;
Efault:
	user_access_end();
	return -EFAULT;
}
