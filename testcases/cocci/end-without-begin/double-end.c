// SPDX-License-Identifier: GPL-2.0
/* The region is ended twice on the success path. */
static int get_flags(u32 *flags, const u32 __user *uflags)
{
	if (!user_read_access_begin(uflags, sizeof(*uflags)))
		return -EFAULT;
	unsafe_get_user(*flags, uflags, Efault);
	user_read_access_end();
	if (*flags & ~FLAGS_VALID) {
		user_read_access_end();
		return -EINVAL;
	}
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
