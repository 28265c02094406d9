// Must not change: the begin covers one element, a constant size that
// masking does not check, and the access is indexed from the pointer: it
// may lie more than one page past it.
// EXPECT: skip:masked-range
static int put_slot(u64 __user *slots, int i, u64 v)
{
	if (!user_write_access_begin(slots, sizeof(*slots)))
		return -EFAULT;
	unsafe_put_user(v, slots + i, Efault);
	user_write_access_end();
	return 0;
Efault:
	user_write_access_end();
	return -EFAULT;
}
