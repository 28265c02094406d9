// SPDX-License-Identifier: GPL-2.0
/* An index clamped with array_index_nospec() inside a scope: a macro that
 * compiles to a few instructions, not a call. */
static int read_slot(const struct slots __user *us, unsigned long i, u32 *v)
{
	u32 n;

	scoped_user_read_access(us, efault) {
		unsafe_get_user(n, &us->count, efault);
		if (i >= n || i >= NR_SLOTS)
			return -EINVAL;
		i = array_index_nospec(i, NR_SLOTS);
		unsafe_get_user(*v, &us->slot[i], efault);
	}
	return 0;
efault:
	return -EFAULT;
}
