// SPDX-License-Identifier: GPL-2.0
/*
 * uaccess_syscalls - drive the syscalls whose kernel paths use user access regions
 *
 * Each check makes one syscall with a good pointer or with a bad one:
 *
 *   fault       an address in a page this program unmapped
 *   kernel_ptr  a kernel address (0xffffffff81000000)
 *   null        NULL, where the syscall takes a pointer
 *   readonly    a read-only page where the kernel has to write
 *   straddle    an object that starts in a good page and ends in the
 *               unmapped one, so the fault comes in the middle of a region
 *
 * The result line records what the kernel did: `errno=EFAULT`, `errno=0`
 * for success, or `signal=SIGSEGV` for a check run in a child process that
 * the kernel killed.  checks[] below holds the expected result of every
 * check; it alone decides ok or not ok, and a check that also inspects what
 * the kernel wrote (a siginfo, a futex word, a dirent) says why in a
 * diagnostic line when that is wrong.  Two kernels that behave alike print
 * the same result lines.
 *
 * Output is KTAP on stdout.  Modes:
 *   uaccess_syscalls               the checks (the default)
 *   uaccess_syscalls --bench N     time N calls each of four hot syscalls
 *   uaccess_syscalls --all N       the checks, then the benchmarks
 *   uaccess_syscalls --list        the check names, one a line
 * Run from /init, the environment variables UACCESS_MODE (test, bench,
 * all) and UACCESS_ITERATIONS, which the kernel passes from its command
 * line, do the same.
 *
 * Build: gcc -static -O2 -Wall -Werror -o uaccess_syscalls uaccess_syscalls.c
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/rseq.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define PAGE		4096UL
#define HOLE_PAGES	16
#define RO_PAGES	16
/*
 * The test pages live at a fixed address far below where mmap() places
 * anything, so no later mapping (malloc, stacks) can land in the hole.
 */
#define ARENA		((char *)0x200000000UL)
#define GOOD		ARENA				/* one read-write page */
#define HOLE		(ARENA + PAGE)			/* unmapped */
#define RO		(HOLE + HOLE_PAGES * PAGE)	/* read-only */
#define EDGE		HOLE		/* first byte that faults after GOOD */
#define KPTR		((void *)0xffffffff81000000UL)

/* The kernel's sigset_t is 8 bytes on x86_64; glibc's is 128. */
#define KSIGSET_SIZE	8
/* The pipe whose read end the select and poll checks watch. */
#define WATCH_FD	20
#define DIR_PATH	"/tmp/uaccess-dir"
/* The regular file the path lookup checks find. */
#define FILE_PATH	"/tmp/uaccess-file"

enum ptr {
	P_VALID,
	P_FAULT,
	P_KERNEL,
	P_NULL,
	P_READONLY,
	P_STRADDLE,
	/* Variants beyond the pointer kinds, for the checks that have them. */
	V_NUL_AT_EDGE = 100,	/* a string whose NUL is the last byte before the hole */
	V_EMPTY,		/* an empty path */
	V_TOO_LONG,		/* a path longer than PATH_MAX */
	V_ZERO_TAIL,		/* openat2: a larger struct with a zero tail */
	V_NONZERO_TAIL,		/* openat2: a larger struct with a non-zero tail */
	V_TOO_SMALL,		/* openat2: smaller than the first published struct */
};

/* What the execve checks pass as filename, argv or argv[0]. */
enum exec_variant {
	X_VALID,
	X_FILENAME_FAULT,
	X_ARGV_FAULT,
	X_ARGV0_FAULT,
	X_ARGV0_KERNEL,
	X_ARGV0_STRADDLE,
	X_ARGV0_NUL_AT_EDGE,
};

struct sigset_argpack {
	const void *p;
	size_t size;
};

/* What the read-only page holds: good data the kernel may read, not write. */
struct ro_data {
	struct sigset_argpack pack;
	struct pollfd pfd;
	fd_set rfds;
	uint32_t futex_word;
	int pipe_fds[2];
	struct open_how how;
};

#define RO_DATA		((struct ro_data *)RO)

struct result {
	int err;		/* errno, 0 for success */
	int sig;		/* the signal that killed the child, or 0 */
	char why[200];		/* set when a value the kernel wrote is wrong */
};

struct check {
	const char *name;
	void (*fn)(struct result *r, long arg);
	long arg;
	int err;		/* expected errno (0: success) */
	int sig;		/* expected fatal signal in a child, or 0 */
	int or_err;		/* with sig: this errno is right too (0: none) */
};

static sigset_t empty_set;
static volatile sig_atomic_t usr1_count, usr2_count;
static volatile siginfo_t usr2_info;
static int watch_rfd, watch_wfd;

static void fail(struct result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->why[0])
		return;		/* keep the first reason */
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

/* Records the errno of a raw syscall's return; returns the return. */
static long note(struct result *r, long ret)
{
	r->err = ret < 0 ? errno : 0;
	return ret;
}

static void *ptr_of(enum ptr kind, void *valid)
{
	switch (kind) {
	case P_VALID:
		return valid;
	case P_FAULT:
		return HOLE;
	case P_KERNEL:
		return KPTR;
	case P_NULL:
		return NULL;
	case P_READONLY:
		return RO + PAGE;	/* a read-only page with nothing in it */
	default:
		break;
	}
	abort();	/* straddle and the variants place their object themselves */
}

static void die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	fflush(stdout);
	exit(2);
}

static long futex(void *uaddr, int op, uint32_t val, const void *timeout_or_val2,
		  void *uaddr2, uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, timeout_or_val2, uaddr2, val3);
}

static pid_t fork_flushed(void)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork");
	return pid;
}

/* Waits for a child and turns how it ended into the result. */
static void reap_into(struct result *r, pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (WIFSIGNALED(status)) {
		r->sig = WTERMSIG(status);
		r->err = 0;
	} else {
		r->err = WEXITSTATUS(status);
	}
}

/* A child that exits with code at once; returns once it is a zombie. */
static pid_t exited_child(int code)
{
	siginfo_t info;
	pid_t pid = fork_flushed();

	if (pid == 0)
		_exit(code);
	if (waitid(P_PID, pid, &info, WEXITED | WNOWAIT) < 0)
		die("waitid WNOWAIT");
	return pid;
}

