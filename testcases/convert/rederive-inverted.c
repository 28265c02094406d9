// The region opens on prev, computed back from dirent, and writes through
// dirent: dirent is computed again in the scope from the scope's prev.
// EXPECT: converted-two-level+rederive
static bool fill(struct callback *buf, const char *name, int namlen, u64 ino)
{
	struct dirent __user *dirent, *prev;
	int reclen = namlen + 16;
	int prev_reclen = buf->prev_reclen;

	dirent = buf->current_dir;
	prev = (void __user *) dirent - prev_reclen;
	if (!user_write_access_begin(prev, reclen + prev_reclen))
		goto efault;
	unsafe_put_user(reclen, &prev->d_off, efault_end);
	unsafe_put_user(ino, &dirent->d_ino, efault_end);
	user_write_access_end();
	buf->current_dir = (void __user *)dirent + reclen;
	return true;
efault_end:
	user_write_access_end();
efault:
	buf->error = -EFAULT;
	return false;
}
