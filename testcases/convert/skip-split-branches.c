// Must not change: the region is begun in two branches and ended after
// them, so it is not one block.
// EXPECT: skip:split-branches
// EXPECT: skip:split-branches
static void steal(struct st __user *st, bool flush)
{
	if (flush) {
		if (!user_access_begin(st, sizeof(*st)))
			return;
		unsafe_put_user(0, &st->preempted, out);
	} else {
		if (!user_access_begin(st, sizeof(*st)))
			return;
	}
	unsafe_put_user(1, &st->version, out);
out:
	user_access_end();
}
