// SPDX-License-Identifier: GPL-2.0
/*
 * native_bench: times the user access region sequences of native_regions.o
 * (compiled from the kernel's headers with kbuild's flags) on this CPU, in
 * userspace.
 *
 * Before timing it does what the kernel does at boot to that code:
 * apply_alternatives() and runtime_const_init(ptr, USER_PTR_MAX).  The
 * alternatives become what a CPU with SMAP and LFENCE_RDTSC runs, except
 * that STAC and CLAC, which fault outside ring 0, become NOPs of the same
 * length (3 bytes, the kernel's own NOP of that length).  An alternative of
 * any other feature is refused, so that nothing the kernel would patch goes
 * untimed unnoticed.
 *
 *   native_bench [-r rounds] [-n regions] [-w warmup] [-c cpu]
 *
 * Pinned to one CPU (default: the last), each round times every sequence
 * once, in an order rotated from round to round: -n regions in a row
 * between two serialised TSC reads (LFENCE; RDTSC; LFENCE before, RDTSCP;
 * LFENCE after).  The -w warmup rounds are not printed.  Output:
 *
 *   native cpu=1 rounds=1000 regions=200 warmup=50
 *   native patched smap=36 lfence=12 runtime_const=12
 *   native check ok
 *   native seq=checked_read_1 ticks=812,790,...
 *
 * ticks are TSC ticks for -n regions, one number per round.  Exit status 0,
 * or 1 with a message on stderr when a check fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef unsigned long (*native_fn)(unsigned long *uptr, unsigned long n);

struct native_sequence {
	const char *name;
	native_fn fn;
};

/* From native_regions.o, that is from the kernel's headers. */
extern const struct native_sequence native_sequences[];
extern const unsigned int native_nr_sequences;
extern const unsigned int native_alt_instr_size;
extern const unsigned int native_alt_flags_shift;
extern const unsigned short native_feature_smap;
extern const unsigned short native_feature_lfence_rdtsc;

/* arch/x86/include/asm/alternative.h; its size is checked against the kernel's. */
struct alt_instr {
	int32_t instr_offset;
	int32_t repl_offset;
	uint32_t ft_flags;
	uint8_t instrlen;
	uint8_t replacementlen;
} __attribute__((packed));

/* Bounds of the kernel object's sections: native.lds, and ld's __start_ and
 * __stop_ symbols of a section named like a C identifier. */
extern struct alt_instr __alt_instructions[], __alt_instructions_end[];
extern int32_t __start_runtime_ptr_USER_PTR_MAX[] __attribute__((weak));
extern int32_t __stop_runtime_ptr_USER_PTR_MAX[] __attribute__((weak));

/*
 * USER_PTR_MAX as arch/x86/kernel/cpu/common.c sets it: TASK_SIZE_MAX,
 * here with 4-level paging.
 */
#define USER_PTR_MAX ((1UL << 47) - 4096)

