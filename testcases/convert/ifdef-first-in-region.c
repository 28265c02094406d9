// A preprocessor conditional opens the region and the begin failure
// returns what the function returns anyway: the directives stay in
// column 0 inside the scope, and the scope falls through into its label
// instead of repeating the return in front of it.
// EXPECT: converted-no-fault+label
static unsigned long copy_nocache(void *to, const void __user *from, unsigned long n)
{
	if (!user_access_begin(from, n))
		return n;
#ifdef CONFIG_X86_INTEL_USERCOPY
	if (n > 64)
		n = __copy_user_intel_nocache(to, from, n);
	else
		__copy_user(to, from, n);
#else
	__copy_user(to, from, n);
#endif
	user_access_end();
	return n;
}
