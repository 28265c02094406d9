// SPDX-License-Identifier: GPL-2.0
/* The pointer is copied from ea before ea is aligned and checked: the
 * scope covers the unaligned block (emulate_dcbz() in 7.3). */
static __always_inline int zero_block(unsigned long ea, unsigned long size)
{
	unsigned long i;

	for (i = 0; i < size; i += sizeof(long))
		unsafe_put_user(0, (unsigned long __user *)(ea + i), Efault);
	return 0;
Efault:
	return -EFAULT;
}

int emulate_zero(unsigned long ea, struct pt_regs *regs)
{
	void __user *uea = (void __user *)ea;
	unsigned long size = block_bytes();
	int err;

	ea &= ~(size - 1);
	if (!address_ok(regs, ea, size))
		return -EFAULT;

	if (is_kernel_addr(ea)) {
		err = zero_block(ea, size);
	} else {
		scoped_user_write_access_size(uea, size, efault) {
			err = zero_block((unsigned long)uea, size);
		}
	}
	return err;
efault:
	regs->dar = ea;
	return -EFAULT;
}
