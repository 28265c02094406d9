// The same range was checked earlier on every path to the begin (a
// condition that leaves when access_ok() fails, neither the pointer nor
// the size set since): the begin's check always passes, and the region
// can leave early without access_ok() again in front of the scope.
// EXPECT: converted-fault-label+tail-out
static long restore_context(struct ucontext __user *new_ctx, long ctx_size)
{
	unsigned long msr;

	if (!access_ok(new_ctx, ctx_size) || fault_in_readable((char __user *)new_ctx, ctx_size))
		return -EFAULT;
	prepare_restore();
	if (!user_read_access_begin(new_ctx, ctx_size))
		return -EFAULT;
	unsafe_get_user(msr, &new_ctx->uc_flags, efault_out);
	if (msr & 1) {
		user_read_access_end();
		force_exit_sig(SIGSEGV);
		return -EFAULT;
	}
	user_read_access_end();
	return 0;
efault_out:
	user_read_access_end();
	return -EFAULT;
}
