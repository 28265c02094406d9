// Must not change: the pointer is incremented inside the region, and the
// scope's pointer is const.
// EXPECT: skip:pointer-modified
static int get_words(u32 __user *umask, u32 *mask, int n)
{
	if (!user_read_access_begin(umask, n * sizeof(u32)))
		return -EFAULT;
	while (n--)
		unsafe_get_user(*mask++, umask++, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
