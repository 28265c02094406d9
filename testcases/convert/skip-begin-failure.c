// Must not change: a rejected begin does two things, which neither a
// label of the function nor a synthesised one stands for.
// EXPECT: skip:begin-failure
static int put_flag(struct flags __user *f, u32 v, int *err)
{
	if (!user_write_access_begin(f, sizeof(*f))) {
		*err = -EFAULT;
		return 0;
	}
	unsafe_put_user(v, &f->val, Efault);
	user_write_access_end();
	return 1;
Efault:
	user_write_access_end();
	return -EFAULT;
}
