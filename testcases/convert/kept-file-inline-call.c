// The region calls an inline function of the file and memset() of kernel
// memory: the scope keeps both where they were.
// EXPECT: converted-fault-label
static inline void set_msr(struct regs *regs, unsigned long msr)
{
	regs->msr = msr;
}

static long restore(struct regs *regs, struct mcontext __user *sr, struct state *st)
{
	unsigned long msr;

	if (!user_read_access_begin(sr, sizeof(*sr)))
		return 1;
	unsafe_get_user(msr, &sr->msr, failed);
	set_msr(regs, msr);
	memset(st, 0, sizeof(*st));
	user_read_access_end();
	return 0;

failed:
	user_read_access_end();
	return 1;
}
