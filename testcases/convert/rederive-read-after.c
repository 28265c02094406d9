// A pointer computed from the begin's pointer before the region, and read
// after it: the scope computes it again first thing, so the store before
// the scope is never read any more (no read between, and none at the
// labels a refused begin jumps to) and goes, also when it spans lines;
// a comment that explains it moves with it.
// EXPECT: converted-two-level+rederive
// EXPECT: converted-fault-label+rederive+range-check
static int setup_frame(struct sigframe __user *frame, struct pt_regs *regs)
{
	struct mcontext __user *mctx;

	mctx = &frame->mctx;
	prepare_save_user_regs(1);
	if (!user_write_access_begin(frame, sizeof(*frame)))
		goto badframe;
	unsafe_put_user(regs->msr, &mctx->mc_msr, badframe_end);
	user_write_access_end();
	regs->gpr[4] = (unsigned long)mctx;
	return 0;
badframe_end:
	user_write_access_end();
badframe:
	signal_fault(regs, frame);
	return 1;
}

static long save_context(struct ucontext __user *old_ctx, long ctx_size, struct pt_regs *regs)
{
	struct mcontext __user *mctx;

	/*
	 * The context is 16-byte aligned: round down.
	 */
	mctx = (struct mcontext __user *)
		((unsigned long) &old_ctx->uc_mcontext & ~0xfUL);
	prepare_save_user_regs(1);
	if (!user_write_access_begin(old_ctx, ctx_size))
		return -EFAULT;
	unsafe_put_user(regs->msr, &mctx->mc_msr, failed);
	unsafe_put_user((unsigned long)mctx, &old_ctx->uc_regs, failed);
	user_write_access_end();
	regs->gpr[5] = (unsigned long)mctx;
	return 0;
failed:
	user_write_access_end();
	return -EFAULT;
}