/* A child that runs until its pipe is closed. */
static pid_t running_child(int *release_fd)
{
	int fds[2];
	char c;
	pid_t pid;

	if (pipe(fds) < 0)
		die("pipe");
	pid = fork_flushed();
	if (pid == 0) {
		close(fds[1]);
		while (read(fds[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(fds[0]);
	*release_fd = fds[1];
	return pid;
}

static void release_child(pid_t pid, int release_fd)
{
	close(release_fd);
	waitpid(pid, NULL, 0);
}

/* ---- pselect6: the sigset argpack is read in a user access region ---- */

static long pselect6_pack(const void *pack, const void *readfds, int nfds,
			  const struct timespec *ts)
{
	return syscall(SYS_pselect6, nfds, readfds, NULL, NULL, ts, pack);
}

static const struct timespec zero_ts;

static void t_pselect6_argpack(struct result *r, long kind)
{
	struct sigset_argpack pack = { &empty_set, KSIGSET_SIZE };
	const void *p;

	if (kind == P_STRADDLE) {
		/* .p is the last word of the good page, .size is in the hole */
		struct sigset_argpack *edge = (void *)(EDGE - sizeof(void *));

		edge->p = &empty_set;
		p = edge;
	} else if (kind == P_READONLY) {
		p = &RO_DATA->pack;
	} else {
		p = ptr_of(kind, &pack);
	}
	note(r, pselect6_pack(p, NULL, 0, &zero_ts));
}

static void t_pselect6_sigset(struct result *r, long kind)
{
	struct sigset_argpack pack = { ptr_of(kind, &empty_set), KSIGSET_SIZE };

	note(r, pselect6_pack(&pack, NULL, 0, &zero_ts));
}

static void t_pselect6_sigset_size(struct result *r, long size)
{
	struct sigset_argpack pack = { &empty_set, size };

	note(r, pselect6_pack(&pack, NULL, 0, &zero_ts));
}

/* The mask in the argpack is the one the kernel applies while waiting. */
static void t_pselect6_sigset_applied(struct result *r, long unused)
{
	struct timespec ts = { 5, 0 };
	struct sigset_argpack pack = { &empty_set, KSIGSET_SIZE };
	sigset_t usr1, now;
	int before = usr1_count;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
	note(r, pselect6_pack(&pack, NULL, 0, &ts));
	if (usr1_count != before + 1)
		fail(r, "SIGUSR1 handler ran %d times, want 1", usr1_count - before);
	sigprocmask(SIG_SETMASK, NULL, &now);
	if (!sigismember(&now, SIGUSR1))
		fail(r, "the old mask was not restored");
	sigprocmask(SIG_UNBLOCK, &usr1, NULL);
}

static void t_pselect6_fdset(struct result *r, long kind)
{
	fd_set rfds;
	const void *p;

	FD_ZERO(&rfds);
	FD_SET(WATCH_FD, &rfds);
	p = kind == P_READONLY ? &RO_DATA->rfds : ptr_of(kind, &rfds);
	note(r, pselect6_pack(NULL, p, WATCH_FD + 1, &zero_ts));
	if (kind == P_VALID && !r->err && FD_ISSET(WATCH_FD, &rfds))
		fail(r, "an empty pipe was reported readable");
}

static void t_pselect6_timeout(struct result *r, long kind)
{
	note(r, pselect6_pack(NULL, NULL, 0, ptr_of(kind, (void *)&zero_ts)));
}

/* ---- ppoll: revents are written back in a user access region ---- */

static void t_ppoll_fds(struct result *r, long kind)
{
	struct pollfd pfd[2] = { { watch_rfd, POLLIN, 0 }, { watch_rfd, POLLIN, 0 } };
	void *p;
	long ret;
	char c = 'p';
	int nfds = 1;

	if (write(watch_wfd, &c, 1) != 1)
		die("write watch pipe");
	if (kind == P_STRADDLE) {
		/* two entries: the first in the good page, the second in the hole */
		p = EDGE - sizeof(struct pollfd);
		memcpy(p, pfd, sizeof(struct pollfd));
		nfds = 2;
	} else if (kind == P_READONLY) {
		p = &RO_DATA->pfd;
	} else {
		p = ptr_of(kind, pfd);
	}
	ret = note(r, syscall(SYS_ppoll, p, nfds, &zero_ts, NULL, KSIGSET_SIZE));
	if (kind == P_VALID && (ret != 1 || pfd[0].revents != POLLIN))
		fail(r, "ppoll returned %ld revents=%#x, want 1 and POLLIN", ret, pfd[0].revents);
	if (read(watch_rfd, &c, 1) != 1)
		die("drain watch pipe");
}

static void t_ppoll_sigmask(struct result *r, long kind)
{
	struct pollfd pfd = { watch_rfd, POLLIN, 0 };

	note(r, syscall(SYS_ppoll, &pfd, 1, &zero_ts, ptr_of(kind, &empty_set), KSIGSET_SIZE));
}

/* ---- waitid: the siginfo is written in a user access region ---- */

static void t_waitid_infop(struct result *r, long kind)
{
	siginfo_t info;
	struct rusage ru;
	pid_t pid = exited_child(42);
	void *p;

	memset(&info, 0xa5, sizeof(info));
	if (kind == P_STRADDLE)
		p = EDGE - 16;	/* si_signo..si_code fit, si_pid is in the hole */
	else
		p = ptr_of(kind, &info);
	note(r, syscall(SYS_waitid, P_PID, pid, p, WEXITED, &ru));
	if (kind == P_VALID && !r->err &&
	    (info.si_signo != SIGCHLD || info.si_code != CLD_EXITED || info.si_status != 42 ||
	     info.si_pid != pid || info.si_uid != getuid() || info.si_errno != 0))
		fail(r, "siginfo signo=%d code=%d status=%d pid=%d uid=%d errno=%d",
		     info.si_signo, info.si_code, info.si_status, info.si_pid, info.si_uid,
		     info.si_errno);
	/* The child is reaped even when the siginfo cannot be written. */
	if (waitid(P_PID, pid, &info, WEXITED | WNOHANG) == 0 || errno != ECHILD)
		fail(r, "child %d was not reaped", pid);
}

/* Only the fields waitid writes must be writable: the rest may be in the hole. */
static void t_waitid_infop_tail_in_hole(struct result *r, long unused)
{
	siginfo_t *info = (void *)(EDGE - 64);
	pid_t pid = exited_child(7);

	note(r, syscall(SYS_waitid, P_PID, pid, info, WEXITED, NULL));
	if (!r->err && (info->si_pid != pid || info->si_status != 7))
		fail(r, "siginfo pid=%d status=%d", info->si_pid, info->si_status);
}

static void t_waitid_rusage(struct result *r, long kind)
{
	siginfo_t info;
	struct rusage ru;
	pid_t pid = exited_child(3);
	void *p = kind == P_READONLY ? RO + PAGE : ptr_of(kind, &ru);

	note(r, syscall(SYS_waitid, P_PID, pid, &info, WEXITED, p));
	if (waitid(P_PID, pid, &info, WEXITED | WNOHANG) == 0 || errno != ECHILD)
		fail(r, "child %d was not reaped", pid);
}

/* WNOHANG on a running child writes a zeroed siginfo. */
static void t_waitid_wnohang_running(struct result *r, long kind)
{
	siginfo_t info;
	int release;
	pid_t pid = running_child(&release);

	memset(&info, 0xa5, sizeof(info));
	note(r, syscall(SYS_waitid, P_PID, pid, ptr_of(kind, &info), WEXITED | WNOHANG, NULL));
	if (kind == P_VALID && !r->err &&
	    (info.si_signo || info.si_errno || info.si_code || info.si_pid || info.si_uid ||
	     info.si_status))
		fail(r, "siginfo not zeroed: signo=%d code=%d pid=%d", info.si_signo,
		     info.si_code, info.si_pid);
	release_child(pid, release);
}

static void t_waitid_no_child(struct result *r, long unused)
{
	siginfo_t info;

	note(r, syscall(SYS_waitid, P_ALL, 0, &info, WEXITED | WNOHANG, NULL));
}

static void t_waitid_bad_options(struct result *r, long unused)
{
	siginfo_t info;

	note(r, syscall(SYS_waitid, P_ALL, 0, &info, 0, NULL));
}

/* ---- getdents64: each dirent is written in a user access region ---- */

static int dir_fd = -1;

static long getdents64_at(void *buf, size_t count)
{
	if (lseek(dir_fd, 0, SEEK_SET) != 0)
		die("lseek dir");
	return syscall(SYS_getdents64, dir_fd, buf, count);
}

struct dirent64_hdr {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static void t_getdents64(struct result *r, long kind)
{
	static char buf[4096] __attribute__((aligned(8)));
	long ret, off;
	int seen = 0;

	ret = note(r, getdents64_at(ptr_of(kind, buf), sizeof(buf)));
	if (kind != P_VALID || r->err)
		return;
	for (off = 0; off < ret; ) {
		struct dirent64_hdr *d = (void *)(buf + off);

		if (!strcmp(d->d_name, "a"))
			seen |= 1;
		else if (!strcmp(d->d_name, "bb"))
			seen |= 2;
		else if (!strcmp(d->d_name, "ccc"))
			seen |= 4;
		if (!d->d_reclen)
			break;
		off += d->d_reclen;
	}
	if (seen != 7 || off != ret)
		fail(r, "returned %ld bytes, names seen mask %#x, parsed %ld", ret, seen, off);
}

/*
 * Every name here is short: a dirent takes 24 bytes.  Two fit before the
 * hole, the third faults in the middle of the region: a short read.
 */
static void t_getdents64_straddle(struct result *r, long unused)
{
	struct dirent64_hdr *d = (void *)(EDGE - 48);
	long ret = note(r, getdents64_at(d, 4096));

	if (!r->err && (ret != 48 || d->d_reclen != 24))
		fail(r, "returned %ld, first reclen %u, want 48 and 24", ret, d->d_reclen);
}

static void t_getdents64_count(struct result *r, long count)
{
	static char buf[4096] __attribute__((aligned(8)));

	note(r, getdents64_at(buf, count));
}

/* ---- futex ---- */

static uint32_t fword, fword2;

static void t_futex_wait_value(struct result *r, long unused)
{
	fword = 1;
	note(r, futex(&fword, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0));
}

static void t_futex_wait_timeout(struct result *r, long unused)
{
	struct timespec ts = { 0, 1000000 };

	fword = 1;
	note(r, futex(&fword, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0));
}

static void t_futex_wait_ptr(struct result *r, long kind)
{
	note(r, futex(ptr_of(kind, &fword), FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0));
}

static void t_futex_wait_misaligned(struct result *r, long unused)
{
	note(r, futex((char *)&fword + 1, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0));
}

/* A page never touched: the first read in the kernel faults it in. */
static void t_futex_wait_fresh_page(struct result *r, long unused)
{
	void *page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (page == MAP_FAILED)
		die("mmap");
	note(r, futex(page, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0));
	munmap(page, PAGE);
}

static void t_futex_wake(struct result *r, long kind)
{
	long ret = note(r, futex(ptr_of(kind, &fword), FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0));

	if (!r->err && ret != 0)
		fail(r, "woke %ld, want 0", ret);
}

/* A shared futex's key needs the page; a private one only the address. */
static void t_futex_wake_shared(struct result *r, long kind)
{
	note(r, futex(ptr_of(kind, &fword), FUTEX_WAKE, 1, NULL, NULL, 0));
}

struct wake_op_case {
	int op;
	uint32_t oparg;
	uint32_t want;
};

#define WAKE_OP_OLD	0x5a
static const struct wake_op_case wake_ops[] = {
	{ FUTEX_OP_SET, 0x0f, 0x0f },
	{ FUTEX_OP_ADD, 0x0f, 0x69 },
	{ FUTEX_OP_OR, 0x0f, 0x5f },
	{ FUTEX_OP_ANDN, 0x0f, 0x50 },
	{ FUTEX_OP_XOR, 0x0f, 0x55 },
	{ FUTEX_OP_ADD | FUTEX_OP_OPARG_SHIFT, 4, 0x6a },
};

static void t_futex_wake_op(struct result *r, long i)
{
	const struct wake_op_case *c = &wake_ops[i];
	long ret;

	fword = 0;
	fword2 = WAKE_OP_OLD;
	ret = note(r, futex(&fword, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1UL, &fword2,
			    FUTEX_OP(c->op, c->oparg, FUTEX_OP_CMP_EQ, WAKE_OP_OLD)));
	if (!r->err && (ret != 0 || fword2 != c->want))
		fail(r, "returned %ld, word %#x, want 0 and %#x", ret, fword2, c->want);
}

static void t_futex_wake_op_uaddr2(struct result *r, long kind)
{
	void *p = kind == P_READONLY ? &RO_DATA->futex_word : ptr_of(kind, &fword2);

	note(r, futex(&fword, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1UL, p,
		      FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0)));
}

static void t_futex_wake_op_bad_op(struct result *r, long unused)
{
	fword2 = 0;
	note(r, futex(&fword, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1UL, &fword2,
		      FUTEX_OP(7, 1, FUTEX_OP_CMP_EQ, 0)));
}

static void t_futex_cmp_requeue(struct result *r, long val3)
{
	fword = 5;
	note(r, futex(&fword, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)1UL, &fword2, val3));
}

static void t_futex_cmp_requeue_uaddr1(struct result *r, long kind)
{
	note(r, futex(ptr_of(kind, &fword), FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)1UL,
		      &fword2, 0));
}

static void t_futex_cmp_requeue_uaddr2(struct result *r, long kind)
{
	fword = 0;
	note(r, futex(&fword, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)1UL,
		      ptr_of(kind, &fword2), 0));
}

static void t_futex_cmp_requeue_fresh_page(struct result *r, long unused)
{
	void *page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (page == MAP_FAILED)
		die("mmap");
	note(r, futex(page, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)1UL, &fword2, 0));
	munmap(page, PAGE);
}

