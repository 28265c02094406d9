// SPDX-License-Identifier: GPL-2.0
/* The whole region, begin to end, inside the branch of the condition. */
static int read_regs(u32 *kbuf, const u32 __user *ubuf, u32 *regs, int n)
{
	int i;

	if (kbuf) {
		memcpy(regs, kbuf, n * sizeof(*regs));
		return 0;
	}
	if (!user_read_access_begin(ubuf, n * sizeof(*ubuf)))
		return -EFAULT;
	for (i = 0; i < n; i++)
		unsafe_get_user(regs[i], &ubuf[i], Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
