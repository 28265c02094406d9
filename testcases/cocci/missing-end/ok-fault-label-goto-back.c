// SPDX-License-Identifier: GPL-2.0
/* The io_uring waitid shape: the fault label jumps back to the end. */
static bool copy_si(struct siginfo __user *infop, int signo, int code)
{
	bool ret;

	if (!user_write_access_begin(infop, sizeof(*infop)))
		return false;
	unsafe_put_user(signo, &infop->si_signo, Efault);
	unsafe_put_user(code, &infop->si_code, Efault);
	ret = true;
done:
	user_write_access_end();
	return ret;
Efault:
	ret = false;
	goto done;
}
