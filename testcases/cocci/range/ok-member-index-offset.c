// SPDX-License-Identifier: GPL-2.0
/* Members, elements, offsets and casts of the begin pointer. */
static int fill(struct frame __user *frame, const struct regs *regs, int n)
{
	int i;

	if (!user_write_access_begin(frame, sizeof(*frame)))
		return -EFAULT;
	unsafe_put_user(regs->ip, &frame->uc.mc.ip, Efault);
	unsafe_put_user(regs->sp, &(frame->uc.mc.sp), Efault);
	for (i = 0; i < n; i++)
		unsafe_put_user(regs->gpr[i], &frame->uc.mc.gpr[i], Efault);
	unsafe_put_user(0, (u32 __user *)&frame->uc.mc.pad + 1, Efault);
	unsafe_put_user(0, (char __user *)frame + sizeof(*frame) - 1, Efault);
	unsafe_copy_to_user(frame->uc.mc.name, regs->name, 8, Efault);
	user_write_access_end();
	return 0;
Efault:
	user_write_access_end();
	return -EFAULT;
}
