// SPDX-License-Identifier: GPL-2.0
/* Calls after the end and before the begin are outside the region. */
static int get_and_log(u32 *v, const u32 __user *uv)
{
	might_fault();
	if (!user_read_access_begin(uv, sizeof(*uv)))
		return -EFAULT;
	unsafe_get_user(*v, uv, Efault);
	user_read_access_end();
	pr_debug("got %u\n", *v);
	return 0;
Efault:
	user_read_access_end();
	pr_debug("fault\n");
	return -EFAULT;
}
