// A begin tested positively, with an else branch, followed by the return:
// the else branch moves to a label after the return; the cast pointer gets
// a local, which the helper called in the region is passed too.
// EXPECT: converted-no-fault+invert-begin+local-pointer
static __always_inline int __read_mem(unsigned long *dest, unsigned long ea, int nb)
{
	unsafe_get_user(*dest, (unsigned long __user *)ea, Efault);
	return 0;
Efault:
	return -EFAULT;
}

static int read_mem(unsigned long *dest, unsigned long ea, int nb, struct pt_regs *regs)
{
	int err;

	if (user_read_access_begin((void __user *)ea, nb)) {
		err = __read_mem(dest, ea, nb);
		user_read_access_end();
	} else {
		err = -EFAULT;
		regs->dar = ea;
	}

	return err;
}
