// A region in the body of a loop, one per iteration; a continue of the
// outer loop after the region is fine.
// EXPECT: converted-fault-label
static int put_all(struct item __user *const *uitems, const u32 *vals, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct item __user *it = uitems[i];

		if (!user_write_access_begin(it, sizeof(*it)))
			return -EFAULT;
		unsafe_put_user(vals[i], &it->val, Efault);
		unsafe_put_user(i, &it->idx, Efault);
		user_write_access_end();
	}
	return 0;
Efault:
	user_write_access_end();
	return -EFAULT;
}
