// The accessors write through mctx, computed from frame before the region:
// it is computed again first thing in the scope, from the scope's pointer,
// so that the mask covers it.
// EXPECT: converted-two-level+rederive
static int setup_frame(struct sigframe __user *frame, struct pt_regs *regs)
{
	struct mcontext __user *mctx;

	mctx = &frame->mctx;
	prepare_save_regs();
	if (!user_access_begin(frame, sizeof(*frame)))
		goto badframe;
	unsafe_put_user(regs->nip, &mctx->nip, failed);
	unsafe_put_user(0, &frame->flags, failed);
	user_access_end();
	return 0;
failed:
	user_access_end();
badframe:
	signal_fault(regs);
	return 1;
}
