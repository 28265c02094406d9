// SPDX-License-Identifier: GPL-2.0
/* The accessors' fault label returns without ending the region. */
static int put_info(struct info __user *infop, int signo, int code)
{
	if (!user_write_access_begin(infop, sizeof(*infop)))
		return -EFAULT;
	unsafe_put_user(signo, &infop->si_signo, Efault);
	unsafe_put_user(code, &infop->si_code, Efault);
	user_write_access_end();
	return 0;
Efault:
	return -EFAULT;
}
