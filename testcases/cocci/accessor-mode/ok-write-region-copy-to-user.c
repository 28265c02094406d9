// SPDX-License-Identifier: GPL-2.0
/* Writes only, in a write region: the readdir shape. */
static bool fill_dirent(struct linux_dirent __user *dirent, const char *name,
			int namlen, u64 ino, loff_t offset)
{
	if (!user_write_access_begin(dirent, sizeof(*dirent) + namlen + 1))
		goto efault;
	unsafe_put_user(ino, &dirent->d_ino, efault_end);
	unsafe_put_user(offset, &dirent->d_off, efault_end);
	unsafe_copy_to_user(dirent->d_name, name, namlen, efault_end);
	unsafe_put_user(0, dirent->d_name + namlen, efault_end);
	user_write_access_end();
	return true;
efault_end:
	user_write_access_end();
efault:
	return false;
}
