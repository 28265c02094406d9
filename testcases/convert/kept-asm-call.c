// The region calls an assembly routine that objtool allows with user
// access enabled: the call stays in the scope, and the synthesised label
// returns what the begin failure returned (0).  The accesses are out of
// sight: the mode is what the function's name says it does to user
// memory (a *_from_user() function reads it), else the begin's.
// EXPECT: converted-no-fault+label
// EXPECT: converted-no-fault+label
static __wsum csum_and_copy_from_user(const void __user *src, void *dst, int len)
{
	__wsum sum;

	if (!user_access_begin(src, len))
		return 0;
	sum = csum_partial_copy_generic((__force const void *)src, dst, len);
	user_access_end();
	return sum;
}

static __wsum copy_both(const void __user *src, void *dst, int len)
{
	__wsum sum;

	if (!user_access_begin(src, len))
		return 0;
	sum = csum_partial_copy_generic((__force const void *)src, dst, len);
	user_access_end();
	return sum;
}
