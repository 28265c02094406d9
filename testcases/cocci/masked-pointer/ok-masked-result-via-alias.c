// SPDX-License-Identifier: GPL-2.0
/* The masked pointer reaches the accessors through a pointer derived from it. */
struct rec { u32 len; u32 data[4]; };

static int get_rec(u32 *len, u32 *d0, const struct rec __user *urec)
{
	const struct rec __user *r;
	const u32 __user *data;

	r = masked_user_access_begin(urec);
	data = r->data;
	unsafe_get_user(*len, &r->len, Efault);
	unsafe_get_user(*d0, data, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
