// SPDX-License-Identifier: GPL-2.0
/*
 * Mainline's x86 futex_atomic_cmpxchg_inatomic() shape (v6.19): a scope
 * whose body is one asm_inline statement with its own exception table,
 * here followed by a call that runs with user access open.  CLI only:
 * needs its parsing hints (cocci/kernel-macros.h: asm_inline).
 */
static __always_inline int
cmpxchg_and_log(u32 *uval, u32 __user *uaddr, u32 oldval, u32 newval)
{
	scoped_user_rw_access(uaddr, Efault) {
		int ret = 0;

		asm_inline volatile("\n"
			"1:\t" LOCK_PREFIX "cmpxchgl %3, %2\n"
			"2:\n"
			_ASM_EXTABLE_UA(1b, 2b)
			: "+r" (ret), "=a" (oldval), "+m" (*uaddr)
			: "r" (newval), "1" (oldval)
			: "memory");
		log_value(oldval);
		*uval = oldval;
		return ret;
	}
Efault:
	return -EFAULT;
}
