// Must not change: the pointer is incremented inside the region, the
// scope's pointer is const, and the pointer is read after the region, so
// a cursor cannot stand in for it.
// EXPECT: skip:pointer-modified
static int get_words(u32 __user *umask, u32 *mask, int n, u32 __user **end)
{
	int left = n;

	if (!user_read_access_begin(umask, n * sizeof(u32)))
		return -EFAULT;
	while (left--)
		unsafe_get_user(*mask++, umask++, Efault);
	user_read_access_end();
	*end = umask;
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
