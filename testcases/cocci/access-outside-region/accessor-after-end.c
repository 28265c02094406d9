// SPDX-License-Identifier: GPL-2.0
/* One more write after the region was ended. */
static int put_info(struct info __user *infop, int signo, int status)
{
	if (!user_write_access_begin(infop, sizeof(*infop)))
		return -EFAULT;
	unsafe_put_user(signo, &infop->si_signo, Efault);
	user_write_access_end();
	unsafe_put_user(status, &infop->si_status, Efault_noend);
	return 0;
Efault:
	user_write_access_end();
Efault_noend:
	return -EFAULT;
}
