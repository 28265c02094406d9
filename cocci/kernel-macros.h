// SPDX-License-Identifier: GPL-2.0-only
// Parsing hints for spatch, passed by `scoped-uaccess check` and `make report`
// with --macro-file: Coccinelle's standard.h knows SYSCALL_DEFINEn() but
// not the compat variants, so spatch skips their bodies.  The kernel's
// make coccicheck does not pass this file; there, as for every script in
// scripts/coccinelle, COMPAT_SYSCALL_DEFINEn() functions are not analysed.
#define COMPAT_SYSCALL_DEFINE0(func) \
    asmlinkage long compat_##func(void)
#define COMPAT_SYSCALL_DEFINE1(func, t1, a1) \
    asmlinkage long compat_##func(t1 a1)
#define COMPAT_SYSCALL_DEFINE2(func, t1, a1, t2, a2) \
    asmlinkage long compat_##func(t1 a1, t2 a2)
#define COMPAT_SYSCALL_DEFINE3(func, t1, a1, t2, a2, t3, a3) \
    asmlinkage long compat_##func(t1 a1, t2 a2, t3 a3)
#define COMPAT_SYSCALL_DEFINE4(func, t1, a1, t2, a2, t3, a3, t4, a4) \
    asmlinkage long compat_##func(t1 a1, t2 a2, t3 a3, t4 a4)
#define COMPAT_SYSCALL_DEFINE5(func, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5) \
    asmlinkage long compat_##func(t1 a1, t2 a2, t3 a3, t4 a4, t5 a5)
#define COMPAT_SYSCALL_DEFINE6(func, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6) \
    asmlinkage long compat_##func(t1 a1, t2 a2, t3 a3, t4 a4, t5 a5, t6 a6)
// asm_inline (compiler_types.h) is asm with the inline qualifier where the
// compiler has it; spatch does not know the word and gives up on the
// statement (mainline's x86 futex_atomic_cmpxchg_inatomic() is a scope
// whose body is one asm_inline statement).
#define asm_inline asm
