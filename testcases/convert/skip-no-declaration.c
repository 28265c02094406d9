// Must not change: the pointer is a member, which a local would stand
// for, but the function has no local declarations to declare it after.
// EXPECT: skip:unknown-shape
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
