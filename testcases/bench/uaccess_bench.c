// SPDX-License-Identifier: GPL-2.0
/*
 * uaccess_bench - cycles per 8-byte user access, one accessor against another
 *
 * A KUnit suite, built out of tree against the series kernel and loaded
 * with insmod in QEMU (converter/scoped_uaccess/bench.py does both).  The
 * user memory is one page from kunit_vm_mmap(), so the test runs with a
 * user address space like a syscall does.
 *
 * Each variant times @iterations accesses of one u64 between two
 * rdtsc_ordered() (get_cycles() elsewhere) and prints the total; the
 * variants take turns within each of @repetitions rounds, so drift and
 * interrupts spread over all of them.  The pointer is hidden from the
 * compiler in every iteration, so that a masking or a range check is paid
 * per access and not hoisted out of the loop.  The statistics are left
 * to the reader of the console, one line per variant and direction:
 *
 *	# uaccess_bench_run: bench access=scoped op=read iterations=N cycles=c1,c2,...
 *
 * The variants:
 *   none        the loop alone, no access (the floor)
 *   scoped      scoped_user_{read,write}_access() + unsafe_{get,put}_user()
 *   open_coded  user_{read,write}_access_begin() + unsafe_*_user() + _end()
 *   get_put     get_user() / put_user()
 *   copy        copy_from_user() / copy_to_user() of 8 bytes
 *   inline      get_user_inline() / put_user_inline()
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/timex.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86
#include <asm/msr.h>
#endif

static unsigned int iterations = 10000;
module_param(iterations, uint, 0444);
MODULE_PARM_DESC(iterations, "accesses timed together (default 10000)");
static unsigned int repetitions = 11;
module_param(repetitions, uint, 0444);
MODULE_PARM_DESC(repetitions, "rounds over all variants (default 11)");

static __always_inline u64 bench_clock(void)
{
#ifdef CONFIG_X86
	return rdtsc_ordered();
#else
	return get_cycles();
#endif
}

/*
 * One variant in one direction: times @n accesses of *@p with @body, which
 * jumps to efault (region not begun) or efault_end (fault in the region).
 * *@val is the value written, or the value read.
 */
#define DEFINE_BENCH(op, variant, body)					\
static noinline int op##_##variant(u64 __user *p, unsigned int n,	\
				   u64 *val, u64 *cycles)		\
{									\
	u64 v = *val, start;						\
	unsigned int i;							\
									\
	start = bench_clock();						\
	for (i = 0; i < n; i++) {					\
		OPTIMIZER_HIDE_VAR(p);					\
		body;							\
	}								\
	*cycles = bench_clock() - start;				\
	*val = v;							\
	return 0;							\
efault_end: __maybe_unused						\
	user_access_end();						\
efault: __maybe_unused							\
	return -EFAULT;							\
}

DEFINE_BENCH(read, none, v += (__force unsigned long)p)
DEFINE_BENCH(write, none, OPTIMIZER_HIDE_VAR(v))

DEFINE_BENCH(read, scoped,
	     scoped_user_read_access(p, efault)
		unsafe_get_user(v, p, efault))
DEFINE_BENCH(write, scoped,
	     scoped_user_write_access(p, efault)
		unsafe_put_user(v, p, efault))

DEFINE_BENCH(read, open_coded, ({
	if (!user_read_access_begin(p, sizeof(*p)))
		goto efault;
	unsafe_get_user(v, p, efault_end);
	user_read_access_end();
}))
DEFINE_BENCH(write, open_coded, ({
	if (!user_write_access_begin(p, sizeof(*p)))
		goto efault;
	unsafe_put_user(v, p, efault_end);
	user_write_access_end();
}))

DEFINE_BENCH(read, get_put, if (get_user(v, p)) goto efault)
DEFINE_BENCH(write, get_put, if (put_user(v, p)) goto efault)

DEFINE_BENCH(read, copy, if (copy_from_user(&v, p, sizeof(v))) goto efault)
DEFINE_BENCH(write, copy, if (copy_to_user(p, &v, sizeof(v))) goto efault)

