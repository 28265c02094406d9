// SPDX-License-Identifier: GPL-2.0
/* A noinline function of the file is always an out-of-line call. */
static noinline u32 checksum(u32 v)
{
	return v ^ 0xdeadbeef;
}

static int put_sum(u32 __user *usum, u32 v)
{
	if (!user_write_access_begin(usum, sizeof(*usum)))
		return -EFAULT;
	unsafe_put_user(checksum(v), usum, Efault);
	user_write_access_end();
	return 0;
Efault:
	user_write_access_end();
	return -EFAULT;
}
