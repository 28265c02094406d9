// Shared exit: success and failure meet at done:, which ends the region.
// The end goes, done: stays; the begin failure (return false) is what
// Efault does (ret = false; return ret).
// EXPECT: converted-shared-exit
static bool copy_si(struct siginfo __user *infop, int signo)
{
	bool ret;

	if (!user_write_access_begin(infop, sizeof(*infop)))
		return false;

	unsafe_put_user(signo, &infop->si_signo, Efault);
	ret = true;
done:
	user_write_access_end();
	return ret;
Efault:
	ret = false;
	goto done;
}
