// SPDX-License-Identifier: GPL-2.0
/*
 * The begin pointer moves within the range the begin checked (p = p + 1),
 * and gets a new value only after the region ends, before the next begin.
 */
static int put_all(u32 __user *p, u32 __user *next, const u32 *v, int n)
{
	int i;

	while (p) {
		if (!user_write_access_begin(p, n * sizeof(*p)))
			return -EFAULT;
		for (i = 0; i < n; i++) {
			unsafe_put_user(v[i], p, efault);
			p = p + 1;
		}
		user_write_access_end();
		p = next;
		next = NULL;
	}
	return 0;
efault:
	user_write_access_end();
	return -EFAULT;
}
