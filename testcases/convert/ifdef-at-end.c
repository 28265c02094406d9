// The region ends with a preprocessor conditional: it stays in the scope,
// and the scope's block closes after it.
// EXPECT: converted-fault-label
static int get_context(struct ucontext __user *ucp, void __user **mcp)
{
	if (!user_read_access_begin(ucp, sizeof(*ucp)))
		return -EFAULT;
	unsafe_get_user(*mcp, &ucp->uc_regs, failed);
#ifdef CONFIG_COMPAT
	{
		u32 cmcp;

		unsafe_get_user(cmcp, &ucp->uc_cregs, failed);
		*mcp = compat_ptr(cmcp);
	}
#endif
	user_read_access_end();
	return 0;

failed:
	user_read_access_end();
	return -EFAULT;
}
