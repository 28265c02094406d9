// Plain region, fault label that ends and returns; the begin failure does
// what the fault label does, so the label becomes the scope's label.
// EXPECT: converted-fault-label
static int put_info(struct info __user *infop, int signo, int err)
{
	if (!user_write_access_begin(infop, sizeof(*infop)))
		return -EFAULT;

	unsafe_put_user(signo, &infop->si_signo, Efault);
	/* the errno field stays 0 */
	unsafe_put_user(0, &infop->si_errno, Efault);
	user_write_access_end();
	return err;
Efault:
	user_write_access_end();
	return -EFAULT;
}
