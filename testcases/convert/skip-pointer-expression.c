// Must not change: the pointer is a member, not an identifier the scope
// can shadow.
// EXPECT: skip:pointer-expression
static bool put_signo(struct waitid *iw, int signo)
{
	if (!user_write_access_begin(iw->infop, sizeof(*iw->infop)))
		return false;
	unsafe_put_user(signo, &iw->infop->si_signo, Efault);
	user_write_access_end();
	return true;
Efault:
	user_write_access_end();
	return false;
}
