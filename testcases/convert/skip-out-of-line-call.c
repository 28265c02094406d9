// Must not change: the region relies on staying open across a call to
// an out-of-line function, which a scope must not hide.
// EXPECT: skip:out-of-line-call
static int put_and_log(struct rec __user *r, u32 v)
{
	if (!user_write_access_begin(r, sizeof(*r)))
		return -EFAULT;
	unsafe_put_user(v, &r->val, Efault);
	log_record(v);
	unsafe_put_user(v, &r->copy, Efault);
	user_write_access_end();
	return 0;
Efault:
	user_write_access_end();
	return -EFAULT;
}
