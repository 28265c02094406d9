// An early return inside the region ends it first; in the scope the
// end goes, the return stays.  Reads and writes: rw scope.
// EXPECT: converted-fault-label
static int bump(struct counter __user *c)
{
	u32 v;

	if (!user_access_begin(c, sizeof(*c)))
		return -EFAULT;
	unsafe_get_user(v, &c->val, Efault);
	if (v == U32_MAX) {
		user_access_end();
		return -EOVERFLOW;
	}
	unsafe_put_user(v + 1, &c->val, Efault);
	user_access_end();
	return 0;
Efault:
	user_access_end();
	return -EFAULT;
}
