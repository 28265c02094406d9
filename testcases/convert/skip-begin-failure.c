// Must not change: a rejected begin returns 0 here, and no label outside
// the region does that, so no label can stand in for the begin failure.
// EXPECT: skip:begin-failure
static int put_flag(struct flags __user *f, u32 v)
{
	if (!user_write_access_begin(f, sizeof(*f)))
		return 0;
	unsafe_put_user(v, &f->val, Efault);
	user_write_access_end();
	return 1;
Efault:
	user_write_access_end();
	return -EFAULT;
}
