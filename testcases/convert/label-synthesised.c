// The access is an assembly routine objtool allows in a region, and the
// begin failure returns 0 with no label doing so: a label after the last
// statement returns it.  The scope keeps the mode of the begin: the access
// is out of sight.
// EXPECT: converted-no-fault+label
static __wsum copy_and_sum(const void __user *src, void *dst, int len)
{
	__wsum sum;

	might_sleep();
	if (!user_access_begin(src, len))
		return 0;
	sum = csum_partial_copy_generic((__force const void *)src, dst, len);
	user_access_end();
	return sum;
}
