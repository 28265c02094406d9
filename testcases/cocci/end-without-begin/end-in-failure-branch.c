// SPDX-License-Identifier: GPL-2.0
/* The failure branch of the begin ends the region it did not get. */
static int put_count(u32 __user *ucount, u32 count)
{
	if (!user_write_access_begin(ucount, sizeof(*ucount))) {
		user_write_access_end();
		return -EFAULT;
	}
	unsafe_put_user(count, ucount, Efault);
	user_write_access_end();
	return 0;
Efault:
	user_write_access_end();
	return -EFAULT;
}
