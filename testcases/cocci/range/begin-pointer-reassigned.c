// SPDX-License-Identifier: GPL-2.0
/*
 * The shape readdir had before "readdir: make user_access_begin() use the
 * real access range": the begin checks the previous record, the pointer is
 * then moved to the current one and written through.
 */
struct rec {
	u64 ino;
	u64 off;
	u16 reclen;
};

static int fill(struct rec __user *prev, struct rec __user *dirent, u64 ino, u64 off)
{
	if (!user_write_access_begin(prev, sizeof(*prev)))
		return -EFAULT;
	unsafe_put_user(off, &prev->off, efault);
	prev = dirent;
	unsafe_put_user(ino, &prev->ino, efault);
	unsafe_put_user(sizeof(*prev), &prev->reclen, efault);
	user_write_access_end();
	return 0;
efault:
	user_write_access_end();
	return -EFAULT;
}
