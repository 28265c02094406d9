// The pointer is advanced inside the region, and the scope's pointer is
// const: a cursor, declared first thing in the scope from the scope's
// pointer, walks instead.  The size is known at run time only, but the
// loop has no way out but its end and the fault: a range past the top of
// user space still ends in the fault path, so no access_ok() in front.
// EXPECT: converted-fault-label+cursor
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
