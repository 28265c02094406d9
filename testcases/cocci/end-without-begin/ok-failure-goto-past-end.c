// SPDX-License-Identifier: GPL-2.0
/* The readdir shape: the failed begin jumps past the end label. */
static bool fillonedir(struct old_dirent __user *dirent, u64 ino, loff_t offset)
{
	if (!user_write_access_begin(dirent, sizeof(*dirent)))
		goto efault;
	unsafe_put_user(ino, &dirent->d_ino, efault_end);
	unsafe_put_user(offset, &dirent->d_offset, efault_end);
	user_write_access_end();
	return true;
efault_end:
	user_write_access_end();
efault:
	return false;
}
