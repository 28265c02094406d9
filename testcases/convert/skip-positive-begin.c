// Must not change: the begin is tested positively and the region is the
// then branch.
// EXPECT: skip:positive-begin
static long get_len(const char __user *str, long max)
{
	long v = 0;

	if (user_read_access_begin(str, max)) {
		unsafe_get_user(v, (const long __user *)str, Efault);
		user_read_access_end();
		return v;
	}
	return -EFAULT;
Efault:
	user_read_access_end();
	return -EFAULT;
}
