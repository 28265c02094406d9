// SPDX-License-Identifier: GPL-2.0
/*
 * Ends not written literally: a macro of the file that ends the region
 * and returns, and an __always_inline helper that ends it, after which a
 * call runs with user access closed.
 */
#define put_fail(err) do { user_write_access_end(); return err; } while (0)

static __always_inline void put_done(void)
{
	user_write_access_end();
}

static int put_two(int __user *p, int a, int *buf)
{
	if (!user_write_access_begin(p, 2 * sizeof(*p)))
		return -EFAULT;
	unsafe_put_user(a, p, efault);
	if (a < 0)
		put_fail(-EINVAL);
	unsafe_put_user(a + 1, p + 1, efault);
	put_done();
	kfree(buf);
	return 0;
efault:
	put_done();
	return -EFAULT;
}
