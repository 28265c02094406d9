// A system call whose region uses a statement macro of the file: spatch
// parses a SYSCALL_DEFINEn() body only in its recovery passes, which
// expand such macros, so the driver gives it a plain header for the
// passes and puts the original back.
// EXPECT: converted-fault-label
#define unsafe_setup_sigcontext(f, v, label)		\
do {						\
	if (__unsafe_setup_sigcontext(f, v))		\
		goto label;			\
} while (0)

static long __unsafe_setup_sigcontext(struct frame __user *f, long v)
{
	unsafe_put_user(v, &f->v, efault);
	return 0;
efault:
	return 1;
}

SYSCALL_DEFINE2(put_frame, struct frame __user *, frame, long, v)
{
	if (!user_write_access_begin(frame, sizeof(*frame)))
		return -EFAULT;

	unsafe_setup_sigcontext(&frame->ctx, v, efault_out);
	unsafe_put_user(v, &frame->w, efault_out);

	user_write_access_end();
	return 0;

efault_out:
	user_write_access_end();
	return -EFAULT;
}
