// Must not change: the region relies on staying open across a call to
// an out-of-line function.
// EXPECT: skip:out-of-line-call
static __wsum copy_from(const void __user *src, void *dst, int len)
{
	__wsum sum;

	if (!user_access_begin(src, len))
		return 0;
	sum = csum_partial_copy_generic((__force const void *)src, dst, len);
	user_access_end();
	return sum;
}
