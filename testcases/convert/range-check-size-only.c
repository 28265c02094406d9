// The region checks a size it never accesses (powerpc's swapcontext
// writes a struct ucontext whatever ctx_size says): the range check was
// all that refused a bad ctx_size, and masking checks no size, so
// access_ok() of the range stays in front of the scope.
// EXPECT: converted-fault-label+range-check
static long save_context(struct ucontext __user *old_ctx, long ctx_size)
{
	if (!user_write_access_begin(old_ctx, ctx_size))
		return -EFAULT;
	unsafe_put_user(0, &old_ctx->uc_flags, failed);
	unsafe_copy_to_user(&old_ctx->uc_sigmask, &current->blocked, sizeof(sigset_t), failed);
	user_write_access_end();
	return 0;
failed:
	user_write_access_end();
	return -EFAULT;
}
