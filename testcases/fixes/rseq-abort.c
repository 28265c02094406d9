// SPDX-License-Identifier: GPL-2.0
/*
 * The rseq abort path, for powerpc64le QEMU.
 *
 * Run as /init, the program enters a restartable sequence, a loop long
 * enough that a timer signal arrives inside it, through glibc's
 * registered rseq area.  On the way back to user space the kernel finds
 * the interrupted address inside the sequence and, in
 * rseq_update_user_cs(), checks the signature in front of the abort
 * handler and moves the return address there.  The handler must run,
 * and a sequence whose abort handler lacks the signature must get the
 * task killed.  Results are KTAP lines on the console, then it powers off.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/rseq.h>
#include <sys/time.h>
#include <sys/wait.h>

/*
 * long in_sequence(struct rseq_cs *cs, uint64_t *rseq_cs, long loops):
 * publishes cs in the rseq area, then counts loops down inside the
 * sequence; 0 when the loop ran out, 1 from the abort handler.
 */
extern char seq_start[], seq_end[], seq_abort[], bad_start[], bad_end[], bad_abort[];
long in_sequence(struct rseq_cs *cs, volatile uint64_t *rseq_cs, long loops);
long in_bad_sequence(struct rseq_cs *cs, volatile uint64_t *rseq_cs, long loops);
asm(".text\n"
    ".globl in_sequence\n"
    "in_sequence:\n"
    "	std 3, 0(4)\n"
    "seq_start:\n"
    "	addi 5, 5, -1\n"
    "	cmpdi 5, 0\n"
    "	bne seq_start\n"
    "seq_end:\n"
    "	li 3, 0\n"
    "	blr\n"
    "	.long 0x0fe5000b\n"		/* RSEQ_SIG */
    "seq_abort:\n"
    "	li 3, 1\n"
    "	blr\n"
    ".globl in_bad_sequence\n"
    "in_bad_sequence:\n"
    "	std 3, 0(4)\n"
    "bad_start:\n"
    "	addi 5, 5, -1\n"
    "	cmpdi 5, 0\n"
    "	bne bad_start\n"
    "bad_end:\n"
    "	li 3, 0\n"
    "	blr\n"
    "	.long 0x0fe5000c\n"		/* not the signature */
    "bad_abort:\n"
    "	li 3, 1\n"
    "	blr\n");

static struct rseq_cs cs __attribute__((aligned(32)));
static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* glibc's rseq area: __rseq_offset from the thread pointer, r13. */
static volatile uint64_t *rseq_cs_field(void)
{
	register char *tp asm("r13");
	struct rseq *area = (struct rseq *)(tp + __rseq_offset);

	return (volatile uint64_t *)&area->rseq_cs;
}

/* Runs the sequence until a 10 ms timer interrupts it, at most 50 times. */
static long interrupted(long (*seq)(struct rseq_cs *, volatile uint64_t *, long))
{
	struct itimerval tick = { .it_value = { .tv_usec = 10000 },
				  .it_interval = { .tv_usec = 10000 } };
	long r = 0;

	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &tick, NULL);
	for (int i = 0; i < 50 && !r; i++)
		r = seq(&cs, rseq_cs_field(), 100000000L);
	memset(&tick, 0, sizeof(tick));
	setitimer(ITIMER_REAL, &tick, NULL);
	return r;
}

int main(void)
{
	int status;
	pid_t child;
	long r;

	mount("proc", "/proc", "proc", 0, NULL);
	printf("# fixes-rseq begin\n1..2\n");
	if (__rseq_size == 0) {
		printf("Bail out! glibc did not register rseq\n");
		goto out;
	}
	cs = (struct rseq_cs){ .start_ip = (uintptr_t)seq_start,
			       .post_commit_offset = (uintptr_t)(seq_end - seq_start),
			       .abort_ip = (uintptr_t)seq_abort };
	r = interrupted(in_sequence);
	printf("%s 1 a signal inside the sequence resumes at its abort handler\n",
	       r == 1 ? "ok" : "not ok");
	printf("# %ld timer signal(s) until the first abort\n", (long)alarms);

	fflush(stdout);
	child = fork();
	if (child == 0) {
		cs = (struct rseq_cs){ .start_ip = (uintptr_t)bad_start,
				       .post_commit_offset = (uintptr_t)(bad_end - bad_start),
				       .abort_ip = (uintptr_t)bad_abort };
		interrupted(in_bad_sequence);
		_exit(0);
	}
	waitpid(child, &status, 0);
	printf("%s 2 an abort handler without the signature gets the task killed (%s %d)\n",
	       WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV ? "ok" : "not ok",
	       WIFSIGNALED(status) ? "signal" : "exit status",
	       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
out:
	printf("# fixes-rseq end\n");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
