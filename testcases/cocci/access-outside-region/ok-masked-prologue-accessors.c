// SPDX-License-Identifier: GPL-2.0
/* Both branches of the masked prologue open the region. */
static int get_pair(struct pair *to, struct pair __user *from)
{
	if (can_do_masked_user_access())
		from = masked_user_access_begin(from);
	else if (!user_read_access_begin(from, sizeof(*from)))
		return -EFAULT;
	unsafe_get_user(to->a, &from->a, Efault);
	unsafe_get_user(to->b, &from->b, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
