// SPDX-License-Identifier: GPL-2.0
/* Begun and ended under the same condition: right only by path correlation. */
static int read_regs(u32 *kbuf, const u32 __user *ubuf, u32 *regs, int n)
{
	int i;

	if (!kbuf && !user_read_access_begin(ubuf, n * sizeof(*ubuf)))
		return -EFAULT;
	for (i = 0; i < n; i++) {
		if (kbuf)
			regs[i] = kbuf[i];
		else
			unsafe_get_user(regs[i], &ubuf[i], Efault);
	}
	if (!kbuf)
		user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
