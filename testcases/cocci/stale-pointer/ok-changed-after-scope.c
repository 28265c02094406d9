// SPDX-License-Identifier: GPL-2.0
/* The variable changes and is tested only after the region. */
static int copy_words(unsigned long addr, u32 *v, int n)
{
	const u32 __user *up = (const u32 __user *)addr;
	int i;

	scoped_user_read_access_size(up, n * sizeof(u32), efault) {
		for (i = 0; i < n; i++)
			unsafe_get_user(v[i], up + i, efault);
	}
	addr += n * sizeof(u32);
	if (addr & 3)
		return 1;
	return 0;
efault:
	return -EFAULT;
}
