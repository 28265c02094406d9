// SPDX-License-Identifier: GPL-2.0
/* An __always_inline helper of the file and header helpers in the table. */
static __always_inline u32 fold(u32 v)
{
	return v + 1;
}

static int put_stat(struct stat64 __user *ubuf, dev_t dev, u32 v)
{
	if (!user_write_access_begin(ubuf, sizeof(*ubuf)))
		return -EFAULT;
	unsafe_put_user(huge_encode_dev(dev), &ubuf->st_dev, Efault);
	unsafe_put_user(fold(v), &ubuf->st_ino, Efault);
	user_write_access_end();
	return 0;
Efault:
	user_write_access_end();
	return -EFAULT;
}
