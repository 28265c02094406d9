// The begin's pointer is a member of a struct of the file: a local of the
// member's type stands for it, declared with the other locals.
// EXPECT: converted-shared-exit+local-pointer
struct waiter {
	struct siginfo __user *infop;
	int cause;
};

static bool copy_si(struct waiter *w, int signo)
{
	bool ret;

	if (!user_write_access_begin(w->infop, sizeof(*w->infop)))
		return false;
	unsafe_put_user(signo, &w->infop->si_signo, Efault);
	unsafe_put_user(w->cause, &w->infop->si_code, Efault);
	ret = true;
done:
	user_write_access_end();
	return ret;
Efault:
	ret = false;
	goto done;
}