/* A child waits on a shared word; requeue it to a second word, wake it there. */
static void t_futex_cmp_requeue_waiter(struct result *r, long unused)
{
	uint32_t *w = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct timespec pause = { 0, 1000000 };
	long requeued = 0, woken;
	pid_t pid;
	int i;

	if (w == MAP_FAILED)
		die("mmap");
	w[0] = 1;	/* the word the child waits on */
	w[1] = 0;	/* the word it is requeued to */
	w[2] = 0;	/* set when the child is about to wait */
	pid = fork_flushed();
	if (pid == 0) {
		__atomic_store_n(&w[2], 1, __ATOMIC_SEQ_CST);
		while (futex(&w[0], FUTEX_WAIT, 1, NULL, NULL, 0) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	while (!__atomic_load_n(&w[2], __ATOMIC_SEQ_CST))
		nanosleep(&pause, NULL);
	/* nr_wake 0, nr_requeue 1: retry until the child is queued (at most 5 s) */
	for (i = 0; i < 5000 && requeued == 0; i++) {
		requeued = note(r, futex(&w[0], FUTEX_CMP_REQUEUE, 0, (void *)1UL, &w[1], 1));
		if (requeued == 0)
			nanosleep(&pause, NULL);
	}
	woken = futex(&w[1], FUTEX_WAKE, 1, NULL, NULL, 0);
	if (requeued != 1 || woken != 1)
		fail(r, "requeued %ld, woken %ld, want 1 and 1", requeued, woken);
	if (woken != 1)
		kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	munmap(w, PAGE);
}

static void t_futex_lock_pi(struct result *r, long kind)
{
	uint32_t *p = kind == P_READONLY ? &RO_DATA->futex_word : ptr_of(kind, &fword);

	fword = 0;
	note(r, futex(p, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0));
	if (kind == P_VALID) {
		if (!r->err && fword != (uint32_t)gettid())
			fail(r, "word %#x after lock, want tid %#x", fword, gettid());
		if (futex(&fword, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0) < 0 || fword)
			fail(r, "unlock after lock: %s, word %#x", strerror(errno), fword);
	}
}

static void t_futex_lock_pi_deadlock(struct result *r, long unused)
{
	fword = gettid();
	note(r, futex(&fword, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0));
	fword = 0;
}

static void t_futex_unlock_pi(struct result *r, long kind)
{
	fword = gettid();
	note(r, futex(ptr_of(kind, &fword), FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0));
	if (kind == P_VALID && !r->err && fword != 0)
		fail(r, "word %#x after unlock, want 0", fword);
	fword = 0;
}

static void t_futex_unlock_pi_not_owner(struct result *r, long unused)
{
	fword = gettid() + 1;
	note(r, futex(&fword, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0));
	fword = 0;
}

struct robust_lock {
	struct robust_list list;
	uint32_t futex;
};

struct robust_shared {
	struct robust_list_head head;
	struct robust_lock lock;
};

/* A child dies holding a robust lock: the kernel marks it FUTEX_OWNER_DIED. */
static void t_futex_robust_owner_died(struct result *r, long unused)
{
	struct robust_shared *s = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid;

	if (s == MAP_FAILED)
		die("mmap");
	pid = fork_flushed();
	if (pid == 0) {
		s->head.list.next = &s->lock.list;
		s->lock.list.next = &s->head.list;
		s->head.futex_offset = offsetof(struct robust_lock, futex) -
				       offsetof(struct robust_lock, list);
		s->head.list_op_pending = NULL;
		s->lock.futex = gettid();
		if (syscall(SYS_set_robust_list, &s->head, sizeof(s->head)) < 0)
			_exit(errno);
		_exit(0);
	}
	reap_into(r, pid);
	if (!r->err && !r->sig && s->lock.futex != FUTEX_OWNER_DIED)
		fail(r, "word %#x after the owner died, want FUTEX_OWNER_DIED", s->lock.futex);
	munmap(s, PAGE);
}

/* A robust list head in the hole: exit walks nothing and the child exits. */
static void t_futex_robust_head(struct result *r, long kind)
{
	pid_t pid = fork_flushed();

	if (pid == 0) {
		if (syscall(SYS_set_robust_list, ptr_of(kind, NULL),
			    sizeof(struct robust_list_head)) < 0)
			_exit(errno);
		_exit(0);
	}
	reap_into(r, pid);
}

static void t_set_robust_list_len(struct result *r, long unused)
{
	struct robust_list_head head;

	note(r, syscall(SYS_set_robust_list, &head, sizeof(head) + 1));
}

static void t_get_robust_list_len_ptr(struct result *r, long kind)
{
	void *head;
	size_t len;

	note(r, syscall(SYS_get_robust_list, 0, &head, ptr_of(kind, &len)));
}

/* ---- sendmsg / recvmsg on a unix socketpair with control data ---- */

static int sk[2] = { -1, -1 };		/* SCM_RIGHTS */
static int skc[2] = { -1, -1 };		/* SO_PASSCRED on skc[1] */

union cmsg_fd {
	char buf[CMSG_SPACE(sizeof(int))];
	struct cmsghdr align;
};

static void fill_rights(union cmsg_fd *u, int fd)
{
	struct cmsghdr *c = &u->align;

	memset(u, 0, sizeof(*u));
	c->cmsg_len = CMSG_LEN(sizeof(int));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
}

static void drain_socket(void)
{
	char buf[64];

	while (recv(sk[1], buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		;
}

static long send_rights(int fd, enum ptr msg_kind, enum ptr ctl_kind, enum ptr iov_kind,
			enum ptr base_kind, struct result *r)
{
	char data = 'x';
	struct iovec iov = { ptr_of(base_kind, &data), 1 };
	union cmsg_fd u;
	struct msghdr msg = { 0 };
	void *ctl;

	fill_rights(&u, fd);
	if (ctl_kind == P_STRADDLE) {
		ctl = EDGE - 8;		/* the header half in, the fd in the hole */
		memcpy(ctl, u.buf, 8);
	} else {
		ctl = ptr_of(ctl_kind, u.buf);
	}
	msg.msg_iov = ptr_of(iov_kind, &iov);
	msg.msg_iovlen = 1;
	msg.msg_control = ctl;
	msg.msg_controllen = sizeof(u.buf);
	return note(r, syscall(SYS_sendmsg, sk[0], ptr_of(msg_kind, &msg), MSG_DONTWAIT));
}

static void t_sendmsg_msg(struct result *r, long kind)
{
	send_rights(watch_rfd, kind, P_VALID, P_VALID, P_VALID, r);
	drain_socket();
}

static void t_sendmsg_control(struct result *r, long kind)
{
	send_rights(watch_rfd, P_VALID, kind, P_VALID, P_VALID, r);
	drain_socket();
}

static void t_sendmsg_iov(struct result *r, long kind)
{
	send_rights(watch_rfd, P_VALID, P_VALID, kind, P_VALID, r);
	drain_socket();
}

static void t_sendmsg_iov_base(struct result *r, long kind)
{
	send_rights(watch_rfd, P_VALID, P_VALID, P_VALID, kind, r);
	drain_socket();
}

static void t_sendmsg_bad_fd(struct result *r, long unused)
{
	send_rights(999, P_VALID, P_VALID, P_VALID, P_VALID, r);
	drain_socket();
}

/* Sends one SCM_RIGHTS message for the receive checks; dies if it cannot. */
static void queue_rights(void)
{
	struct result scratch = { 0 };

	if (send_rights(watch_rfd, P_VALID, P_VALID, P_VALID, P_VALID, &scratch) != 1)
		die("sendmsg SCM_RIGHTS");
}

static void t_scm_rights_roundtrip(struct result *r, long unused)
{
	char data = 0;
	struct iovec iov = { &data, 1 };
	union cmsg_fd u;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	struct stat a, b;
	long ret;
	int fd;

	memset(&u, 0, sizeof(u));
	queue_rights();
	ret = note(r, syscall(SYS_recvmsg, sk[1], &msg, MSG_DONTWAIT));
	if (r->err)
		return;
	c = CMSG_FIRSTHDR(&msg);
	if (ret != 1 || data != 'x' || !c || c->cmsg_level != SOL_SOCKET ||
	    c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int))) {
		fail(r, "recvmsg returned %ld data %#x, cmsg %s", ret, data, c ? "wrong" : "missing");
		return;
	}
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (fstat(fd, &a) || fstat(watch_rfd, &b) || a.st_ino != b.st_ino)
		fail(r, "the received fd %d is not the pipe that was sent", fd);
	close(fd);
}

static void t_recvmsg_msg(struct result *r, long kind)
{
	queue_rights();
	note(r, syscall(SYS_recvmsg, sk[1], ptr_of(kind, NULL), MSG_DONTWAIT));
	drain_socket();
}

/*
 * A control buffer the kernel cannot write: the data still arrives, the
 * fd is not installed, and MSG_CTRUNC says the control data was lost.
 */
static void t_recvmsg_control(struct result *r, long kind)
{
	char data = 0;
	struct iovec iov = { &data, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ptr_of(kind, NULL),
			      .msg_controllen = CMSG_SPACE(sizeof(int)) };
	long ret;
	int probe;

	queue_rights();
	ret = note(r, syscall(SYS_recvmsg, sk[1], &msg, MSG_DONTWAIT));
	if (!r->err && (ret != 1 || !(msg.msg_flags & MSG_CTRUNC) || msg.msg_controllen != 0))
		fail(r, "returned %ld flags %#x controllen %zu, want 1, MSG_CTRUNC, 0",
		     ret, msg.msg_flags, (size_t)msg.msg_controllen);
	/* no fd may have been installed: the lowest free fd is unchanged */
	probe = dup(0);
	if (probe >= 0) {
		int probe2 = fcntl(0, F_DUPFD, 0);

		if (probe2 != probe + 1)
			fail(r, "an fd was installed (next free fd %d after %d)", probe2, probe);
		close(probe);
		if (probe2 >= 0)
			close(probe2);
	}
	drain_socket();
}

static void t_recvmsg_iov_base(struct result *r, long kind)
{
	struct iovec iov = { ptr_of(kind, NULL), 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	queue_rights();
	note(r, syscall(SYS_recvmsg, sk[1], &msg, MSG_DONTWAIT));
	drain_socket();
}

/* SO_PASSCRED: SCM_CREDENTIALS goes out through put_cmsg()'s region. */
static long recv_creds(struct result *r, void *control, size_t controllen,
		       struct msghdr *msg)
{
	char data = 'c';
	struct iovec iov = { &data, 1 };
	long ret;

	if (send(skc[0], &data, 1, MSG_DONTWAIT) != 1)
		die("send");
	memset(msg, 0, sizeof(*msg));
	msg->msg_iov = &iov;
	msg->msg_iovlen = 1;
	msg->msg_control = control;
	msg->msg_controllen = controllen;
	ret = note(r, syscall(SYS_recvmsg, skc[1], msg, MSG_DONTWAIT));
	msg->msg_iov = NULL;
	return ret;
}

static void t_recvmsg_creds(struct result *r, long kind)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct msghdr msg;
	struct cmsghdr *c;
	struct ucred cred;
	long ret;

	memset(&u, 0, sizeof(u));
	ret = recv_creds(r, ptr_of(kind, u.buf), sizeof(u.buf), &msg);
	if (r->err)
		return;
	if (kind != P_VALID) {
		/* put_cmsg() fails, recvmsg does not: no control data, no MSG_CTRUNC */
		if (ret != 1 || msg.msg_controllen != 0 || (msg.msg_flags & MSG_CTRUNC))
			fail(r, "returned %ld controllen %zu flags %#x, want 1, 0, no MSG_CTRUNC",
			     ret, (size_t)msg.msg_controllen, msg.msg_flags);
		return;
	}
	c = CMSG_FIRSTHDR(&msg);
	if (ret != 1 || !c || c->cmsg_type != SCM_CREDENTIALS ||
	    c->cmsg_len != CMSG_LEN(sizeof(cred))) {
		fail(r, "returned %ld, SCM_CREDENTIALS %s", ret, c ? "wrong" : "missing");
		return;
	}
	memcpy(&cred, CMSG_DATA(c), sizeof(cred));
	if (cred.pid != getpid() || cred.uid != getuid() || cred.gid != getgid())
		fail(r, "ucred pid=%d uid=%d gid=%d", cred.pid, cred.uid, cred.gid);
}

/* The cmsg header fits before the hole, the ucred does not. */
static void t_recvmsg_creds_straddle(struct result *r, long unused)
{
	struct cmsghdr *c = (void *)(EDGE - sizeof(struct cmsghdr));
	struct msghdr msg;
	long ret;

	memset(c, 0, sizeof(*c));
	ret = recv_creds(r, c, CMSG_SPACE(sizeof(struct ucred)), &msg);
	if (!r->err && (ret != 1 || msg.msg_controllen != 0))
		fail(r, "returned %ld controllen %zu, want 1 and 0", ret,
		     (size_t)msg.msg_controllen);
}

static void t_recvmsg_creds_short(struct result *r, long unused)
{
	char buf[8];
	struct msghdr msg;
	long ret = recv_creds(r, buf, sizeof(buf), &msg);

	if (!r->err && (ret != 1 || !(msg.msg_flags & MSG_CTRUNC)))
		fail(r, "returned %ld flags %#x, want 1 and MSG_CTRUNC", ret, msg.msg_flags);
}

/* ---- rseq: the kernel updates the area in a user access region ---- */

static struct rseq rs __attribute__((aligned(32)));
#define RSEQ_LEN	32
#define RSEQ_TEST_SIG	RSEQ_SIG

static long sys_rseq(void *area, uint32_t len, int flags, uint32_t sig)
{
	return syscall(SYS_rseq, area, len, flags, sig);
}

static void t_rseq_register(struct result *r, long unused)
{
	memset(&rs, 0, sizeof(rs));
	rs.cpu_id = RSEQ_CPU_ID_UNINITIALIZED;
	note(r, sys_rseq(&rs, RSEQ_LEN, 0, RSEQ_TEST_SIG));
	if (!r->err && (int32_t)rs.cpu_id < 0)
		fail(r, "cpu_id %d after registration", (int32_t)rs.cpu_id);
}

static void t_rseq_register_again(struct result *r, long unused)
{
	note(r, sys_rseq(&rs, RSEQ_LEN, 0, RSEQ_TEST_SIG));
}

static void t_rseq_register_other(struct result *r, long unused)
{
	static struct rseq other __attribute__((aligned(32)));

	note(r, sys_rseq(&other, RSEQ_LEN, 0, RSEQ_TEST_SIG));
}

static void t_rseq_unregister_sig(struct result *r, long unused)
{
	note(r, sys_rseq(&rs, RSEQ_LEN, RSEQ_FLAG_UNREGISTER, RSEQ_TEST_SIG + 1));
}

/* A critical section that does not contain the ip is cleared on a signal. */
static void t_rseq_cs_cleared(struct result *r, long unused)
{
	static uint32_t abort_area[2] = { RSEQ_TEST_SIG, 0 };
	static struct rseq_cs cs __attribute__((aligned(32)));

	cs.version = 0;
	cs.flags = 0;
	cs.start_ip = (uintptr_t)&abort_area[1];
	cs.post_commit_offset = 0;
	cs.abort_ip = (uintptr_t)&abort_area[1];
	rs.rseq_cs = (uintptr_t)&cs;
	r->err = 0;
	syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
	if (rs.rseq_cs != 0)
		fail(r, "rseq_cs %#llx after a signal, want 0", (unsigned long long)rs.rseq_cs);
	rs.rseq_cs = 0;
}

static void t_rseq_unregister(struct result *r, long unused)
{
	note(r, sys_rseq(&rs, RSEQ_LEN, RSEQ_FLAG_UNREGISTER, RSEQ_TEST_SIG));
}

static void t_rseq_unregister_none(struct result *r, long unused)
{
	note(r, sys_rseq(&rs, RSEQ_LEN, RSEQ_FLAG_UNREGISTER, RSEQ_TEST_SIG));
}

static void t_rseq_register_misaligned(struct result *r, long unused)
{
	note(r, sys_rseq((char *)&rs + 8, RSEQ_LEN, 0, RSEQ_TEST_SIG));
}

/*
 * Registration reads rseq_cs (and clears it when set), so an area it cannot
 * read fails with EFAULT.  An area it can read but not write passes
 * registration; the kernel writes cpu_id on the way back to user space
 * and kills the task with SIGSEGV when it cannot.  Run in a child either way.
 */
static void t_rseq_register_bad(struct result *r, long kind)
{
	pid_t pid = fork_flushed();

	if (pid == 0) {
		void *p = kind == P_READONLY ? RO + PAGE : ptr_of(kind, NULL);

		if (sys_rseq(p, RSEQ_LEN, 0, RSEQ_TEST_SIG) < 0)
			_exit(errno);
		_exit(0);
	}
	reap_into(r, pid);
}

/* A bad rseq_cs pointer kills the task at its next signal delivery. */
static void t_rseq_cs_bad(struct result *r, long kind)
{
	pid_t pid = fork_flushed();

	if (pid == 0) {
		memset(&rs, 0, sizeof(rs));
		if (sys_rseq(&rs, RSEQ_LEN, 0, RSEQ_TEST_SIG) < 0)
			_exit(errno);
		rs.rseq_cs = (uintptr_t)ptr_of(kind, NULL);
		syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
		_exit(0);
	}
	reap_into(r, pid);
}

/* ---- path lookup: getname() copies the string with strncpy_from_user() ---- */

/* Places s so that its last byte (its NUL, if with_nul) ends at EDGE - 1. */
static char *at_edge(const char *s, bool with_nul)
{
	size_t len = strlen(s) + (with_nul ? 1 : 0);
	char *p = EDGE - len;

	memcpy(p, s, len);
	return p;
}

static const char *path_of(long kind)
{
	static char too_long[PATH_MAX + 16];

	switch (kind) {
	case P_STRADDLE:	/* the NUL would be the first byte of the hole */
		return at_edge(FILE_PATH, false);
	case V_NUL_AT_EDGE:
		return at_edge(FILE_PATH, true);
	case V_EMPTY:
		return "";
	case V_TOO_LONG:
		memset(too_long, 'a', sizeof(too_long) - 1);
		too_long[0] = '/';
		return too_long;
	}
	return ptr_of(kind, FILE_PATH);
}

static void t_open_path(struct result *r, long kind)
{
	long fd = note(r, syscall(SYS_openat, AT_FDCWD, path_of(kind), O_RDONLY | O_CLOEXEC));

	if (fd >= 0)
		close(fd);
}

static void t_stat_path(struct result *r, long kind)
{
	struct stat st;

	note(r, syscall(SYS_newfstatat, AT_FDCWD, path_of(kind), &st, 0));
	if (!r->err && !S_ISREG(st.st_mode))
		fail(r, FILE_PATH " mode %#o is not a regular file", st.st_mode);
}

static void t_stat_buf(struct result *r, long kind)
{
	struct stat st;

	note(r, syscall(SYS_newfstatat, AT_FDCWD, FILE_PATH, ptr_of(kind, &st), 0));
}

/* ---- execve: argument strings are measured with strnlen_user() ---- */

static void t_execve(struct result *r, long what)
{
	pid_t pid = fork_flushed();

	if (pid == 0) {
		const char *argv[] = { "true", NULL };
		const char *envp[] = { NULL };
		const char *path = "/bin/busybox";
		const void *args = argv;

		switch (what) {
		case X_VALID:
			break;
		case X_FILENAME_FAULT:
			path = HOLE;
			break;
		case X_ARGV_FAULT:
			args = HOLE;
			break;
		case X_ARGV0_FAULT:
			argv[0] = HOLE;
			break;
		case X_ARGV0_KERNEL:
			argv[0] = KPTR;
			break;
		case X_ARGV0_STRADDLE:
			argv[0] = at_edge("tru", false);
			break;
		case X_ARGV0_NUL_AT_EDGE:
			argv[0] = at_edge("true", true);
			break;
		}
		syscall(SYS_execve, path, args, envp);
		_exit(errno);
	}
	reap_into(r, pid);
}

/* ---- openat2: copy_struct_from_user() checks the tail with check_zeroed_user() ---- */

static void t_openat2(struct result *r, long what)
{
	char big[64] __attribute__((aligned(8)));
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC };
	void *p = &how;
	size_t size = sizeof(how);
	long fd;

	memset(big, 0, sizeof(big));
	memcpy(big, &how, sizeof(how));
	switch (what) {
	case P_FAULT:
	case P_KERNEL:
	case P_NULL:
		p = ptr_of(what, NULL);
		break;
	case P_READONLY:
		p = &RO_DATA->how;
		break;
	case P_STRADDLE:	/* the struct fits, the zero tail is in the hole */
		p = EDGE - sizeof(how);
		memcpy(p, &how, sizeof(how));
		size = sizeof(big);
		break;
	case V_ZERO_TAIL:
		p = big;
		size = sizeof(big);
		break;
	case V_NONZERO_TAIL:
		big[sizeof(big) - 1] = 1;
		p = big;
		size = sizeof(big);
		break;
	case V_TOO_SMALL:
		size = 8;
		break;
	}
	fd = note(r, syscall(SYS_openat2, AT_FDCWD, "/", p, size));
	if (fd >= 0)
		close(fd);
}

/* ---- pipes, files and iovecs ---- */

static int pp[2] = { -1, -1 };
static int file_fd = -1;

static void drain_pipe(void)
{
	char buf[PAGE];

	while (read(pp[0], buf, sizeof(buf)) > 0)
		;
}

static void t_pipe_write(struct result *r, long kind)
{
	static const char data[200] = "pipe data";
	const void *p = kind == P_STRADDLE ? EDGE - 100 : ptr_of(kind, (void *)data);
	long ret = note(r, write(pp[1], p, sizeof(data)));

	if (kind == P_VALID && ret != sizeof(data))
		fail(r, "wrote %ld bytes, want %zu", ret, sizeof(data));
	drain_pipe();
}

static void t_pipe_read(struct result *r, long kind)
{
	char buf[200];
	void *p = kind == P_STRADDLE ? EDGE - 100 : ptr_of(kind, buf);
	long ret;

	if (kind == P_READONLY)
		p = RO + PAGE;
	if (write(pp[1], "0123456789", 10) != 10)
		die("write pipe");
	if (kind == P_STRADDLE) {
		/* 10 bytes land before the hole; read asks for 200 */
		ret = note(r, read(pp[0], p, sizeof(buf)));
		if (ret != 10 || memcmp(p, "0123456789", 10))
			fail(r, "read %ld bytes", ret);
	} else {
		ret = note(r, read(pp[0], p, sizeof(buf)));
		if (kind == P_VALID && ret != 10)
			fail(r, "read %ld bytes, want 10", ret);
	}
	drain_pipe();
}

/* A write that faults part way into a file keeps what came before the hole. */
static void t_file_write(struct result *r, long kind)
{
	const void *p = kind == P_STRADDLE ? EDGE - 100 : ptr_of(kind, "file data");
	size_t len = kind == P_STRADDLE ? 200 : 9;
	long ret;

	if (ftruncate(file_fd, 0) || lseek(file_fd, 0, SEEK_SET))
		die("truncate file");
	ret = note(r, write(file_fd, p, len));
	if (kind == P_STRADDLE && ret >= 0 && ret != 100)
		fail(r, "wrote %ld bytes, want the 100 before the hole", ret);
}

static void t_writev_iov(struct result *r, long kind)
{
	struct iovec iov[2] = { { "ab", 2 }, { "cd", 2 } };
	void *p = iov;
	long ret;

	if (kind == P_STRADDLE) {
		/* the first iovec in the good page, the second in the hole */
		p = EDGE - sizeof(struct iovec);
		memcpy(p, iov, sizeof(struct iovec));
	} else {
		p = ptr_of(kind, iov);
	}
	ret = note(r, syscall(SYS_writev, pp[1], p, 2));
	if (kind == P_VALID && ret != 4)
		fail(r, "wrote %ld bytes, want 4", ret);
	drain_pipe();
}

static void t_readv_iov(struct result *r, long kind)
{
	char a[4], b[4];
	struct iovec iov[2] = { { a, 2 }, { b, 2 } };

	if (write(pp[1], "abcd", 4) != 4)
		die("write pipe");
	note(r, syscall(SYS_readv, pp[0], ptr_of(kind, iov), 2));
	if (kind == P_VALID && !r->err && (memcmp(a, "ab", 2) || memcmp(b, "cd", 2)))
		fail(r, "readv scattered the wrong bytes");
	drain_pipe();
}

/* ---- signal delivery: the x86 signal frame is written in a region ---- */

static void t_signal_frame(struct result *r, long unused)
{
	int before = usr2_count;

	r->err = 0;
	syscall(SYS_tgkill, getpid(), gettid(), SIGUSR2);
	if (usr2_count != before + 1)
		fail(r, "handler ran %d times", usr2_count - before);
	else if (usr2_info.si_signo != SIGUSR2 || usr2_info.si_code != SI_TKILL ||
		 usr2_info.si_pid != getpid())
		fail(r, "siginfo signo=%d code=%d pid=%d", usr2_info.si_signo,
		     usr2_info.si_code, usr2_info.si_pid);
}

/* An alternate stack the kernel cannot write: delivery kills with SIGSEGV. */
static void t_signal_altstack(struct result *r, long kind)
{
	pid_t pid = fork_flushed();

	if (pid == 0) {
		stack_t ss = { .ss_size = HOLE_PAGES * PAGE };
		struct sigaction sa = { 0 };

		ss.ss_sp = kind == P_READONLY ? RO : ptr_of(kind, NULL);
		sa.sa_handler = SIG_DFL;
		if (syscall(SYS_sigaltstack, &ss, NULL) < 0)
			_exit(errno);
		sigaction(SIGUSR2, NULL, &sa);
		sa.sa_flags |= SA_ONSTACK;
		sigaction(SIGUSR2, &sa, NULL);
		syscall(SYS_tgkill, getpid(), gettid(), SIGUSR2);
		_exit(0);
	}
	reap_into(r, pid);
}

static void t_sigaltstack_ptr(struct result *r, long which)
{
	stack_t ss = { .ss_flags = SS_DISABLE };
	stack_t old;
	enum ptr kind = which & 0xff;

	if (which & 0x100)
		note(r, syscall(SYS_sigaltstack, NULL, ptr_of(kind, &old)));
	else
		note(r, syscall(SYS_sigaltstack, ptr_of(kind, &ss), NULL));
}

/* ---- the table ---- */

#define OLD	0x100	/* sigaltstack: the old_ss argument */
#define C(n, f, a, e)		{ n, f, a, e, 0 }
#define KILLED(n, f, a, s)	{ n, f, a, 0, s }
/* Killed by s on one kernel, failing with errno e on another. */
#define KILLED_OR(n, f, a, s, e)	{ n, f, a, 0, s, e }

static const struct check checks[] = {
	C("pselect6.argpack.valid", t_pselect6_argpack, P_VALID, 0),
	C("pselect6.argpack.null", t_pselect6_argpack, P_NULL, 0),
	C("pselect6.argpack.fault", t_pselect6_argpack, P_FAULT, EFAULT),
	C("pselect6.argpack.kernel_ptr", t_pselect6_argpack, P_KERNEL, EFAULT),
	C("pselect6.argpack.straddle", t_pselect6_argpack, P_STRADDLE, EFAULT),
	C("pselect6.argpack.readonly", t_pselect6_argpack, P_READONLY, 0),
	C("pselect6.sigset.null", t_pselect6_sigset, P_NULL, 0),
	C("pselect6.sigset.fault", t_pselect6_sigset, P_FAULT, EFAULT),
	C("pselect6.sigset.kernel_ptr", t_pselect6_sigset, P_KERNEL, EFAULT),
	C("pselect6.sigset.bad_size", t_pselect6_sigset_size, 4, EINVAL),
	C("pselect6.sigset.applied", t_pselect6_sigset_applied, 0, EINTR),
	C("pselect6.fdset.valid", t_pselect6_fdset, P_VALID, 0),
	C("pselect6.fdset.fault", t_pselect6_fdset, P_FAULT, EFAULT),
	C("pselect6.fdset.kernel_ptr", t_pselect6_fdset, P_KERNEL, EFAULT),
	C("pselect6.fdset.readonly", t_pselect6_fdset, P_READONLY, EFAULT),
	C("pselect6.timeout.fault", t_pselect6_timeout, P_FAULT, EFAULT),
	C("pselect6.timeout.kernel_ptr", t_pselect6_timeout, P_KERNEL, EFAULT),

	C("ppoll.fds.valid", t_ppoll_fds, P_VALID, 0),
	C("ppoll.fds.fault", t_ppoll_fds, P_FAULT, EFAULT),
	C("ppoll.fds.kernel_ptr", t_ppoll_fds, P_KERNEL, EFAULT),
	C("ppoll.fds.null", t_ppoll_fds, P_NULL, EFAULT),
	C("ppoll.fds.readonly", t_ppoll_fds, P_READONLY, EFAULT),
	C("ppoll.fds.straddle", t_ppoll_fds, P_STRADDLE, EFAULT),
	C("ppoll.sigmask.fault", t_ppoll_sigmask, P_FAULT, EFAULT),
	C("ppoll.sigmask.kernel_ptr", t_ppoll_sigmask, P_KERNEL, EFAULT),

	C("waitid.infop.valid", t_waitid_infop, P_VALID, 0),
	C("waitid.infop.null", t_waitid_infop, P_NULL, 0),
	C("waitid.infop.fault", t_waitid_infop, P_FAULT, EFAULT),
	C("waitid.infop.kernel_ptr", t_waitid_infop, P_KERNEL, EFAULT),
	C("waitid.infop.readonly", t_waitid_infop, P_READONLY, EFAULT),
	C("waitid.infop.straddle", t_waitid_infop, P_STRADDLE, EFAULT),
	C("waitid.infop.tail_in_hole", t_waitid_infop_tail_in_hole, 0, 0),
	C("waitid.rusage.null", t_waitid_rusage, P_NULL, 0),
	C("waitid.rusage.fault", t_waitid_rusage, P_FAULT, EFAULT),
	C("waitid.rusage.kernel_ptr", t_waitid_rusage, P_KERNEL, EFAULT),
	C("waitid.rusage.readonly", t_waitid_rusage, P_READONLY, EFAULT),
	C("waitid.wnohang_running.valid", t_waitid_wnohang_running, P_VALID, 0),
	C("waitid.wnohang_running.fault", t_waitid_wnohang_running, P_FAULT, EFAULT),
	C("waitid.wnohang_running.kernel_ptr", t_waitid_wnohang_running, P_KERNEL, EFAULT),
	C("waitid.no_child", t_waitid_no_child, 0, ECHILD),
	C("waitid.bad_options", t_waitid_bad_options, 0, EINVAL),

	C("getdents64.valid", t_getdents64, P_VALID, 0),
	C("getdents64.fault", t_getdents64, P_FAULT, EFAULT),
	C("getdents64.kernel_ptr", t_getdents64, P_KERNEL, EFAULT),
	C("getdents64.null", t_getdents64, P_NULL, EFAULT),
	C("getdents64.readonly", t_getdents64, P_READONLY, EFAULT),
	C("getdents64.straddle", t_getdents64_straddle, 0, 0),
	C("getdents64.count_too_small", t_getdents64_count, 1, EINVAL),

	C("futex.wait.wrong_value", t_futex_wait_value, 0, EAGAIN),
	C("futex.wait.timeout", t_futex_wait_timeout, 0, ETIMEDOUT),
	C("futex.wait.fault", t_futex_wait_ptr, P_FAULT, EFAULT),
	C("futex.wait.kernel_ptr", t_futex_wait_ptr, P_KERNEL, EFAULT),
	C("futex.wait.null", t_futex_wait_ptr, P_NULL, EFAULT),
	C("futex.wait.misaligned", t_futex_wait_misaligned, 0, EINVAL),
	C("futex.wait.fresh_page", t_futex_wait_fresh_page, 0, EAGAIN),
	C("futex.wake.no_waiters", t_futex_wake, P_VALID, 0),
	C("futex.wake.fault", t_futex_wake, P_FAULT, 0),
	C("futex.wake.kernel_ptr", t_futex_wake, P_KERNEL, EFAULT),
	C("futex.wake.null", t_futex_wake, P_NULL, 0),
	C("futex.wake_shared.no_waiters", t_futex_wake_shared, P_VALID, 0),
	C("futex.wake_shared.fault", t_futex_wake_shared, P_FAULT, EFAULT),
	C("futex.wake_shared.kernel_ptr", t_futex_wake_shared, P_KERNEL, EFAULT),
	C("futex.wake_op.set", t_futex_wake_op, 0, 0),
	C("futex.wake_op.add", t_futex_wake_op, 1, 0),
	C("futex.wake_op.or", t_futex_wake_op, 2, 0),
	C("futex.wake_op.andn", t_futex_wake_op, 3, 0),
	C("futex.wake_op.xor", t_futex_wake_op, 4, 0),
	C("futex.wake_op.add_oparg_shift", t_futex_wake_op, 5, 0),
	C("futex.wake_op.bad_op", t_futex_wake_op_bad_op, 0, ENOSYS),
	C("futex.wake_op.uaddr2.fault", t_futex_wake_op_uaddr2, P_FAULT, EFAULT),
	C("futex.wake_op.uaddr2.kernel_ptr", t_futex_wake_op_uaddr2, P_KERNEL, EFAULT),
	C("futex.wake_op.uaddr2.null", t_futex_wake_op_uaddr2, P_NULL, EFAULT),
	C("futex.wake_op.uaddr2.readonly", t_futex_wake_op_uaddr2, P_READONLY, EFAULT),
	C("futex.cmp_requeue.match", t_futex_cmp_requeue, 5, 0),
	C("futex.cmp_requeue.mismatch", t_futex_cmp_requeue, 6, EAGAIN),
	C("futex.cmp_requeue.uaddr1.fault", t_futex_cmp_requeue_uaddr1, P_FAULT, EFAULT),
	C("futex.cmp_requeue.uaddr1.kernel_ptr", t_futex_cmp_requeue_uaddr1, P_KERNEL, EFAULT),
	C("futex.cmp_requeue.uaddr2.kernel_ptr", t_futex_cmp_requeue_uaddr2, P_KERNEL, EFAULT),
	C("futex.cmp_requeue.fresh_page", t_futex_cmp_requeue_fresh_page, 0, 0),
	C("futex.cmp_requeue.waiter", t_futex_cmp_requeue_waiter, 0, 0),
	C("futex.lock_pi.valid", t_futex_lock_pi, P_VALID, 0),
	C("futex.lock_pi.deadlock", t_futex_lock_pi_deadlock, 0, EDEADLK),
	C("futex.lock_pi.fault", t_futex_lock_pi, P_FAULT, EFAULT),
	C("futex.lock_pi.kernel_ptr", t_futex_lock_pi, P_KERNEL, EFAULT),
	C("futex.lock_pi.readonly", t_futex_lock_pi, P_READONLY, EFAULT),
	C("futex.unlock_pi.valid", t_futex_unlock_pi, P_VALID, 0),
	C("futex.unlock_pi.not_owner", t_futex_unlock_pi_not_owner, 0, EPERM),
	C("futex.unlock_pi.fault", t_futex_unlock_pi, P_FAULT, EFAULT),
	C("futex.unlock_pi.kernel_ptr", t_futex_unlock_pi, P_KERNEL, EFAULT),
	C("futex.robust.owner_died", t_futex_robust_owner_died, 0, 0),
	C("futex.robust.head.fault", t_futex_robust_head, P_FAULT, 0),
	C("futex.robust.head.kernel_ptr", t_futex_robust_head, P_KERNEL, 0),
	C("futex.set_robust_list.bad_len", t_set_robust_list_len, 0, EINVAL),
	C("futex.get_robust_list.len_ptr.fault", t_get_robust_list_len_ptr, P_FAULT, EFAULT),
	C("futex.get_robust_list.len_ptr.kernel_ptr", t_get_robust_list_len_ptr, P_KERNEL, EFAULT),

	C("sendmsg.msg.fault", t_sendmsg_msg, P_FAULT, EFAULT),
	C("sendmsg.msg.kernel_ptr", t_sendmsg_msg, P_KERNEL, EFAULT),
	C("sendmsg.msg.null", t_sendmsg_msg, P_NULL, EFAULT),
	C("sendmsg.control.fault", t_sendmsg_control, P_FAULT, EFAULT),
	C("sendmsg.control.kernel_ptr", t_sendmsg_control, P_KERNEL, EFAULT),
	C("sendmsg.control.null", t_sendmsg_control, P_NULL, EFAULT),
	C("sendmsg.control.straddle", t_sendmsg_control, P_STRADDLE, EFAULT),
	C("sendmsg.iov.fault", t_sendmsg_iov, P_FAULT, EFAULT),
	C("sendmsg.iov.kernel_ptr", t_sendmsg_iov, P_KERNEL, EFAULT),
	C("sendmsg.iov_base.fault", t_sendmsg_iov_base, P_FAULT, EFAULT),
	C("sendmsg.iov_base.kernel_ptr", t_sendmsg_iov_base, P_KERNEL, EFAULT),
	C("sendmsg.scm_rights.bad_fd", t_sendmsg_bad_fd, 0, EBADF),
	C("recvmsg.scm_rights.valid", t_scm_rights_roundtrip, 0, 0),
	C("recvmsg.msg.fault", t_recvmsg_msg, P_FAULT, EFAULT),
	C("recvmsg.msg.kernel_ptr", t_recvmsg_msg, P_KERNEL, EFAULT),
	C("recvmsg.msg.null", t_recvmsg_msg, P_NULL, EFAULT),
	C("recvmsg.scm_rights.control.fault", t_recvmsg_control, P_FAULT, 0),
	C("recvmsg.scm_rights.control.kernel_ptr", t_recvmsg_control, P_KERNEL, 0),
	C("recvmsg.scm_rights.control.readonly", t_recvmsg_control, P_READONLY, 0),
	C("recvmsg.iov_base.fault", t_recvmsg_iov_base, P_FAULT, EFAULT),
	C("recvmsg.iov_base.kernel_ptr", t_recvmsg_iov_base, P_KERNEL, EFAULT),
	C("recvmsg.creds.valid", t_recvmsg_creds, P_VALID, 0),
	C("recvmsg.creds.control.fault", t_recvmsg_creds, P_FAULT, 0),
	C("recvmsg.creds.control.kernel_ptr", t_recvmsg_creds, P_KERNEL, 0),
	C("recvmsg.creds.control.readonly", t_recvmsg_creds, P_READONLY, 0),
	C("recvmsg.creds.control.straddle", t_recvmsg_creds_straddle, 0, 0),
	C("recvmsg.creds.control.short", t_recvmsg_creds_short, 0, 0),

	C("rseq.register.valid", t_rseq_register, 0, 0),
	C("rseq.register.again", t_rseq_register_again, 0, EBUSY),
	C("rseq.register.other_area", t_rseq_register_other, 0, EINVAL),
	C("rseq.unregister.wrong_sig", t_rseq_unregister_sig, 0, EPERM),
	C("rseq.cs.cleared_outside", t_rseq_cs_cleared, 0, 0),
	C("rseq.unregister.valid", t_rseq_unregister, 0, 0),
	C("rseq.unregister.not_registered", t_rseq_unregister_none, 0, EINVAL),
	C("rseq.register.misaligned", t_rseq_register_misaligned, 0, EINVAL),
	C("rseq.register.kernel_ptr", t_rseq_register_bad, P_KERNEL, EFAULT),
	C("rseq.register.fault", t_rseq_register_bad, P_FAULT, EFAULT),
	C("rseq.register.null", t_rseq_register_bad, P_NULL, EFAULT),
	/*
	 * A read-only area is never used: 6.12's sys_rseq() only reads it, the
	 * registration succeeds and the task dies writing cpu_id on its way
	 * back to user space; 7.3's rseq_register() writes the IDs in the
	 * syscall and returns EFAULT.
	 */
	KILLED_OR("rseq.register.readonly", t_rseq_register_bad, P_READONLY, SIGSEGV, EFAULT),
	KILLED("rseq.cs.fault", t_rseq_cs_bad, P_FAULT, SIGSEGV),
	KILLED("rseq.cs.kernel_ptr", t_rseq_cs_bad, P_KERNEL, SIGSEGV),

	C("open.path.valid", t_open_path, P_VALID, 0),
	C("open.path.fault", t_open_path, P_FAULT, EFAULT),
	C("open.path.kernel_ptr", t_open_path, P_KERNEL, EFAULT),
	C("open.path.null", t_open_path, P_NULL, EFAULT),
	C("open.path.straddle", t_open_path, P_STRADDLE, EFAULT),
	C("open.path.nul_at_edge", t_open_path, V_NUL_AT_EDGE, 0),
	C("open.path.empty", t_open_path, V_EMPTY, ENOENT),
	C("open.path.too_long", t_open_path, V_TOO_LONG, ENAMETOOLONG),
	C("stat.path.valid", t_stat_path, P_VALID, 0),
	C("stat.path.fault", t_stat_path, P_FAULT, EFAULT),
	C("stat.path.kernel_ptr", t_stat_path, P_KERNEL, EFAULT),
	C("stat.path.null", t_stat_path, P_NULL, EFAULT),
	C("stat.path.straddle", t_stat_path, P_STRADDLE, EFAULT),
	C("stat.path.nul_at_edge", t_stat_path, V_NUL_AT_EDGE, 0),
	C("stat.buf.fault", t_stat_buf, P_FAULT, EFAULT),
	C("stat.buf.kernel_ptr", t_stat_buf, P_KERNEL, EFAULT),
	C("stat.buf.readonly", t_stat_buf, P_READONLY, EFAULT),
	C("execve.valid", t_execve, X_VALID, 0),
	C("execve.filename.fault", t_execve, X_FILENAME_FAULT, EFAULT),
	C("execve.argv.fault", t_execve, X_ARGV_FAULT, EFAULT),
	C("execve.argv0.fault", t_execve, X_ARGV0_FAULT, EFAULT),
	C("execve.argv0.kernel_ptr", t_execve, X_ARGV0_KERNEL, EFAULT),
	C("execve.argv0.straddle", t_execve, X_ARGV0_STRADDLE, EFAULT),
	C("execve.argv0.nul_at_edge", t_execve, X_ARGV0_NUL_AT_EDGE, 0),
	C("openat2.how.valid", t_openat2, P_VALID, 0),
	C("openat2.how.fault", t_openat2, P_FAULT, EFAULT),
	C("openat2.how.kernel_ptr", t_openat2, P_KERNEL, EFAULT),
	C("openat2.how.null", t_openat2, P_NULL, EFAULT),
	C("openat2.how.readonly", t_openat2, P_READONLY, 0),
	C("openat2.how.tail_in_hole", t_openat2, P_STRADDLE, EFAULT),
	C("openat2.how.zero_tail", t_openat2, V_ZERO_TAIL, 0),
	C("openat2.how.nonzero_tail", t_openat2, V_NONZERO_TAIL, E2BIG),
	C("openat2.how.too_small", t_openat2, V_TOO_SMALL, EINVAL),

	C("pipe.write.valid", t_pipe_write, P_VALID, 0),
	C("pipe.write.fault", t_pipe_write, P_FAULT, EFAULT),
	C("pipe.write.kernel_ptr", t_pipe_write, P_KERNEL, EFAULT),
	C("pipe.write.null", t_pipe_write, P_NULL, EFAULT),
	/* pipe_write() drops a page it could not fill: nothing was written */
	C("pipe.write.straddle", t_pipe_write, P_STRADDLE, EFAULT),
	C("pipe.read.valid", t_pipe_read, P_VALID, 0),
	C("pipe.read.fault", t_pipe_read, P_FAULT, EFAULT),
	C("pipe.read.kernel_ptr", t_pipe_read, P_KERNEL, EFAULT),
	C("pipe.read.null", t_pipe_read, P_NULL, EFAULT),
	C("pipe.read.readonly", t_pipe_read, P_READONLY, EFAULT),
	C("pipe.read.straddle", t_pipe_read, P_STRADDLE, 0),
	C("file.write.valid", t_file_write, P_VALID, 0),
	C("file.write.fault", t_file_write, P_FAULT, EFAULT),
	C("file.write.kernel_ptr", t_file_write, P_KERNEL, EFAULT),
	C("file.write.straddle", t_file_write, P_STRADDLE, 0),
	C("writev.iov.valid", t_writev_iov, P_VALID, 0),
	C("writev.iov.fault", t_writev_iov, P_FAULT, EFAULT),
	C("writev.iov.kernel_ptr", t_writev_iov, P_KERNEL, EFAULT),
	C("writev.iov.straddle", t_writev_iov, P_STRADDLE, EFAULT),
	C("readv.iov.valid", t_readv_iov, P_VALID, 0),
	C("readv.iov.fault", t_readv_iov, P_FAULT, EFAULT),
	C("readv.iov.null", t_readv_iov, P_NULL, EFAULT),

	C("signal.frame.valid", t_signal_frame, 0, 0),
	KILLED("signal.altstack.fault", t_signal_altstack, P_FAULT, SIGSEGV),
	KILLED("signal.altstack.kernel_ptr", t_signal_altstack, P_KERNEL, SIGSEGV),
	KILLED("signal.altstack.readonly", t_signal_altstack, P_READONLY, SIGSEGV),
	C("sigaltstack.ss.fault", t_sigaltstack_ptr, P_FAULT, EFAULT),
	C("sigaltstack.ss.kernel_ptr", t_sigaltstack_ptr, P_KERNEL, EFAULT),
	C("sigaltstack.old_ss.fault", t_sigaltstack_ptr, OLD | P_FAULT, EFAULT),
	C("sigaltstack.old_ss.kernel_ptr", t_sigaltstack_ptr, OLD | P_KERNEL, EFAULT),
	C("sigaltstack.old_ss.readonly", t_sigaltstack_ptr, OLD | P_READONLY, EFAULT),
};

#define NCHECKS	(sizeof(checks) / sizeof(checks[0]))

/* ---- setup ---- */

static void on_usr1(int sig)
{
	usr1_count++;
}

static void on_usr2(int sig, siginfo_t *info, void *uc)
{
	usr2_info = *info;
	usr2_count++;
}

/*
 * glibc registers its own rseq area at startup, and a thread has only one:
 * run again with glibc's registration turned off.
 */
static void without_glibc_rseq(char **argv)
{
	if (__rseq_size == 0)
		return;
	if (getenv("UACCESS_REEXEC")) {
		printf("Bail out! glibc registered rseq despite glibc.pthread.rseq=0\n");
		exit(2);
	}
	setenv("GLIBC_TUNABLES", "glibc.pthread.rseq=0", 1);
	setenv("UACCESS_REEXEC", "1", 1);
	execv("/proc/self/exe", argv);
	die("execv /proc/self/exe");
}

static void setup_arena(void)
{
	unsigned char vec;
	size_t size = (1 + HOLE_PAGES + RO_PAGES) * PAGE;
	char *p = mmap(ARENA, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p != ARENA)
		die("mmap arena");
	if (munmap(HOLE, HOLE_PAGES * PAGE))
		die("munmap hole");
	RO_DATA->pack.p = &empty_set;
	RO_DATA->pack.size = KSIGSET_SIZE;
	RO_DATA->pfd.fd = watch_rfd;
	RO_DATA->pfd.events = POLLIN;
	FD_ZERO(&RO_DATA->rfds);
	FD_SET(WATCH_FD, &RO_DATA->rfds);
	RO_DATA->futex_word = 0;
	RO_DATA->how.flags = O_RDONLY | O_CLOEXEC;
	if (mprotect(RO, RO_PAGES * PAGE, PROT_READ))
		die("mprotect");
	if (mincore(HOLE, PAGE, &vec) == 0 || errno != ENOMEM)
		die("the hole is mapped");
}

static void setup(void)
{
	struct sigaction sa = { 0 };
	int fds[2];
	int one = 1;

	sigemptyset(&empty_set);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_sigaction = on_usr2;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR2, &sa, NULL);

	if (pipe(fds) || dup2(fds[0], WATCH_FD) != WATCH_FD)
		die("watch pipe");
	close(fds[0]);
	watch_rfd = WATCH_FD;
	watch_wfd = fds[1];
	if (pipe2(pp, O_NONBLOCK))
		die("pipe");
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sk) || socketpair(AF_UNIX, SOCK_DGRAM, 0, skc))
		die("socketpair");
	if (setsockopt(skc[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)))
		die("SO_PASSCRED");

	mkdir("/tmp", 0755);
	mkdir(DIR_PATH, 0755);
	for (const char *const *n = (const char *const[]){ "a", "bb", "ccc", NULL }; *n; n++) {
		char path[64];
		int fd;

		snprintf(path, sizeof(path), DIR_PATH "/%s", *n);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			die(path);
		close(fd);
	}
	dir_fd = open(DIR_PATH, O_RDONLY | O_DIRECTORY);
	if (dir_fd < 0)
		die(DIR_PATH);
	file_fd = open(FILE_PATH, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (file_fd < 0)
		die(FILE_PATH);
	setup_arena();
}

