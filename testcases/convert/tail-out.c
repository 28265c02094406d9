// An early exit ends access, then calls something that must not run with
// user access open, then returns: the block moves behind a label after
// the function's last statement and the if jumps there; the scope ends
// access on the way, the call stays outside of it.
// EXPECT: converted-no-fault+tail-out+label
static long restore_ctx(struct ctx __user *uctx, long size)
{
	if (!user_read_access_begin(uctx, sizeof(*uctx)))
		return -EFAULT;
	if (__unsafe_restore_ctx(current, &uctx->regs)) {
		user_read_access_end();
		force_exit_sig(SIGSEGV);
		return -EFAULT;
	}
	user_read_access_end();

	set_thread_flag(TIF_RESTOREALL);
	return 0;
}

static long __unsafe_restore_ctx(struct task_struct *tsk, struct regs __user *r)
{
	unsigned long v;

	unsafe_get_user(v, &r->nip, efault);
	tsk->nip = v;
	return 0;
efault:
	return 1;
}
