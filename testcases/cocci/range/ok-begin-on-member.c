// SPDX-License-Identifier: GPL-2.0
/* The begin pointer is itself a member of a kernel structure. */
static bool copy_si(struct io_waitid *iw, int signo)
{
	if (!user_write_access_begin(iw->infop, sizeof(*iw->infop)))
		return false;
	unsafe_put_user(signo, &iw->infop->si_signo, Efault);
	unsafe_put_user(0, &iw->infop->si_errno, Efault);
	user_write_access_end();
	return true;
Efault:
	user_write_access_end();
	return false;
}
