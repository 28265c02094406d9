// SPDX-License-Identifier: GPL-2.0
/* The copy is taken after the address is aligned and checked. */
static __always_inline int zero_block(unsigned long ea)
{
	unsafe_put_user(0, (unsigned long __user *)ea, Efault);
	return 0;
Efault:
	return -EFAULT;
}

int emulate_zero(unsigned long ea, struct pt_regs *regs)
{
	void __user *uea;
	unsigned long size = block_bytes();
	int err;

	ea &= ~(size - 1);
	if (!address_ok(regs, ea, size))
		return -EFAULT;
	uea = (void __user *)ea;
	scoped_user_write_access_size(uea, size, efault)
		err = zero_block((unsigned long)uea);
	return err;
efault:
	regs->dar = ea;
	return -EFAULT;
}
