// Must not change: the break inside the region leaves the enclosing loop;
// in a scope it would only leave the scope.
// EXPECT: skip:loop-control
static int find_zero(struct item __user *const *items, int n)
{
	u32 v;
	int i;

	for (i = 0; i < n; i++) {
		struct item __user *it = items[i];

		if (!user_read_access_begin(it, sizeof(*it)))
			return -EFAULT;
		unsafe_get_user(v, &it->val, Efault);
		if (!v) {
			user_read_access_end();
			break;
		}
		user_read_access_end();
	}
	return i;
Efault:
	user_read_access_end();
	return -EFAULT;
}
