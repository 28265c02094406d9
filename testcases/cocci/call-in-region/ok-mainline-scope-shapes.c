// SPDX-License-Identifier: GPL-2.0
/*
 * Scopes written the way mainline writes them: an asm_inline body with an
 * exception-table macro in a header's static __always_inline function, two
 * labels (die and efault), an auto declaration.  CLI only: needs its
 * parsing hints (cocci/kernel-macros.h: asm_inline).
 */
static __always_inline int
futex_cmpxchg(u32 *uval, u32 __user *uaddr, u32 oldval, u32 newval)
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
		*uval = oldval;
		return ret;
	}
Efault:
	return -EFAULT;
}

static __always_inline int read_checked(const u32 __user *uaddr, u32 *v)
{
	scoped_user_read_access(uaddr, efault) {
		auto limit = 16U;

		unsafe_get_user(*v, uaddr, efault);
		if (*v >= limit)
			goto die;
	}
	return 0;
die:
	return -EINVAL;
efault:
	return -EFAULT;
}
