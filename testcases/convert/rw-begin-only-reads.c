// A region begun rw (user_access_begin) that only reads becomes a read
// scope; sizeof(*p) gives the plain (not _size) scope.
// EXPECT: converted-fault-label
static int get_pair(struct pair __user *from, struct pair *to)
{
	if (!user_access_begin(from, sizeof(*from)))
		return -EFAULT;
	unsafe_get_user(to->p, &from->p, Efault);
	unsafe_get_user(to->size, &from->size, Efault);
	user_access_end();
	return 0;
Efault:
	user_access_end();
	return -EFAULT;
}
