// SPDX-License-Identifier: GPL-2.0
/* Pointers derived from the begin pointer before and inside the region. */
static bool filldir(struct dirent __user *dirent, int prev_reclen, u64 ino,
		    loff_t offset, int reclen)
{
	struct dirent __user *prev = (void __user *)dirent - prev_reclen;
	const u32 __user *p;

	if (!user_write_access_begin(prev, reclen + prev_reclen))
		goto efault;
	unsafe_put_user(offset, &prev->d_off, efault_end);
	unsafe_put_user(ino, &dirent->d_ino, efault_end);
	p = (const u32 __user *)&dirent->d_name;
	unsafe_put_user(0, (u32 __user *)p, efault_end);
	user_write_access_end();
	return true;
efault_end:
	user_write_access_end();
efault:
	return false;
}

static int get_regs(u32 *regs, const void __user *ubuf, unsigned int count)
{
	const u32 __user *u = ubuf;

	if (!user_read_access_begin(u, count))
		return -EFAULT;
	while (count--)
		unsafe_get_user(*regs++, u++, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
