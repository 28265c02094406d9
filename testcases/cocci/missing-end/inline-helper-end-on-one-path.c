// SPDX-License-Identifier: GPL-2.0
/* An end helper on the fault path only: the success return leaves the region open. */
static __always_inline int put_fail(void)
{
	user_write_access_end();
	return -EFAULT;
}

static int put_one(int __user *p, int v)
{
	if (!user_write_access_begin(p, sizeof(*p)))
		return -EFAULT;
	unsafe_put_user(v, p, efault);
	return 0;
efault:
	return put_fail();
}
