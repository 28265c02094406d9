// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for native_regions.o (testcases/bench/native/) in the unit
 * tests, which have no kernel tree: the same symbols, the sequences in
 * plain C, and STAC, CLAC, LFENCE and the USER_PTR_MAX runtime constant
 * encoded as the kernel's ALTERNATIVE() and runtime_const_ptr() encode
 * them, so that native_bench.c patches and checks them as it does the
 * kernel's.  Unpatched, the checked begin would accept every address below
 * 0x0123456789abcdef and the check above USER_PTR_MAX would fault.
 */
#include <errno.h>
#include <stdint.h>

#define FEATURE_SMAP		"100"
#define FEATURE_LFENCE_RDTSC	"101"

/* The kernel's ALTERNATIVE("", newinstr, feature): 3 bytes of 0x90 padding. */
#define ALT(feature, newinstr)						\
	"771:\n\t.skip 3, 0x90\n772:\n"					\
	".pushsection .altinstructions,\"a\"\n"				\
	" .long 771b - .\n .long 774f - .\n .4byte " feature "\n"	\
	" .byte 772b-771b\n .byte 775f-774f\n"				\
	".popsection\n"							\
	".pushsection .altinstr_replacement,\"ax\"\n"			\
	"774:\n\t" newinstr "\n775:\n"					\
	".popsection\n"

static inline unsigned long user_ptr_max(void)
{
	unsigned long max;

	asm volatile("movabs $0x0123456789abcdef, %0\n1:\n"
		     ".pushsection runtime_ptr_USER_PTR_MAX,\"a\"\n\t"
		     ".long 1b - 8 - .\n.popsection" : "=r" (max));
	return max;
}

static inline int begin(unsigned long *p, int checked)
{
	if (checked && (unsigned long)p > user_ptr_max())
		return 0;
	asm volatile(ALT(FEATURE_SMAP, "stac"));
	if (checked)
		asm volatile(ALT(FEATURE_LFENCE_RDTSC, "lfence"));
	return 1;
}

static inline void end(void)
{
	asm volatile(ALT(FEATURE_SMAP, "clac"));
}

#define SEQ(name, checked, count, write)					\
static unsigned long native_##name(unsigned long *p, unsigned long n)		\
{										\
	unsigned long ret = 0;							\
										\
	for (; n; n--) {							\
		unsigned long sum = 0;						\
		int i;								\
										\
		if (!begin(p, checked))						\
			return -EFAULT;						\
		for (i = 0; i < count; i++) {					\
			if (write)						\
				((volatile unsigned long *)p)[i] = n;		\
			else							\
				sum += ((volatile unsigned long *)p)[i];	\
		}								\
		end();								\
		ret |= sum;							\
	}									\
	return ret;								\
}

static unsigned long native_empty(unsigned long *p, unsigned long n)
{
	(void)p;
	return n & 0;
}

#define SEQS(begin, checked)					\
	SEQ(begin##_read_1, checked, 1, 0)			\
	SEQ(begin##_read_2, checked, 2, 0)			\
	SEQ(begin##_read_8, checked, 8, 0)			\
	SEQ(begin##_write_1, checked, 1, 1)			\
	SEQ(begin##_write_2, checked, 2, 1)			\
	SEQ(begin##_write_8, checked, 8, 1)

SEQS(checked, 1)
SEQS(masked, 0)

#define ENTRY(name)	{ #name, native_##name },
#define ENTRIES(begin)							\
	ENTRY(begin##_read_1) ENTRY(begin##_read_2) ENTRY(begin##_read_8)	\
	ENTRY(begin##_write_1) ENTRY(begin##_write_2) ENTRY(begin##_write_8)

const struct native_sequence {
	const char *name;
	unsigned long (*fn)(unsigned long *p, unsigned long n);
} native_sequences[] = {
	ENTRY(empty)
	ENTRIES(checked)
	ENTRIES(masked)
};
const unsigned int native_nr_sequences = sizeof(native_sequences) / sizeof(native_sequences[0]);
const unsigned int native_alt_instr_size = 14;
const unsigned int native_alt_flags_shift = 16;
const unsigned short native_feature_smap = 100;
const unsigned short native_feature_lfence_rdtsc = 101;
