// The region ends with a comment before its end: the comment stays last
// in the scope.
// EXPECT: converted-two-level
static int update(struct task *t, struct area __user *area)
{
	if (!user_write_access_begin(area, t->len))
		goto efault;
	unsafe_put_user(t->cpu, &area->cpu, efault_end);
	/*
	 * Fields added later are only written when t->len says they
	 * exist.
	 */
	user_write_access_end();
	return 0;

efault_end:
	user_write_access_end();
efault:
	return -EFAULT;
}
