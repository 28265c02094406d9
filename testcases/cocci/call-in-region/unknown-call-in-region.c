// SPDX-License-Identifier: GPL-2.0
/* A call the checker cannot classify is a WARNING. */
static int get_reg(struct pt_regs *regs, const u32 __user *ureg)
{
	u32 v;

	if (!user_read_access_begin(ureg, sizeof(*ureg)))
		return -EFAULT;
	unsafe_get_user(v, ureg, Efault);
	regs_set_return_msr(regs, v);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
