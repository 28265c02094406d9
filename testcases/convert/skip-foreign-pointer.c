// Must not change: the region is begun on prev but also writes through
// dirent, which masking prev would not cover.
// EXPECT: skip:foreign-pointer
static bool fill(struct buf *buf, struct dirent __user *dirent, int prev_reclen, int reclen)
{
	struct dirent __user *prev = (void __user *)dirent - prev_reclen;

	if (!user_write_access_begin(prev, reclen + prev_reclen))
		goto efault;
	unsafe_put_user(1, &prev->d_off, efault_end);
	unsafe_put_user(reclen, &dirent->d_reclen, efault_end);
	user_write_access_end();
	return true;
efault_end:
	user_write_access_end();
efault:
	buf->error = -EFAULT;
	return false;
}
