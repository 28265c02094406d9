// A void function whose fault path ends in a goto backwards, to code
// after the region: both are fine for a scope.
// EXPECT: converted-two-level
void save_state(struct regs *regs, struct state __user *user)
{
	if (!user_access_begin(user, sizeof(*user)))
		goto Efault;
	unsafe_put_user(regs->bx, &user->bx, Efault_end);
	unsafe_put_user(regs->cx, &user->cx, Efault_end);
	user_access_end();
exit:
	restore(regs);
	return;
Efault_end:
	user_access_end();
Efault:
	force_sig(SIGSEGV);
	goto exit;
}
