// SPDX-License-Identifier: GPL-2.0
/* A void function ends the region only when the flag is set. */
static void record_time(struct steal_time __user *st, u64 steal, bool flag)
{
	if (!user_access_begin(st, sizeof(*st)))
		return;
	unsafe_put_user(steal, &st->steal, out);
	if (flag)
		user_access_end();
out:
	mark_dirty(st);
}
