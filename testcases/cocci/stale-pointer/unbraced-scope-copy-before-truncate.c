// SPDX-License-Identifier: GPL-2.0
/* As mainline wrote it: the copy in the declaration, the address truncated
 * and aligned after it, the scope without braces in the else branch. */
static __always_inline int zero_block(unsigned long ea)
{
	unsafe_put_user(0, (unsigned long __user *)ea, Efault);
	return 0;
Efault:
	return -EFAULT;
}

int emulate_zero(unsigned long ea, struct pt_regs *regs)
{
	void __user *uea = (void __user *)ea;
	int err;
	unsigned long size = block_bytes();

	ea = truncate_if_32bit(regs->msr, ea);
	ea &= ~(size - 1);
	if (!address_ok(regs, ea, size))
		return -EFAULT;

	if (is_kernel_addr(ea))
		err = zero_block(ea);
	else
		scoped_user_write_access_size(uea, size, efault)
			err = zero_block((unsigned long)uea);

	return err;

efault:
	regs->dar = ea;
	return -EFAULT;
}