/* The kernel's NOPs for x86_64 (x86_nops, arch/x86/kernel/alternative.c). */
static const uint8_t nops[][8] = {
	[1] = { 0x90 },
	[2] = { 0x66, 0x90 },
	[3] = { 0x0f, 0x1f, 0x00 },
	[4] = { 0x0f, 0x1f, 0x40, 0x00 },
	[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	[6] = { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	[7] = { 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
	[8] = { 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
};

static void fail(const char *what)
{
	fprintf(stderr, "native_bench: %s\n", what);
	exit(1);
}

static void writable(void *addr, size_t len, int prot)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)addr & ~(uintptr_t)(page - 1);
	uintptr_t end = ((uintptr_t)addr + len + page - 1) & ~(uintptr_t)(page - 1);

	if (mprotect((void *)start, end - start, prot))
		fail(strerror(errno));
}

static void text_poke(uint8_t *where, const uint8_t *bytes, size_t len)
{
	writable(where, len, PROT_READ | PROT_WRITE | PROT_EXEC);
	memcpy(where, bytes, len);
	writable(where, len, PROT_READ | PROT_EXEC);
}

static void add_nop(uint8_t *where, unsigned int len)
{
	if (!len)
		return;
	if (len >= sizeof(nops) / sizeof(nops[0]))
		fail("alternative longer than the longest NOP");
	text_poke(where, nops[len], len);
}

/* apply_alternatives() for the features of the region sequences. */
static void apply_alternatives(unsigned int *smap, unsigned int *lfence)
{
	struct alt_instr *a;

	if (native_alt_instr_size != sizeof(struct alt_instr))
		fail("struct alt_instr differs from the kernel's");
	for (a = __alt_instructions; a < __alt_instructions_end; a++) {
		uint8_t *instr = (uint8_t *)&a->instr_offset + a->instr_offset;
		uint8_t *repl = (uint8_t *)&a->repl_offset + a->repl_offset;
		unsigned int feature = a->ft_flags & ((1u << native_alt_flags_shift) - 1);
		char msg[80];

		if (a->ft_flags >> native_alt_flags_shift || a->replacementlen > a->instrlen) {
			snprintf(msg, sizeof(msg), "unexpected alternative flags %#x", a->ft_flags);
			fail(msg);
		}
		if (feature == native_feature_smap) {
			/* STAC, CLAC: a NOP of the same length, see above */
			add_nop(instr, a->instrlen);
			(*smap)++;
		} else if (feature == native_feature_lfence_rdtsc) {
			text_poke(instr, repl, a->replacementlen);
			add_nop(instr + a->replacementlen, a->instrlen - a->replacementlen);
			(*lfence)++;
		} else {
			snprintf(msg, sizeof(msg), "alternative of feature %u: not modelled",
				 feature);
			fail(msg);
		}
	}
}

/* runtime_const_init(ptr, USER_PTR_MAX): the immediate of each MOV. */
static unsigned int runtime_const_init(void)
{
	unsigned long value = USER_PTR_MAX;
	int32_t *p;

	if (!__start_runtime_ptr_USER_PTR_MAX)
		return 0;
	for (p = __start_runtime_ptr_USER_PTR_MAX; p < __stop_runtime_ptr_USER_PTR_MAX; p++)
		text_poke((uint8_t *)p + *p, (const uint8_t *)&value, sizeof(value));
	return __stop_runtime_ptr_USER_PTR_MAX - __start_runtime_ptr_USER_PTR_MAX;
}

static inline uint64_t tsc_begin(void)
{
	uint32_t lo, hi;

	asm volatile("lfence\n\trdtsc\n\tlfence" : "=a" (lo), "=d" (hi) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t tsc_end(void)
{
	uint32_t lo, hi, aux;

	asm volatile("rdtscp\n\tlfence" : "=a" (lo), "=d" (hi), "=c" (aux) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

static unsigned long buf[8] __attribute__((aligned(64)));

static const struct native_sequence *sequence(const char *name)
{
	unsigned int i;

	for (i = 0; i < native_nr_sequences; i++)
		if (!strcmp(native_sequences[i].name, name))
			return &native_sequences[i];
	return NULL;
}

/*
 * Every sequence does what it should: reads sum the buffer, writes store
 * the loop counter, the last one 1, and the range check of the checked
 * begin refuses the first address above USER_PTR_MAX (which also shows
 * that the runtime constant was patched).
 */
static void check(void)
{
	static const struct { unsigned int count; unsigned long sum; } expect[] = {
		{ 1, 1 }, { 2, 1 + 2 }, { 8, 36 },
	};
	static const char *const begins[] = { "checked", "masked", "scoped" };
	unsigned int b, e, i;
	char name[32], msg[96];

	for (b = 0; b < 3; b++) {
		for (e = 0; e < 3; e++) {
			const struct native_sequence *s;

			snprintf(name, sizeof(name), "%s_read_%u", begins[b], expect[e].count);
			s = sequence(name);
			if (!s && b == 2)
				continue;
			if (!s)
				fail("a sequence is missing");
			for (i = 0; i < 8; i++)
				buf[i] = i + 1;
			if (s->fn(buf, 3) != expect[e].sum) {
				snprintf(msg, sizeof(msg), "%s: wrong sum", name);
				fail(msg);
			}
			snprintf(name, sizeof(name), "%s_write_%u", begins[b], expect[e].count);
			s = sequence(name);
			if (!s)
				fail("a sequence is missing");
			memset(buf, 0, sizeof(buf));
			if (s->fn(buf, 3) != 0) {
				snprintf(msg, sizeof(msg), "%s: returned an error", name);
				fail(msg);
			}
			for (i = 0; i < 8; i++) {
				if (buf[i] != (i < expect[e].count)) {
					snprintf(msg, sizeof(msg), "%s: wrong store at %u", name, i);
					fail(msg);
				}
			}
		}
	}
	if (sequence("checked_read_1")->fn((unsigned long *)(USER_PTR_MAX + 1), 1) != (unsigned long)-EFAULT)
		fail("checked_read_1 accepts an address above USER_PTR_MAX");
}

int main(int argc, char **argv)
{
	unsigned long rounds = 1000, regions = 200, warmup = 50;
	long cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	unsigned int smap = 0, lfence = 0, consts, i, r;
	uint64_t *ticks;
	cpu_set_t set;
	int opt;

	while ((opt = getopt(argc, argv, "r:n:w:c:")) != -1) {
		switch (opt) {
		case 'r': rounds = strtoul(optarg, NULL, 0); break;
		case 'n': regions = strtoul(optarg, NULL, 0); break;
		case 'w': warmup = strtoul(optarg, NULL, 0); break;
		case 'c': cpu = strtol(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s [-r rounds] [-n regions] [-w warmup] [-c cpu]\n",
				argv[0]);
			return 2;
		}
	}
	if (!rounds || !regions)
		fail("rounds and regions must be positive");
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fail(strerror(errno));

	apply_alternatives(&smap, &lfence);
	consts = runtime_const_init();
	printf("native cpu=%ld rounds=%lu regions=%lu warmup=%lu\n", cpu, rounds, regions, warmup);
	printf("native patched smap=%u lfence=%u runtime_const=%u\n", smap, lfence, consts);
	check();
	printf("native check ok\n");
	fflush(stdout);

	for (i = 0; i < 8; i++)
		buf[i] = i + 1;
	ticks = calloc(rounds * native_nr_sequences, sizeof(*ticks));
	if (!ticks)
		fail("out of memory");
	for (r = 0; r < warmup + rounds; r++) {
		for (i = 0; i < native_nr_sequences; i++) {
			unsigned int s = (i + r) % native_nr_sequences;
			uint64_t t0, t1;

			t0 = tsc_begin();
			native_sequences[s].fn(buf, regions);
			t1 = tsc_end();
			if (r >= warmup)
				ticks[(r - warmup) * native_nr_sequences + s] = t1 - t0;
		}
	}
	if (sched_getcpu() != cpu)
		fail("not on the CPU it was pinned to");
	for (i = 0; i < native_nr_sequences; i++) {
		printf("native seq=%s ticks=", native_sequences[i].name);
		for (r = 0; r < rounds; r++)
			printf("%s%llu", r ? "," : "",
			       (unsigned long long)ticks[r * native_nr_sequences + i]);
		printf("\n");
	}
	free(ticks);
	return 0;
}
