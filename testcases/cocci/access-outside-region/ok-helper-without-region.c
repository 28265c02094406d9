// SPDX-License-Identifier: GPL-2.0
/*
 * A helper with accessors only: its callers begin the region.  Excluded
 * on purpose (objtool checks the callers on x86).
 */
static __always_inline int __setup_sigcontext(struct sigcontext __user *sc,
					      struct pt_regs *regs)
{
	unsafe_put_user(regs->ip, &sc->ip, Efault);
	unsafe_put_user(regs->sp, &sc->sp, Efault);
	return 0;
Efault:
	return -EFAULT;
}