/* ---- output ---- */

static const char *errno_name(int err)
{
	static char buf[16];
	const char *name = err ? strerrorname_np(err) : "0";

	if (name)
		return name;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

static void outcome_text(char *buf, size_t size, int err, int sig)
{
	if (sig)
		snprintf(buf, size, "signal=SIG%s", sigabbrev_np(sig) ?: "?");
	else
		snprintf(buf, size, "errno=%s", errno_name(err));
}

static int run_checks(int first)
{
	int failed = 0;

	for (size_t i = 0; i < NCHECKS; i++) {
		const struct check *c = &checks[i];
		struct result r = { 0 };
		char got[32], want[32];
		bool ok;

		c->fn(&r, c->arg);
		outcome_text(got, sizeof(got), r.err, r.sig);
		outcome_text(want, sizeof(want), c->err, c->sig);
		ok = ((r.err == c->err && r.sig == c->sig) ||
		      (c->or_err && r.err == c->or_err && !r.sig)) && !r.why[0];
		if (!ok) {
			failed++;
			if (strcmp(got, want))
				printf("# %s: expected %s, got %s\n", c->name, want, got);
			if (r.why[0])
				printf("# %s: %s\n", c->name, r.why);
		}
		printf("%sok %zu %s # %s\n", ok ? "" : "not ", first + i, c->name, got);
		fflush(stdout);
	}
	return failed;
}

/* ---- benchmarks ---- */

struct bench {
	const char *name;
	const char *what;
	long (*fn)(void);
};

static struct sigset_argpack bench_pack = { &empty_set, KSIGSET_SIZE };
static pid_t bench_child;
static siginfo_t bench_info;
static char bench_dirents[4096] __attribute__((aligned(8)));

static long b_pselect6(void)
{
	return pselect6_pack(&bench_pack, NULL, 0, &zero_ts);
}

static long b_futex_wake(void)
{
	return futex(&fword, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static long b_waitid(void)
{
	return syscall(SYS_waitid, P_PID, bench_child, &bench_info, WEXITED | WNOHANG, NULL);
}

static long b_getdents64(void)
{
	if (lseek(dir_fd, 0, SEEK_SET) != 0)
		return -1;
	return syscall(SYS_getdents64, dir_fd, bench_dirents, sizeof(bench_dirents));
}

static const struct bench benches[] = {
	{ "pselect6", "pselect6() with a sigset argpack, zero timeout", b_pselect6 },
	{ "futex_wake", "FUTEX_WAKE_PRIVATE with no waiters", b_futex_wake },
	{ "waitid", "waitid(WNOHANG) on a running child: writes a zeroed siginfo", b_waitid },
	{ "getdents64", "lseek() and getdents64() of a directory of 3 files", b_getdents64 },
};

#define NBENCHES	(sizeof(benches) / sizeof(benches[0]))

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int run_benches(int first, long iterations)
{
	int release, failed = 0;

	bench_child = running_child(&release);
	for (size_t i = 0; i < NBENCHES; i++) {
		const struct bench *b = &benches[i];
		long errors = 0, warmup = iterations / 10 + 1;
		double t0, t1;
		uint64_t c0, c1;

		for (long n = 0; n < warmup; n++)
			b->fn();
		t0 = now_ns();
		c0 = __rdtsc();
		for (long n = 0; n < iterations; n++)
			errors += b->fn() < 0;
		c1 = __rdtsc();
		t1 = now_ns();
		printf("# bench.%s: %s\n", b->name, b->what);
		printf("# bench %s iterations=%ld ns_per_call=%.1f tsc_per_call=%.1f\n", b->name,
		       iterations, (t1 - t0) / iterations, (double)(c1 - c0) / iterations);
		if (errors)
			printf("# bench %s: %ld calls failed\n", b->name, errors);
		failed += errors != 0;
		printf("%sok %zu bench.%s\n", errors ? "not " : "", first + i, b->name);
		fflush(stdout);
	}
	release_child(bench_child, release);
	return failed;
}

/* ---- main ---- */

enum mode { M_TEST, M_BENCH, M_ALL, M_LIST };

static long parse_count(const char *s)
{
	char *end;
	long n = s ? strtol(s, &end, 10) : 0;

	if (!s || *end || n <= 0) {
		fprintf(stderr, "uaccess_syscalls: bad iteration count '%s'\n", s ? s : "");
		exit(2);
	}
	return n;
}

static void usage(void)
{
	fprintf(stderr, "usage: uaccess_syscalls [--bench N | --all N | --list]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *env_mode = getenv("UACCESS_MODE");
	enum mode mode = M_TEST;
	long iterations = 1000;
	struct utsname u;
	int failed = 0, total;

	if (getenv("UACCESS_ITERATIONS"))
		iterations = parse_count(getenv("UACCESS_ITERATIONS"));
	if (env_mode && !strcmp(env_mode, "bench"))
		mode = M_BENCH;
	else if (env_mode && !strcmp(env_mode, "all"))
		mode = M_ALL;
	else if (env_mode && strcmp(env_mode, "test"))
		usage();
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		mode = M_LIST;
	} else if (argc == 3 && !strcmp(argv[1], "--bench")) {
		mode = M_BENCH;
		iterations = parse_count(argv[2]);
	} else if (argc == 3 && !strcmp(argv[1], "--all")) {
		mode = M_ALL;
		iterations = parse_count(argv[2]);
	} else if (argc != 1) {
		usage();
	}
	if (mode == M_LIST) {
		for (size_t i = 0; i < NCHECKS; i++)
			printf("%s\n", checks[i].name);
		return 0;
	}

	without_glibc_rseq(argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	total = (mode != M_BENCH ? NCHECKS : 0) + (mode != M_TEST ? NBENCHES : 0);
	printf("KTAP version 1\n1..%d\n", total);
	uname(&u);
	printf("# uaccess_syscalls: kernel %s %s\n", u.release, u.version);
	setup();
	if (mode != M_BENCH)
		failed += run_checks(1);
	if (mode != M_TEST)
		failed += run_benches(mode == M_ALL ? NCHECKS + 1 : 1, iterations);
	printf("# uaccess_syscalls: %d of %d failed\n", failed, total);
	return failed ? 1 : 0;
}
