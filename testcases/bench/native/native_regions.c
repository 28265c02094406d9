// SPDX-License-Identifier: GPL-2.0
/*
 * User access region entry and exit, compiled from the kernel's own headers
 * with kbuild's flags, for native_bench.c to time in userspace.
 *
 * One function per region, as the kernel's code of this tree emits it:
 *
 *   checked_<op>_<count>  user_{read,write}_access_begin(): __access_ok()'s
 *                         range compare, STAC, barrier_nospec() (LFENCE)
 *   masked_<op>_<count>   masked_user_access_begin(): mask_user_address()'s
 *                         compare and CMOV, STAC; the 6.12 idiom of
 *                         fs/select.c and lib/strncpy_from_user.c
 *   scoped_<op>_<count>   scoped_user_{read,write}_access_size(), when the
 *                         tree has the scopes (the series)
 *   empty                 nothing: the call and return alone
 *
 * followed by <count> unsafe_get_user() or unsafe_put_user() of 8 bytes
 * and user_{read,write}_access_end() (CLAC).  native_<name>() calls
 * region_<name>() in a loop, and native_sequences[] names them.
 *
 * The object is built like an external module, but the sequences are
 * those of built-in code: runtime_const_ptr(USER_PTR_MAX), not a load of
 * the variable, which is what modules get.  native_bench.c applies the
 * alternatives (STAC, CLAC, LFENCE) and the runtime constant at start, as
 * the kernel does at boot.
 */
#undef MODULE

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/uaccess.h>
#include <asm/alternative.h>
#include <asm/cpufeatures.h>

/*
 * Each region is a function of its own, called once per region like the
 * kernel's helpers (get_sigset_argpack(), put_cmsg(), ...): the compiler
 * sees the pointer arrive in a register and cannot hoist the compare or
 * the mask out of a loop, nor specialise the function for the caller.
 */
#if __has_attribute(__noipa__)
#define region_fn	static noinline __attribute__((__noipa__)) unsigned long
#else
#define region_fn	static noinline unsigned long
#endif

#define GET(i)		do { unsafe_get_user(v, &p[i], efault); sum += v; } while (0)
#define PUT(i)		unsafe_put_user(x, &p[i], efault)
#define ACCESS_1(A)	A(0)
#define ACCESS_2(A)	A(0); A(1)
#define ACCESS_8(A)	A(0); A(1); A(2); A(3); A(4); A(5); A(6); A(7)

/* user_{read,write}_access_begin(): the range check */
#define CHECKED(op, mode, A, count)						\
region_fn region_checked_##op##_##count(unsigned long __user *p, unsigned long x) \
{										\
	unsigned long sum = 0, v __maybe_unused;				\
										\
	if (!user_##mode##_access_begin(p, count * sizeof(*p)))		\
		return -EFAULT;							\
	ACCESS_##count(A);							\
	user_##mode##_access_end();						\
	return sum;								\
efault:										\
	user_##mode##_access_end();						\
	return -EFAULT;								\
}

/* masked_user_access_begin(), as 6.12's fs/select.c uses it */
#define MASKED(op, mode, A, count)						\
region_fn region_masked_##op##_##count(unsigned long __user *p, unsigned long x) \
{										\
	unsigned long sum = 0, v __maybe_unused;				\
										\
	BUILD_BUG_ON(!can_do_masked_user_access());				\
	if (can_do_masked_user_access())					\
		p = masked_user_access_begin(p);				\
	else if (!user_##mode##_access_begin(p, count * sizeof(*p)))		\
		return -EFAULT;							\
	ACCESS_##count(A);							\
	user_##mode##_access_end();						\
	return sum;								\
efault:										\
	user_##mode##_access_end();						\
	return -EFAULT;								\
}

/* The series' scopes, where the tree has them */
#ifdef scoped_user_read_access_size
#define SCOPED(op, mode, A, count)						\
region_fn region_scoped_##op##_##count(unsigned long __user *p, unsigned long x) \
{										\
	unsigned long sum = 0, v __maybe_unused;				\
										\
	scoped_user_##mode##_access_size(p, count * sizeof(*p), efault) {	\
		ACCESS_##count(A);						\
	}									\
	return sum;								\
efault:										\
	return -EFAULT;								\
}
#define SEQUENCE_SCOPED(op, count)	SEQUENCE_OF(scoped_##op##_##count)
#else
#define SCOPED(op, mode, A, count)
#define SEQUENCE_SCOPED(op, count)
#endif

/* The call and return alone: the floor of every sequence */
region_fn region_empty(unsigned long __user *p, unsigned long x)
{
	return 0;
}

/*
 * native_<name>(uptr, n): @n regions in a row, each given the loop
 * counter to store; the result is the OR of theirs (the sum read, 0 for
 * writes, -EFAULT).
 */
#define LOOP(name)								\
static unsigned long native_##name(unsigned long __user *uptr, unsigned long n) \
{										\
	unsigned long ret = 0;							\
										\
	for (; n; n--)								\
		ret |= region_##name(uptr, n);					\
	return ret;								\
}
#define SEQUENCE_OF(name)	{ #name, native_##name },

LOOP(empty)

#define SEQUENCES(op, mode, A, count)	\
	CHECKED(op, mode, A, count)	\
	LOOP(checked_##op##_##count)	\
	MASKED(op, mode, A, count)	\
	LOOP(masked_##op##_##count)	\
	SCOPED(op, mode, A, count)	\
	SCOPED_LOOP(op##_##count)

#ifdef scoped_user_read_access_size
#define SCOPED_LOOP(name)	LOOP(scoped_##name)
#else
#define SCOPED_LOOP(name)
#endif

SEQUENCES(read, read, GET, 1)
SEQUENCES(read, read, GET, 2)
SEQUENCES(read, read, GET, 8)
SEQUENCES(write, write, PUT, 1)
SEQUENCES(write, write, PUT, 2)
SEQUENCES(write, write, PUT, 8)

#define SEQUENCE(op, count)				\
	SEQUENCE_OF(checked_##op##_##count)		\
	SEQUENCE_OF(masked_##op##_##count)		\
	SEQUENCE_SCOPED(op, count)

typedef unsigned long (*native_fn)(unsigned long __user *uptr, unsigned long n);

/* What native_bench.c needs to know of the kernel: the sequences and the
 * layout of their alternatives. */
const struct native_sequence {
	const char *name;
	native_fn fn;
} native_sequences[] = {
	SEQUENCE_OF(empty)
	SEQUENCE(read, 1)
	SEQUENCE(read, 2)
	SEQUENCE(read, 8)
	SEQUENCE(write, 1)
	SEQUENCE(write, 2)
	SEQUENCE(write, 8)
};
const unsigned int native_nr_sequences = ARRAY_SIZE(native_sequences);
const unsigned int native_alt_instr_size = sizeof(struct alt_instr);
const unsigned int native_alt_flags_shift = ALT_FLAGS_SHIFT;
const unsigned short native_feature_smap = X86_FEATURE_SMAP;
const unsigned short native_feature_lfence_rdtsc = X86_FEATURE_LFENCE_RDTSC;
