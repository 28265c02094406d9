// SPDX-License-Identifier: GPL-2.0
/*
 * The rseq abort path, for every architecture the fixes boot: x86_64,
 * i386, powerpc (32-bit and 64-bit) and riscv.
 *
 * Built with the tree's nolibc (tools/include/nolibc, no C library) and
 * run as /init.  A child registers an rseq area of its own and runs a
 * restartable sequence, a loop long enough that the scheduler preempts
 * it there for the other runnable process, a spinner.  The sequence runs
 * from a copy at SEQ_ADDRESS, above 2 GiB and below the TASK_SIZE of
 * every 32-bit kernel the fixes boot: a generic array_index_nospec()
 * against TASK_SIZE turns such an address into 0.  On the way back
 * to user space the kernel finds the interrupted address inside the
 * sequence and, in rseq_update_user_cs(), reads the signature in front
 * of the abort handler through abort_ip - 4 and moves the return address
 * to the handler.  The handler must run; a sequence whose abort handler
 * lacks the signature must get the task killed with SIGSEGV.  A kernel
 * that reads the signature from anywhere but abort_ip - 4 (address 0,
 * say) kills the first child too.
 *
 * The program also finds TASK_SIZE as the kernel enforces it for this
 * task (the lowest address a page cannot be mapped at) and prints it as
 * a diagnostic.  Results are KTAP lines on the console between
 * `# fixes-rseq begin` and `# fixes-rseq end`; then it reboots, which
 * QEMU's -no-reboot turns into an exit.
 */
#include <linux/reboot.h>
#include <linux/rseq.h>

#define SIG_GOOD	0x0fe5000bU	/* registered with the rseq area */
#define SIG_BAD		0x0fe5000cU	/* in front of the bad abort handler */
#define LOOPS		20000000L	/* iterations of one pass of the sequence */
#define PASSES		200		/* passes until a preemption must have hit */
#define SEQ_ADDRESS	0x90000000UL	/* where the sequences run */

/*
 * long NAME(long loops): counts loops down inside the sequence
 * NAME..NAME_end; 0 when the loop ran out, 1 from NAME_abort, in
 * front of which the word SIGWORD stands.
 */
#define str(x) #x
#define xstr(x) str(x)

#if defined(__x86_64__) || defined(__i386__)
static void flush_icache(char *start, char *end)
{
	(void)start;
	(void)end;
}
#elif defined(__powerpc__)
/* 16 bytes: no smaller than the cache line of any powerpc core. */
static void flush_icache(char *start, char *end)
{
	for (char *p = start; p < end; p += 16)
		asm volatile("dcbst 0, %0" : : "r"(p) : "memory");
	asm volatile("sync" : : : "memory");
	for (char *p = start; p < end; p += 16)
		asm volatile("icbi 0, %0" : : "r"(p) : "memory");
	asm volatile("sync; isync" : : : "memory");
}
#elif defined(__riscv)
static void flush_icache(char *start, char *end)
{
	(void)start;
	(void)end;
	asm volatile("fence.i" : : : "memory");
}
#endif

#if defined(__x86_64__)
#define SEQUENCE(name, sigword)						\
	".globl " #name "\n" #name ":\n"				\
	#name "_start:\n"						\
	"	dec %rdi\n"						\
	"	jnz " #name "_start\n"					\
	#name "_end:\n"							\
	"	xor %eax, %eax\n"					\
	"	ret\n"							\
	"	.long " xstr(sigword) "\n"				\
	#name "_abort:\n"						\
	"	mov $1, %eax\n"						\
	"	ret\n"
#elif defined(__i386__)
#define SEQUENCE(name, sigword)						\
	".globl " #name "\n" #name ":\n"				\
	"	mov 4(%esp), %ecx\n"					\
	#name "_start:\n"						\
	"	dec %ecx\n"						\
	"	jnz " #name "_start\n"					\
	#name "_end:\n"							\
	"	xor %eax, %eax\n"					\
	"	ret\n"							\
	"	.long " xstr(sigword) "\n"				\
	#name "_abort:\n"						\
	"	mov $1, %eax\n"						\
	"	ret\n"
#elif defined(__powerpc__)
/* addic. compares the whole register: 64 bits on ppc64, 32 on ppc32. */
#define SEQUENCE(name, sigword)						\
	".globl " #name "\n" #name ":\n"				\
	#name "_start:\n"						\
	"	addic. 3, 3, -1\n"					\
	"	bne " #name "_start\n"					\
	#name "_end:\n"							\
	"	li 3, 0\n"						\
	"	blr\n"							\
	"	.long " xstr(sigword) "\n"				\
	#name "_abort:\n"						\
	"	li 3, 1\n"						\
	"	blr\n"
