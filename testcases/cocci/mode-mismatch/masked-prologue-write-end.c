// SPDX-License-Identifier: GPL-2.0
/*
 * The masked prologue falls back to a read begin; the write end is
 * wrong where masking is not available.
 */
static int get_argpack(struct argpack *to, struct argpack __user *from)
{
	if (can_do_masked_user_access())
		from = masked_user_access_begin(from);
	else if (!user_read_access_begin(from, sizeof(*from)))
		return -EFAULT;
	unsafe_get_user(to->p, &from->p, Efault);
	unsafe_get_user(to->size, &from->size, Efault);
	user_write_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
