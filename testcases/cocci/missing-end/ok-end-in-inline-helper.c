// SPDX-License-Identifier: GPL-2.0
/* The end is in an __always_inline helper of the file: its call ends the region. */
static __always_inline void put_done(struct ctx *c)
{
	user_write_access_end();
	c->busy = 0;
}

static int put_one(struct ctx *c, int __user *p, int v)
{
	if (!user_write_access_begin(p, sizeof(*p)))
		return -EFAULT;
	unsafe_put_user(v, p, efault);
	put_done(c);
	return 0;
efault:
	put_done(c);
	return -EFAULT;
}
