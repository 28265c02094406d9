// The begin tested positively is the last branch of an else-if chain,
// and the work after the chain runs on both paths: invert-begin repeats
// it after the label.  The cast pointer is set from a variable that
// changes after the declarations, so the local is set right before the
// begin, not where it is declared.
// EXPECT: converted-no-fault+invert-begin+local-pointer
int zero_block(unsigned long ea, struct pt_regs *regs)
{
	int err;
	unsigned long size = block_bytes();

	ea &= ~(size - 1);
	if (!address_ok(regs, ea, size))
		return -EFAULT;

	if (is_kernel_addr(ea)) {
		err = __zero_block(ea);
	} else if (user_write_access_begin((void __user *)ea, size)) {
		err = __zero_block(ea);
		user_write_access_end();
	} else {
		err = -EFAULT;
	}

	if (err)
		regs->dar = ea;
	return err;
}

static __always_inline int __zero_block(unsigned long ea)
{
	return 0;
}
