// Must not change: the pointer is a call's result, not an identifier,
// member, cast or address a local could stand for.
// EXPECT: skip:pointer-expression
static int put_result(struct args *args, u64 v)
{
	int ret = 0;

	if (!user_write_access_begin(u64_to_user_ptr(args->ptr), sizeof(u64)))
		return -EFAULT;
	unsafe_put_user(v, (u64 __user *)u64_to_user_ptr(args->ptr), Efault);
	user_write_access_end();
	return ret;
Efault:
	user_write_access_end();
	return -EFAULT;
}
