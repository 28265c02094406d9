// SPDX-License-Identifier: GPL-2.0
/* A read region ended through a helper that calls the write end. */
static __always_inline void done(void)
{
	user_write_access_end();
}

static int get_one(const int __user *p, int *v)
{
	if (!user_read_access_begin(p, sizeof(*p)))
		return -EFAULT;
	unsafe_get_user(*v, p, efault);
	done();
	return 0;
efault:
	user_read_access_end();
	return -EFAULT;
}
