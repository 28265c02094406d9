// SPDX-License-Identifier: GPL-2.0
/* Every end, the fault label's too, under the begin's condition. */
static int put_regs(const u32 *regs, u32 *kbuf, u32 __user *ubuf, int n)
{
	int i;

	if (!kbuf && !user_write_access_begin(ubuf, n * sizeof(*ubuf)))
		goto out;
	for (i = 0; i < n; i++) {
		if (kbuf)
			kbuf[i] = regs[i];
		else
			unsafe_put_user(regs[i], &ubuf[i], Efault);
	}
	if (!kbuf)
		user_write_access_end();
	return 0;
Efault:
	if (!kbuf)
		user_write_access_end();
out:
	return -EFAULT;
}
