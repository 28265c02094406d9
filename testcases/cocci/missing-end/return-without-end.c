// SPDX-License-Identifier: GPL-2.0
/* An early return on the success path leaves the region open. */
static int get_msg(struct msg *to, const struct msg __user *from)
{
	if (!user_read_access_begin(from, sizeof(*from)))
		return -EFAULT;
	unsafe_get_user(to->len, &from->len, Efault);
	if (to->len > MSG_MAX)
		return -EINVAL;
	unsafe_get_user(to->flags, &from->flags, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
