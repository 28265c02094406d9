// SPDX-License-Identifier: GPL-2.0
/* The fault path through a label inside if (0) forgets the end. */
static int get_val(u32 *val, const u32 __user *uptr)
{
	int ret = 0;

	if (!user_read_access_begin(uptr, sizeof(*uptr)))
		return -EFAULT;
	unsafe_get_user(*val, uptr, efault);
	user_read_access_end();
	if (0) {
efault:
		*val = 0;
		ret = -EFAULT;
	}
	return ret;
}
