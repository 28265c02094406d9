// Two-level labels: the begin failure skips the end (goto efault), the
// accessors end first (efault_end).  efault becomes the scope's label,
// the end at efault_end goes, both labels stay.  Explicit size: _size.
// EXPECT: converted-two-level
static bool fill(struct buf *buf, struct dirent __user *dirent, u64 ino, int namlen)
{
	if (!user_write_access_begin(dirent, namlen + 8))
		goto efault;
	unsafe_put_user(ino, &dirent->d_ino, efault_end);
	unsafe_put_user(namlen, &dirent->d_namlen, efault_end);
	user_write_access_end();
	return true;
efault_end:
	user_write_access_end();
efault:
	buf->result = -EFAULT;
	return false;
}
