// SPDX-License-Identifier: GPL-2.0
/* An early copy, then the address changed and checked, then copied again
 * before the region: the region opens on the checked value. */
static int put_word(unsigned long addr, u32 v, struct pt_regs *regs)
{
	u32 __user *up = (u32 __user *)addr;

	trace_addr(up);
	addr = untagged_addr(addr);
	if (addr >= TASK_SIZE)
		return -EFAULT;
	up = (u32 __user *)addr;
	scoped_user_write_access(up, efault)
		unsafe_put_user(v, up, efault);
	return 0;
efault:
	return -EFAULT;
}
