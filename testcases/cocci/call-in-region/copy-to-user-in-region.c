// SPDX-License-Identifier: GPL-2.0
/* copy_to_user() may fault and sleep: never inside a region. */
static int put_info(struct info __user *infop, const struct rusage *ru,
		    struct rusage __user *uru, int signo)
{
	if (!user_write_access_begin(infop, sizeof(*infop)))
		return -EFAULT;
	unsafe_put_user(signo, &infop->si_signo, Efault);
	if (copy_to_user(uru, ru, sizeof(*ru)))
		goto Efault;
	user_write_access_end();
	return 0;
Efault:
	user_write_access_end();
	return -EFAULT;
}
