// SPDX-License-Identifier: GPL-2.0
/* The copy is the record to fill; the variable is advanced past it for the
 * next call and never tested here: the region covers the record. */
static bool fill_one(struct getdents_callback *buf, u64 ino, int reclen)
{
	struct linux_dirent __user *dirent = buf->current_dir;
	void __user *next = dirent;

	next += reclen;
	scoped_user_write_access_size(dirent, reclen, efault) {
		unsafe_put_user(ino, &dirent->d_ino, efault);
		unsafe_put_user(reclen, &dirent->d_reclen, efault);
	}
	buf->current_dir = next;
	return true;
efault:
	return false;
}
