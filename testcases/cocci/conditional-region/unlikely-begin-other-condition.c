// SPDX-License-Identifier: GPL-2.0
/* The begin runs only for a non-empty copy, the end tests another flag. */
static int get_words(u32 *to, const u32 __user *from, int n, bool user)
{
	int i;

	if (n > 0 && unlikely(!user_read_access_begin(from, n * sizeof(*from))))
		return -EFAULT;
	for (i = 0; i < n; i++)
		unsafe_get_user(to[i], &from[i], Efault);
	if (user)
		user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
