// SPDX-License-Identifier: GPL-2.0
/* Two regions one after the other, with work in between. */
static int copy_twice(u32 __user *a, u32 __user *b)
{
	u32 v;

	if (!user_read_access_begin(a, sizeof(*a)))
		return -EFAULT;
	unsafe_get_user(v, a, Efault_read);
	user_read_access_end();

	v = transform(v);

	if (!user_write_access_begin(b, sizeof(*b)))
		return -EFAULT;
	unsafe_put_user(v, b, Efault_write);
	user_write_access_end();
	return 0;
Efault_read:
	user_read_access_end();
	return -EFAULT;
Efault_write:
	user_write_access_end();
	return -EFAULT;
}