#elif defined(__riscv)
#define SEQUENCE(name, sigword)						\
	".globl " #name "\n" #name ":\n"				\
	#name "_start:\n"						\
	"	addi a0, a0, -1\n"					\
	"	bnez a0, " #name "_start\n"				\
	#name "_end:\n"							\
	"	li a0, 0\n"						\
	"	ret\n"							\
	"	.balign 4\n"						\
	"	.long " xstr(sigword) "\n"				\
	#name "_abort:\n"						\
	"	li a0, 1\n"						\
	"	ret\n"
#else
#error "no restartable sequence for this architecture"
#endif

extern char seq_code[], seq_code_end[];
extern char good[], good_end[], good_abort[];
extern char bad[], bad_end[], bad_abort[];
asm(".text\n.balign 16\n.globl seq_code\nseq_code:\n" SEQUENCE(good, SIG_GOOD)
    ".balign 16\n" SEQUENCE(bad, SIG_BAD) ".globl seq_code_end\nseq_code_end:\n");

/* A label of the sequences in their copy at SEQ_ADDRESS. */
static char *moved(char *label)
{
	return (char *)SEQ_ADDRESS + (label - seq_code);
}

static struct rseq area __attribute__((aligned(32)));
static struct rseq_cs cs __attribute__((aligned(32)));

/*
 * Runs in a child: registers the rseq area and runs the sequence until a
 * preemption aborts it.  Exits 0 when the abort handler ran, 1 when no
 * pass was preempted inside the sequence, 2 when rseq() failed.
 */
static void run_sequence(char *start, char *end, char *abort_ip)
{
	long (*seq)(long) = (long (*)(long))moved(start);

	/*
	 * The original 32-byte area, aligned to 32: a longer one must be
	 * aligned to its size rounded up to a power of two.
	 */
	if (syscall(__NR_rseq, &area, 32, 0, SIG_GOOD) != 0)
		exit(2);
	cs.version = 0;
	cs.flags = 0;
	cs.start_ip = (unsigned long)moved(start);
	cs.post_commit_offset = (unsigned long)(end - start);
	cs.abort_ip = (unsigned long)moved(abort_ip);
	for (int i = 0; i < PASSES; i++) {
		/* Preempted before the start, the kernel clears it: set it again. */
		*(volatile __u64 *)&area.rseq_cs = (unsigned long)&cs;
		if (seq(LOOPS) == 1)
			exit(0);
	}
	exit(1);
}

/* One test line: the verdict, what it checks and how the child ended. */
static void report(int ok, int n, const char *what, int status)
{
	printf("%s %d %s (%s %d)\n", ok ? "ok" : "not ok", n, what,
	       WIFEXITED(status) ? "exit status" : "killed by signal",
	       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

static int child(char *start, char *end, char *abort_ip)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0)
		run_sequence(start, end, abort_ip);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return status;
}

/*
 * The lowest address at which no page can be mapped: mmap() refuses
 * MAP_FIXED past TASK_SIZE with ENOMEM, and only there.
 */
static unsigned long task_size(void)
{
	unsigned long page = getpagesize();
	unsigned long lo = 1, hi = ~0UL / page;	/* page numbers: lo maps, hi does not */

	while (hi - lo > 1) {
		unsigned long mid = lo + (hi - lo) / 2;
		void *p = mmap((void *)(mid * page), page, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (p == MAP_FAILED && errno == ENOMEM) {
			hi = mid;
		} else {
			if (p != MAP_FAILED)
				munmap(p, page);
			lo = mid;
		}
	}
	return hi * page;
}

/* Copies the sequences to SEQ_ADDRESS; 0 when that failed. */
static int move_sequences(void)
{
	unsigned long size = getpagesize();
	char *to = mmap((void *)SEQ_ADDRESS, size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (to != (char *)SEQ_ADDRESS)
		return 0;
	memcpy(to, seq_code, seq_code_end - seq_code);
	flush_icache(to, to + (seq_code_end - seq_code));
	return syscall(__NR_mprotect, to, size, PROT_READ | PROT_EXEC) == 0;
}

int main(void)
{
	pid_t spinner;
	int status;

	printf("# fixes-rseq begin\n1..2\n");
	printf("# TASK_SIZE 0x%lx\n", task_size());
	if (!move_sequences()) {
		printf("Bail out! no executable page at 0x%lx\n", SEQ_ADDRESS);
		goto out;
	}
	printf("# sequences at 0x%lx\n", SEQ_ADDRESS);
	spinner = fork();
	if (spinner == 0)
		for (;;)
			;

	status = child(good, good_end, good_abort);
	report(WIFEXITED(status) && WEXITSTATUS(status) == 0, 1,
	       "a preemption inside the sequence resumes at its abort handler", status);

	status = child(bad, bad_end, bad_abort);
	report(!WIFEXITED(status) && WTERMSIG(status) == SIGSEGV, 2,
	       "an abort handler without the signature gets the task killed", status);

	kill(spinner, SIGKILL);
	waitpid(spinner, &status, 0);
out:
	printf("# fixes-rseq end\n");
	reboot(LINUX_REBOOT_CMD_RESTART);
	return 0;
}
