// SPDX-License-Identifier: GPL-2.0
/* A masked region and a do-while whose counter is declared 0 inside it. */
static int copy_words(u32 *to, const u32 __user *from, unsigned int n)
{
	from = masked_user_access_begin(from);
	{
		unsigned int i = 0;

		do {
			unsafe_get_user(to[i], from + i, Efault);
			i++;
		} while (i < n);
	}
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
