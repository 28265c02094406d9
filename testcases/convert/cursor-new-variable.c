// The pointer is advanced inside the region, and the scope's pointer is
// const: a cursor declared with the other locals is set from the scope's
// pointer first thing in the scope, and walks instead.  The size is known
// at run time only, so access_ok() of the range stays in front.
// EXPECT: converted-fault-label+cursor+range-check
static int get_words(u32 __user *umask, u32 *mask, int n)
{
	int left = n;

	if (!user_read_access_begin(umask, n * sizeof(u32)))
		return -EFAULT;
	while (left--)
		unsafe_get_user(*mask++, umask++, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
