// SPDX-License-Identifier: GPL-2.0
/* Members and small constant offsets stay within the first page. */
static int get_hdr(struct hdr *to, struct hdr __user *from)
{
	from = masked_user_access_begin(from);
	unsafe_get_user(to->len, &from->len, Efault);
	unsafe_get_user(to->flags, &from->flags, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}

static int get_second(u32 *v, const u32 __user *uptr)
{
	scoped_user_read_access_size(uptr, 2 * sizeof(*uptr), Efault)
		unsafe_get_user(*v, uptr + 1, Efault);
	return 0;
Efault:
	return -EFAULT;
}