DEFINE_BENCH(read, inline, if (get_user_inline(v, p)) goto efault)
DEFINE_BENCH(write, inline, if (put_user_inline(v, p)) goto efault)

struct bench_variant {
	const char *name;
	const char *op;
	bool write;
	int (*fn)(u64 __user *p, unsigned int n, u64 *val, u64 *cycles);
};

static const struct bench_variant variants[] = {
	{ "none", "read", false, read_none },
	{ "none", "write", true, write_none },
	{ "scoped", "read", false, read_scoped },
	{ "scoped", "write", true, write_scoped },
	{ "open_coded", "read", false, read_open_coded },
	{ "open_coded", "write", true, write_open_coded },
	{ "get_put", "read", false, read_get_put },
	{ "get_put", "write", true, write_get_put },
	{ "copy", "read", false, read_copy },
	{ "copy", "write", true, write_copy },
	{ "inline", "read", false, read_inline },
	{ "inline", "write", true, write_inline },
};

#define MAGIC	0x0123456789abcdefULL

static void uaccess_bench_run(struct kunit *test)
{
	const size_t nv = ARRAY_SIZE(variants);
	unsigned long addr;
	u64 __user *p;
	u64 *cycles;
	char *line;
	size_t v, r;

	KUNIT_ASSERT_GT(test, iterations, 0);
	KUNIT_ASSERT_GT(test, repetitions, 0);
	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0, "could not create user memory");
	KUNIT_ASSERT_LT(test, addr, (unsigned long)TASK_SIZE);
	p = (u64 __user *)addr;
	cycles = kunit_kcalloc(test, nv * repetitions, sizeof(*cycles), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cycles);
	line = kunit_kzalloc(test, 64 + 21 * repetitions, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, line);

	/* Fault the page in and check that every variant reads and writes. */
	KUNIT_ASSERT_EQ(test, put_user(0ULL, p), 0);
	for (v = 0; v < nv; v++) {
		const struct bench_variant *b = &variants[v];
		u64 val = b->write ? MAGIC + v : 0, back = 0, c;

		if (!b->write)
			KUNIT_ASSERT_EQ(test, put_user(MAGIC + v, p), 0);
		KUNIT_ASSERT_EQ_MSG(test, b->fn(p, 1, &val, &c), 0,
				    "%s %s faulted", b->name, b->op);
		KUNIT_ASSERT_EQ(test, get_user(back, p), 0);
		if (strcmp(b->name, "none"))
			KUNIT_EXPECT_EQ_MSG(test, b->write ? back : val, MAGIC + v,
					    "%s %s", b->name, b->op);
	}

	kunit_info(test, "bench can_do_masked_user_access=%d\n", can_do_masked_user_access());
	for (r = 0; r < repetitions; r++) {
		for (v = 0; v < nv; v++) {
			const struct bench_variant *b = &variants[v];
			u64 val = MAGIC;

			KUNIT_ASSERT_EQ_MSG(test, b->fn(p, iterations, &val,
							&cycles[v * repetitions + r]), 0,
					    "%s %s faulted", b->name, b->op);
		}
		cond_resched();
	}
	for (v = 0; v < nv; v++) {
		int len = 0;

		for (r = 0; r < repetitions; r++)
			len += scnprintf(line + len, 64 + 21 * repetitions - len, "%s%llu",
					 r ? "," : "", cycles[v * repetitions + r]);
		kunit_info(test, "bench access=%s op=%s iterations=%u cycles=%s\n",
			   variants[v].name, variants[v].op, iterations, line);
	}
}

static struct kunit_case uaccess_bench_cases[] = {
	KUNIT_CASE(uaccess_bench_run),
	{}
};

static struct kunit_suite uaccess_bench_suite = {
	.name = "uaccess_bench",
	.test_cases = uaccess_bench_cases,
};

kunit_test_suites(&uaccess_bench_suite);

MODULE_DESCRIPTION("Cycles per user access: scopes, open-coded regions, get_user(), copies");
MODULE_LICENSE("GPL");
