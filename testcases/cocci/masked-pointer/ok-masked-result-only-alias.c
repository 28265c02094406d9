// SPDX-License-Identifier: GPL-2.0
/* Only a pointer derived from the masked one is used: the result is not discarded. */
struct rec { u32 len; u32 data[4]; };

static int get_data(u32 *d0, const struct rec __user *urec)
{
	const struct rec __user *r = masked_user_access_begin(urec);
	const u32 __user *data = &r->data[0];

	unsafe_get_user(*d0, data, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
