// SPDX-License-Identifier: GPL-2.0
/* A call bracketed by user_access_save()/user_access_restore(). */
static int get_traced(u32 *v, const u32 __user *uv)
{
	unsigned long flags;

	if (!user_read_access_begin(uv, sizeof(*uv)))
		return -EFAULT;
	unsafe_get_user(*v, uv, Efault);
	flags = user_access_save();
	trace_value(*v);
	user_access_restore(flags);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
