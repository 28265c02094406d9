// The region calls an assembly routine that objtool allows with user
// access enabled: the call stays in the scope, the mode is the begin's
// (the accesses are out of sight), and the synthesised label returns what
// the begin failure returned (0).
// EXPECT: converted-no-fault+label
static __wsum copy_from(const void __user *src, void *dst, int len)
{
	__wsum sum;

	if (!user_access_begin(src, len))
		return 0;
	sum = csum_partial_copy_generic((__force const void *)src, dst, len);
	user_access_end();
	return sum;
}
