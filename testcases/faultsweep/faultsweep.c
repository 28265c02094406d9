// SPDX-License-Identifier: GPL-2.0
/*
 * faultsweep - walk a page boundary through every user object of the
 * syscalls whose kernel paths open user access regions
 *
 * For each path (a syscall and one of its user objects) the object is put
 * at a page boundary: its first `mapped` bytes lie in mapped memory, the
 * rest in an unmapped page.  `mapped` goes from the whole object down to
 * nothing in steps of the region's smallest accessor, so each accessor of
 * the region is in turn the first one to fault.  The same walk is made
 * against the top of the user address space (the object runs past
 * TASK_SIZE), and the object pointer is also a kernel address (and on
 * x86_64 a non-canonical one).
 *
 * Every call gives one record line:
 *
 *   # sweep <path> <arch> pos=<walk>:<mapped> ret=<r> errno=<E> data=<map> state=<s>
 *
 *   walk   hole (unmapped page above), top (end of the address space),
 *          or pos=kernel / pos=noncanon / pos=beyond (no data)
 *   data   one character per chunk (the step, or a word where the step
 *          is a byte or a frame alignment) of the mapped part of the
 *          object, run-length encoded ("G4." is "GGGG."):
 *            .  unchanged (still the sentinel or input bytes)
 *            G  what the call writes with the whole object mapped
 *            x  changed, but to something else
 *            w  changed (frames, whose content depends on where they are)
 *          volatile bytes (pids, inode numbers, times) only count as
 *          changed or not
 *   state  what the syscall left behind where it has one: signal mask,
 *          file offset, futex word, installed fds, whether a child is
 *          still waitable, and for calls run in a child how it ended
 *
 * Nothing in a record depends on addresses, pids or times, so two runs on
 * one kernel print identical lines, and a baseline and a converted kernel
 * of the same configuration can be compared line by line.  Paths the
 * kernel or the architecture lacks print `# sweep-skip <path> <arch>
 * reason=...`; the others `# sweep-region <path> <arch> <file:function...>`,
 * the user access regions the walk reaches, before their records; the
 * last line is `# sweep-done`.
 *
 * Build (static, for the initramfs):
 *   gcc -static -O2 -Wall -Werror -o faultsweep-x86_64 faultsweep.c
 *   gcc -m32 -static -O2 -Wall -Werror -idirafter /usr/include/x86_64-linux-gnu \
 *       -o faultsweep-i386 faultsweep.c
 * (Debian's gcc-multilib has no asm/ headers of its own for -m32; the
 * x86 uapi ones serve both.)
 *   powerpc64le-linux-gnu-gcc -static -O2 -Wall -Werror -o faultsweep-ppc64le faultsweep.c
 *
 * Usage: faultsweep [PATH-PREFIX...]   (default: every path)
 *        faultsweep --list
 * Run as root it mounts a private tmpfs (own mount namespace) so inode
 * numbers and directory offsets are the same in every run.  As PID 1 it
 * mounts /proc, /dev and /tmp itself, runs the sweep in a child and
 * powers off, so it can be the /init of an initramfs without a shell.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/io_uring.h>
#include <linux/openat2.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH		"x86_64"
#define ARENA_ADDR	0x200000000UL
#define KPTR		0xffffffff81000000UL
#define NONCANON	0xdead000000000000UL	/* non-canonical at 4 and 5 levels */
#define FRAME_STEP	64	/* the fpstate is 64-byte aligned, the frame below it */
#elif defined(__i386__)
#define ARCH		"i386"
#define ARENA_ADDR	0x50000000UL
#define BEYOND		0xfffff000UL	/* above TASK_SIZE of a compat task */
#define FRAME_STEP	64
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARCH		"ppc64le"
#define ARENA_ADDR	0x200000000UL
#define KPTR		0xc000000000000000UL	/* PAGE_OFFSET, the linear map */
#define FRAME_STEP	16	/* get_sigframe() aligns the frame to 16 */
#else
#error "faultsweep: x86_64, i386 or ppc64le"
#endif

/* Not in bookworm's 6.1 uapi headers. */
#ifndef IORING_OP_WAITID
#define IORING_OP_WAITID	50
#endif
#ifndef SYS_openat2
#define SYS_openat2		437
#endif

#define SENTINEL	0xa5
#define ARENA_BYTES	(64 * 1024)	/* mapped memory below each boundary */
#define MAX_OBJ		(8 * 1024)
#define KSIGSET		8		/* the kernel's sigset_t */
#define RSEQ_SIG	0x53053053

/* Flags of a path. */
#define F_CHILD		0x1	/* the call runs in a forked child */
#define F_NOREF		0x2	/* compare with the sentinel only ('w') */

struct mask {
	size_t off, len;	/* volatile bytes of the object */
};

/* One position of a walk and what the call did there. */
struct run {
	const char *pos;	/* "hole", "top", "kernel", "noncanon", "beyond" */
	unsigned char *obj;	/* the object (a bad pointer for the last three) */
	size_t mapped;		/* bytes of the object before the boundary */
	bool full;		/* mapped == size: the reference run */
	unsigned long arg;	/* the argument sweep: the value of the argument */
	long ret;
	int err;
	char state[200];
};

/* Index of this binary's arch in struct path's regions[]. */
#if defined(__x86_64__)
#define ARCH_IDX	0
#elif defined(__i386__)
#define ARCH_IDX	1
#else
#define ARCH_IDX	2
#endif

struct path {
	const char *name;
	/* what it reaches, in the 6.12 tree, in words (--list) */
	const char *region;
	/*
	 * The user access regions (open-coded or scoped, as file:function,
	 * space-separated; a syscall's function is its symbol, sys_waitid,
	 * compat_sys_waitid, as the converter names it in conversion.json)
	 * whose accessors the walk makes fault, per arch:
	 * x86_64, i386 (compat syscalls), ppc64le; NULL is "as x86_64", ""
	 * none (the path reaches copy_{from,to}_user() only).  Printed as
	 * `# sweep-region`, for the report's coverage of converted regions.
	 */
	const char *regions[3];
	size_t size;		/* the object */
	size_t step;		/* the boundary moves by this much */
	size_t chunk;		/* data map granularity (default: step) */
	unsigned int flags;
	const struct mask *masks;	/* ends with {0, 0} */
	/* NULL, or why the path is skipped here */
	const char *(*setup)(const struct path *p);
	/* the object's content before the call (default: sentinel) */
	void (*fill)(unsigned char *obj);
	/* the syscall: returns its result, -1 with errno for an error */
	long (*call)(struct run *r);
};

/* Results of a call made in a child, and of a sigreturn's landing. */
struct shared {
	long ret;
	int err;
	int landed;
	char state[200];
};

static struct shared *shared;
static unsigned char *hole_end;		/* first byte of the unmapped page */
static unsigned char *top_end;		/* TASK_SIZE: end of the highest page */
static const char *top_skip;		/* why there is no top walk */
static char **self_argv;		/* for a re-exec */
static size_t page;
static char base[128];			/* our directory */
static char dir_path[192], file_path[192];
static int dir_fd = -1, file_fd = -1;
static int ready_rfd, ready_wfd;	/* a pipe with data in it */
static int empty_rfd, empty_wfd;	/* a pipe without */
static int sock[2];			/* unix datagram pair, SO_PASSCRED */
static int sock_rights[2];		/* unix datagram pair without it */
static unsigned char ref[MAX_OBJ];	/* the object after the full hole run */
static unsigned char pre[MAX_OBJ];	/* the object before the call */
static unsigned long nrecords, npaths, nskipped;

/* Errno names: the records must not depend on strerror()'s wording. */
static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "0";
	case EFAULT: return "EFAULT";
	case EINVAL: return "EINVAL";
	case E2BIG: return "E2BIG";
	case ENOSYS: return "ENOSYS";
	case EAGAIN: return "EAGAIN";
	case EINTR: return "EINTR";
	case EPERM: return "EPERM";
	case ENOMEM: return "ENOMEM";
	case ECHILD: return "ECHILD";
	case EBADF: return "EBADF";
	case EBUSY: return "EBUSY";
	case ENOENT: return "ENOENT";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case ENOTDIR: return "ENOTDIR";
	case ESRCH: return "ESRCH";
	case EDEADLK: return "EDEADLK";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	}
	snprintf(buf, sizeof(buf), "%d", e);
	return buf;
}

static const char *signame(int sig)
{
	static char buf[16];

	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGILL: return "SIGILL";
	case SIGKILL: return "SIGKILL";
	case SIGABRT: return "SIGABRT";
	case SIGTRAP: return "SIGTRAP";
	case SIGSYS: return "SIGSYS";
	}
	snprintf(buf, sizeof(buf), "SIG%d", sig);
	return buf;
}

/* One line, one write(): a kernel message cannot split it. */
static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
	char line[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(1, line, n) < 0)
		_exit(3);
}

static void die(const char *what)
{
	out("# sweep-error %s %s: %s", ARCH, what, strerror(errno));
	exit(2);
}

/* Runs the state recorders after a syscall without losing its errno. */
#define KEEP_ERRNO(stmt)	do { int e_ = errno; stmt; errno = e_; } while (0)

static void addstate(struct run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void addstate(struct run *r, const char *fmt, ...)
{
	size_t n = strlen(r->state);
	va_list ap;

	if (n && n < sizeof(r->state) - 1)
		r->state[n++] = ',';
	va_start(ap, fmt);
	vsnprintf(r->state + n, sizeof(r->state) - n, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------------ */
/* State helpers */

static unsigned long long get_sigmask(void)
{
	unsigned long long m = 0;

	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &m, KSIGSET);
	return m;
}

static void set_sigmask(unsigned long long m)
{
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &m, NULL, KSIGSET);
}

#define SIGBIT(s)	(1ULL << ((s) - 1))

static void put_sigmask_state(struct run *r)
{
	addstate(r, "mask=%llx", get_sigmask());
	set_sigmask(0);
}

static int pipe_bytes(int fd)
{
	int n = 0;

	if (ioctl(fd, FIONREAD, &n) < 0)
		return -1;
	return n;
}

static void drain(int fd)
{
	char buf[256];

	while (pipe_bytes(fd) > 0)
		if (read(fd, buf, sizeof(buf)) <= 0)
			break;
}

static void refill(int wfd, int rfd, int n)
{
	char buf[64];

	drain(rfd);
	memset(buf, 'd', sizeof(buf));
	if (write(wfd, buf, n) != n)
		die("refill");
}

/* ------------------------------------------------------------------ */
/* pselect6: fs/select.c get_sigset_argpack() (scoped read region since
 * the series), compat: compat_get_sigset_argpack(); the fd_set goes
 * through copy_from_user()/copy_to_user(), for compat tasks through
 * kernel/compat.c compat_get_bitmap()/compat_put_bitmap(). */

struct argpack {
	const void *p;
	size_t size;
};

#define FDSET_BYTES	16	/* fds 0..127 */
#define READY_FD	20
#define EMPTY_FD	100

static unsigned long long blocked_usr2 = SIGBIT(SIGUSR2);
static unsigned char good_fdset[FDSET_BYTES];
static long zero_ts[2];		/* timespec {0, 0}; old_timespec32 on i386 */

static void fill_bits(unsigned char *set)
{
	memset(set, 0, FDSET_BYTES);
	set[READY_FD / 8] |= 1 << (READY_FD % 8);
	set[EMPTY_FD / 8] |= 1 << (EMPTY_FD % 8);
}

static const char *setup_fds(const struct path *p)
{
	(void)p;
	fill_bits(good_fdset);
	return NULL;
}

static void fill_argpack(unsigned char *obj)
{
	struct argpack a = { &blocked_usr2, KSIGSET };

	memcpy(obj, &a, sizeof(a));
}

static long call_pselect_argpack(struct run *r)
{
	unsigned char set[FDSET_BYTES];
	long ret;

	memcpy(set, good_fdset, sizeof(set));
	ret = syscall(SYS_pselect6, FDSET_BYTES * 8, set, NULL, NULL, zero_ts, r->obj);
	KEEP_ERRNO(put_sigmask_state(r));
	return ret;
}

static long call_pselect_fdset(struct run *r)
{
	struct argpack a = { &blocked_usr2, KSIGSET };
	long ret;

	ret = syscall(SYS_pselect6, FDSET_BYTES * 8, r->obj, NULL, NULL, zero_ts, &a);
	KEEP_ERRNO(put_sigmask_state(r));
	return ret;
}

static void fill_sigmask(unsigned char *obj)
{
	memcpy(obj, &blocked_usr2, KSIGSET);
}

static long call_pselect_sigmask(struct run *r)
{
	struct argpack a = { r->obj, KSIGSET };
	unsigned char set[FDSET_BYTES];
	long ret;

	memcpy(set, good_fdset, sizeof(set));
	ret = syscall(SYS_pselect6, FDSET_BYTES * 8, set, NULL, NULL, zero_ts, &a);
	KEEP_ERRNO(put_sigmask_state(r));
	return ret;
}

/* ------------------------------------------------------------------ */
/* ppoll: fs/select.c do_sys_poll() writes each revents back in a write
 * region; the array is read with copy_from_user(), the sigmask with
 * set_user_sigmask(). */

#define NPOLL	4

static void fill_pollfds(unsigned char *obj)
{
	struct pollfd fds[NPOLL] = {
		{ READY_FD, POLLIN, 0x5a5a },
		{ EMPTY_FD, POLLIN, 0x5a5a },
		{ -1, POLLIN, 0x5a5a },
		{ ready_wfd, POLLOUT, 0x5a5a },
	};

	memcpy(obj, fds, sizeof(fds));
}

static long call_ppoll_fds(struct run *r)
{
	long ret;

	ret = syscall(SYS_ppoll, r->obj, NPOLL, zero_ts, &blocked_usr2, KSIGSET);
	KEEP_ERRNO(put_sigmask_state(r));
	return ret;
}

static long call_ppoll_sigmask(struct run *r)
{
	struct pollfd fds[NPOLL];
	long ret;

	fill_pollfds((unsigned char *)fds);
	ret = syscall(SYS_ppoll, fds, NPOLL, zero_ts, r->obj, KSIGSET);
	KEEP_ERRNO(put_sigmask_state(r));
	return ret;
}

/* ------------------------------------------------------------------ */
/* waitid: kernel/exit.c SYSCALL_DEFINE5(waitid) and COMPAT waitid write
 * the siginfo in a write region (scoped since the series); the rusage
 * goes through copy_to_user() (put_compat_rusage() for compat). */

static pid_t zombie(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0)
		_exit(42);
	return pid;
}

static void reaped_state(struct run *r, pid_t pid)
{
	siginfo_t si;
	long ret;

	memset(&si, 0, sizeof(si));
	ret = syscall(SYS_waitid, P_PID, pid, &si, WEXITED | WNOHANG, NULL);
	addstate(r, "child=%s", ret < 0 && errno == ECHILD ? "reaped" : "left");
	if (ret == 0)
		waitpid(pid, NULL, 0);
}

static const struct mask siginfo_masks[] = {
	{ offsetof(siginfo_t, si_pid), sizeof(pid_t) },
	{ 0, 0 },
};

static const struct mask all_masked[] = {
	{ 0, MAX_OBJ },
	{ 0, 0 },
};

static long call_waitid_infop(struct run *r)
{
	struct rusage ru;
	pid_t pid = zombie();
	long ret;

	ret = syscall(SYS_waitid, P_PID, pid, r->obj, WEXITED, &ru);
	KEEP_ERRNO(reaped_state(r, pid));
	return ret;
}

static long call_waitid_rusage(struct run *r)
{
	siginfo_t si;
	pid_t pid = zombie();
	long ret;

	ret = syscall(SYS_waitid, P_PID, pid, &si, WEXITED, r->obj);
	KEEP_ERRNO(reaped_state(r, pid));
	return ret;
}

/* ------------------------------------------------------------------ */
/* io_uring IORING_OP_WAITID: io_uring/waitid.c io_waitid_copy_si() (write
 * region) and io_waitid_compat_copy_si() (scoped since the series) for a
 * ring set up by a compat task.  Raw syscalls, no liburing. */

static struct {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
} ring = { .fd = -1 };

static const char *setup_io_uring(const struct path *p)
{
	struct io_uring_params prm;
	unsigned char *sq, *cq;

	(void)p;
	if (ring.fd >= 0)
		return NULL;
	memset(&prm, 0, sizeof(prm));
	ring.fd = syscall(SYS_io_uring_setup, 4, &prm);
	if (ring.fd < 0)
		return errno == ENOSYS ? "no-io_uring" : "io_uring_setup-failed";
	sq = mmap(NULL, prm.sq_off.array + prm.sq_entries * sizeof(unsigned int),
		  PROT_READ | PROT_WRITE, MAP_SHARED, ring.fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, prm.cq_off.cqes + prm.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED, ring.fd, IORING_OFF_CQ_RING);
	ring.sqes = mmap(NULL, prm.sq_entries * sizeof(struct io_uring_sqe),
			 PROT_READ | PROT_WRITE, MAP_SHARED, ring.fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || ring.sqes == MAP_FAILED)
		die("io_uring mmap");
	ring.sq_tail = (unsigned int *)(sq + prm.sq_off.tail);
	ring.sq_mask = (unsigned int *)(sq + prm.sq_off.ring_mask);
	ring.sq_array = (unsigned int *)(sq + prm.sq_off.array);
	ring.cq_head = (unsigned int *)(cq + prm.cq_off.head);
	ring.cq_tail = (unsigned int *)(cq + prm.cq_off.tail);
	ring.cq_mask = (unsigned int *)(cq + prm.cq_off.ring_mask);
	ring.cqes = (struct io_uring_cqe *)(cq + prm.cq_off.cqes);
	return NULL;
}

/* Submits one SQE and waits for its completion: returns its res. */
static int uring_do(const struct io_uring_sqe *sqe)
{
	unsigned int tail = *ring.sq_tail, idx = tail & *ring.sq_mask, head;
	int res;

	ring.sqes[idx] = *sqe;
	ring.sq_array[idx] = idx;
	__atomic_store_n(ring.sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, ring.fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		die("io_uring_enter");
	head = *ring.cq_head;
	if (head == __atomic_load_n(ring.cq_tail, __ATOMIC_ACQUIRE))
		die("io_uring: no completion");
	res = ring.cqes[head & *ring.cq_mask].res;
	__atomic_store_n(ring.cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

static long call_uring_waitid(struct run *r)
{
	struct io_uring_sqe sqe;
	pid_t pid = zombie();
	int res;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_WAITID;
	sqe.fd = pid;
	sqe.len = P_PID;
	sqe.file_index = WEXITED;
	sqe.addr2 = (unsigned long)r->obj;
	res = uring_do(&sqe);
	reaped_state(r, pid);
	if (res < 0) {
		errno = -res;
		return -1;
	}
	return res;
}

/* IORING_OP_SENDMSG: io_uring/net.c io_msg_copy_hdr() reads the msghdr in
 * a region (compat rings: io_compat_msg_copy_hdr(), copy_from_user()). */

static struct iovec send_iov = { "s", 1 };

static void fill_msghdr(unsigned char *obj)
{
	struct msghdr m = { .msg_iov = &send_iov, .msg_iovlen = 1 };

	memcpy(obj, &m, sizeof(m));
}

static long call_uring_sendmsg(struct run *r)
{
	struct io_uring_sqe sqe;
	char buf[8];
	int res;
	long got;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_SENDMSG;
	sqe.fd = sock[0];
	sqe.addr = (unsigned long)r->obj;
	sqe.len = 1;
	res = uring_do(&sqe);
	got = recv(sock[1], buf, sizeof(buf), MSG_DONTWAIT);
	addstate(r, "received=%ld", got < 0 ? 0L : got);
	if (res < 0) {
		errno = -res;
		return -1;
	}
	return res;
}

/* ------------------------------------------------------------------ */
/* Directories: fs/readdir.c filldir() (getdents), filldir64()
 * (getdents64), compat_filldir() and compat_fillonedir() (compat
 * getdents and readdir; the 64-bit arches here have no readdir
 * syscall).  The directory is on a private tmpfs: inode numbers and
 * offsets are the same in every run. */

#define DIRBUF	160	/* "." ".." and four names do not all fit */

static const char *const names[] = {
	"a", "bb", "ccc-file", "dddd-longer-name-04",
};

static long dir_state(struct run *r, long ret)
{
	int e = errno;

	addstate(r, "off=%lld", (long long)lseek(dir_fd, 0, SEEK_CUR));
	errno = e;
	return ret;
}

static long call_getdents(struct run *r)
{
	lseek(dir_fd, 0, SEEK_SET);
	return dir_state(r, syscall(SYS_getdents, dir_fd, r->obj, DIRBUF));
}

static long call_getdents64(struct run *r)
{
	lseek(dir_fd, 0, SEEK_SET);
	return dir_state(r, syscall(SYS_getdents64, dir_fd, r->obj, DIRBUF));
}

static const char *setup_readdir(const struct path *p)
{
	(void)p;
#ifdef SYS_readdir
	unsigned char tmp[300];

	/* ppc64 has the number, for 32-bit tasks only */
	lseek(dir_fd, 0, SEEK_SET);
	if (syscall(SYS_readdir, dir_fd, tmp, 1) == 1)
		return NULL;
#endif
	return "no-readdir-syscall";
}

static long call_readdir(struct run *r)
{
#ifdef SYS_readdir
	/* the third entry: fillonedir() writes one dirent per call */
	lseek(dir_fd, 0, SEEK_SET);
	for (int i = 0; i < 2; i++) {
		unsigned char tmp[300];

		if (syscall(SYS_readdir, dir_fd, tmp, 1) != 1)
			die("readdir");
	}
	return dir_state(r, syscall(SYS_readdir, dir_fd, r->obj, 1));
#else
	(void)r;
	errno = ENOSYS;
	return -1;
#endif
}

/* ------------------------------------------------------------------ */
/* iovec arrays: lib/iov_iter.c copy_iovec_from_user() and
 * copy_compat_iovec_from_user() (access regions), through readv(),
 * writev() and process_vm_readv(). */

#define NIOV	4
#define IOVLEN	4

static char iov_bufs[NIOV][IOVLEN];
static char remote[NIOV * IOVLEN] = "0123456789abcdef";

static void fill_iov(unsigned char *obj)
{
	struct iovec iov[NIOV];

	for (int i = 0; i < NIOV; i++) {
		iov[i].iov_base = iov_bufs[i];
		iov[i].iov_len = IOVLEN;
	}
	memcpy(obj, iov, sizeof(iov));
}

static void fill_remote_iov(unsigned char *obj)
{
	struct iovec iov[NIOV];

	for (int i = 0; i < NIOV; i++) {
		iov[i].iov_base = remote + i * IOVLEN;
		iov[i].iov_len = IOVLEN;
	}
	memcpy(obj, iov, sizeof(iov));
}

static long call_readv(struct run *r)
{
	long ret;

	refill(ready_wfd, READY_FD, NIOV * IOVLEN);
	ret = syscall(SYS_readv, READY_FD, r->obj, NIOV);
	KEEP_ERRNO(addstate(r, "left=%d", pipe_bytes(READY_FD));
		   refill(ready_wfd, READY_FD, 1));
	return ret;
}

static long call_writev(struct run *r)
{
	long ret;

	drain(empty_rfd);
	ret = syscall(SYS_writev, empty_wfd, r->obj, NIOV);
	KEEP_ERRNO(addstate(r, "pipe=%d", pipe_bytes(empty_rfd));
		   drain(empty_rfd));
	return ret;
}

static const char *setup_cma(const struct path *p)
{
	char c;
	struct iovec l = { &c, 1 }, rv = { remote, 1 };

	(void)p;
	if (syscall(SYS_process_vm_readv, getpid(), &l, 1, &rv, 1, 0) != 1)
		return errno == ENOSYS ? "no-CROSS_MEMORY_ATTACH" : "process_vm_readv-failed";
	return NULL;
}

static long cma_state(struct run *r, long ret)
{
	unsigned int sum = 0;

	for (int i = 0; i < NIOV; i++)
		for (int j = 0; j < IOVLEN; j++)
			sum = sum * 31 + (unsigned char)iov_bufs[i][j];
	KEEP_ERRNO(addstate(r, "sum=%08x", sum));
	memset(iov_bufs, 0, sizeof(iov_bufs));
	return ret;
}

static long call_cma_lvec(struct run *r)
{
	struct iovec rv = { remote, sizeof(remote) };

	memset(iov_bufs, 0, sizeof(iov_bufs));
	return cma_state(r, syscall(SYS_process_vm_readv, getpid(), r->obj, NIOV, &rv, 1, 0));
}

static long call_cma_rvec(struct run *r)
{
	struct iovec lv[NIOV];

	fill_iov((unsigned char *)lv);
	memset(iov_bufs, 0, sizeof(iov_bufs));
	return cma_state(r, syscall(SYS_process_vm_readv, getpid(), lv, NIOV, r->obj, NIOV, 0));
}

/* ------------------------------------------------------------------ */
/* recvmsg control data: net/core/scm.c put_cmsg() (scoped since the
 * series) for SCM_CREDENTIALS, scm_detach_fds() (put_user()) for
 * SCM_RIGHTS; compat tasks: net/compat.c put_cmsg_compat() and
 * scm_detach_fds_compat(), copy_to_user(). */

#define RIGHTS_SPACE	CMSG_SPACE(2 * sizeof(int))
#define CREDS_SPACE	CMSG_SPACE(sizeof(struct ucred))

static const struct mask creds_masks[] = {
	{ CMSG_LEN(0) + offsetof(struct ucred, pid), sizeof(pid_t) },
	{ 0, 0 },
};

static void send_one(int fd, bool rights)
{
	char ctl[RIGHTS_SPACE];
	struct iovec iov = { "m", 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (rights) {
		struct cmsghdr *c = (struct cmsghdr *)ctl;
		int fds[2] = { empty_rfd, empty_wfd };

		memset(ctl, 0, sizeof(ctl));
		m.msg_control = ctl;
		m.msg_controllen = sizeof(ctl);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(fds));
		memcpy(CMSG_DATA(c), fds, sizeof(fds));
	}
	if (sendmsg(fd, &m, 0) != 1)
		die("sendmsg");
}

/* Closes and counts the fds a recvmsg installed: they are the lowest free. */
static int close_new_fds(int first)
{
	int n = 0;

	for (int fd = first; fd < first + 8; fd++)
		if (fcntl(fd, F_GETFD) >= 0 && fd != READY_FD && fd != EMPTY_FD) {
			close(fd);
			n++;
		}
	return n;
}

static int lowest_free_fd(void)
{
	int fd = dup(0);

	close(fd);
	return fd;
}

static long recv_into(struct run *r, size_t space, bool rights)
{
	char data;
	struct iovec iov = { &data, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	int first = lowest_free_fd();
	long ret;
	int e;

	/* credentials would come first and take the room of the fds */
	int *pair = rights ? sock_rights : sock;

	send_one(pair[0], rights);
	m.msg_control = r->obj;
	m.msg_controllen = space;
	ret = syscall(SYS_recvmsg, pair[1], &m, 0);
	e = errno;
	addstate(r, "flags=%x,clen=%lu", m.msg_flags, (unsigned long)m.msg_controllen);
	if (rights)
		addstate(r, "newfds=%d", close_new_fds(first));
	errno = e;
	return ret;
}

static long call_recv_rights(struct run *r)
{
	return recv_into(r, RIGHTS_SPACE, true);
}

static long call_recv_creds(struct run *r)
{
	return recv_into(r, CREDS_SPACE, false);
}

/* ------------------------------------------------------------------ */
/* rseq: kernel/rseq.c rseq_update_cpu_node_id() writes the area in a
 * write region on the way back to user space after registration; a
 * fault there kills the task.  rseq_len 64 (a registration may be
 * longer than 32 bytes when 32-byte aligned), so the boundary can cut it
 * at 32. */

#define RSEQ_LEN	64

static const struct mask rseq_masks[] = {
	{ 0, 8 },	/* cpu_id_start, cpu_id */
	{ 20, 8 },	/* node_id, mm_cid */
	{ 0, 0 },
};

static const char *setup_rseq(const struct path *p)
{
	(void)p;
	/* glibc's registration is switched off by the re-exec in main() */
	if (syscall(SYS_rseq, NULL, 0, 1 /* unregister */, RSEQ_SIG) == 0)
		return "rseq-registered-by-libc";
	if (errno == ENOSYS)
		return "no-rseq";
	return NULL;
}

static void fill_rseq(unsigned char *obj)
{
	memset(obj, SENTINEL, RSEQ_LEN);
	memset(obj + 8, 0, 12);		/* rseq_cs and flags: none */
}

static long call_rseq(struct run *r)
{
	long ret = syscall(SYS_rseq, r->obj, RSEQ_LEN, 0, RSEQ_SIG);

	/* the area has been written when the syscall returned */
	KEEP_ERRNO(addstate(r, "alive"));
	return ret;
}

/* ------------------------------------------------------------------ */
/* futex: arch_futex_atomic_op_inuser() (x86: scoped rw region since the
 * series; powerpc: asm/futex.h rw region) through FUTEX_WAKE_OP on
 * uaddr2, futex_atomic_cmpxchg_inatomic() through FUTEX_LOCK_PI and
 * FUTEX_UNLOCK_PI. */

static uint32_t futex_other;

static const struct mask tid_masks[] = {
	{ 0, 4 },
	{ 0, 0 },
};

static void fill_word(unsigned char *obj, uint32_t v)
{
	memcpy(obj, &v, 4);
}

static void fill_41(unsigned char *obj)
{
	fill_word(obj, 41);
}

static void fill_zero(unsigned char *obj)
{
	fill_word(obj, 0);
}

static void fill_tid(unsigned char *obj)
{
	fill_word(obj, (uint32_t)syscall(SYS_gettid));
}

/* The futex word after the call; a PI lock word is named, not printed. */
static void word_state(struct run *r, bool pi)
{
	uint32_t v;

	if (r->mapped < 4)
		return;
	memcpy(&v, r->obj, 4);
	if (!pi)
		addstate(r, "word=%x", v);
	else if (v == (uint32_t)syscall(SYS_gettid))
		addstate(r, "word=tid");
	else if (v == ((uint32_t)syscall(SYS_gettid) | FUTEX_WAITERS))
		addstate(r, "word=tid|waiters");
	else
		addstate(r, "word=%x", v);
}

static long call_wake_op(struct run *r)
{
	long ret = syscall(SYS_futex, &futex_other, FUTEX_WAKE_OP, 1, 1, r->obj,
			   FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0));

	KEEP_ERRNO(word_state(r, false));
	return ret;
}

/*
 * An uncontended PI lock is the TID in the word and nothing in the kernel:
 * the lock is left taken, so the data map shows the word the kernel wrote.
 */
static long call_lock_pi(struct run *r)
{
	long ret = syscall(SYS_futex, r->obj, FUTEX_LOCK_PI, 0, NULL, NULL, 0);

	KEEP_ERRNO(word_state(r, true));
	return ret;
}

static long call_unlock_pi(struct run *r)
{
	long ret = syscall(SYS_futex, r->obj, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);

	KEEP_ERRNO(word_state(r, true));
	return ret;
}

/* ------------------------------------------------------------------ */
/* copy_struct_from_user(): lib/usercopy.c check_zeroed_user() reads the
 * tail beyond the struct the kernel knows in a read region, through
 * sched_setattr() and openat2(). */

/* include/uapi/linux/sched/types.h, SCHED_ATTR_SIZE_VER1 */
struct sched_attr {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t sched_util_min, sched_util_max;
};

#define ATTR_SIZE	(sizeof(struct sched_attr) + 64)
#define HOW_SIZE	(sizeof(struct open_how) + 40)

static void fill_attr(unsigned char *obj)
{
	struct sched_attr a = { .size = ATTR_SIZE, .sched_policy = SCHED_OTHER };

	memset(obj, 0, ATTR_SIZE);
	memcpy(obj, &a, sizeof(a));
}

static void fill_attr_nz(unsigned char *obj)
{
	fill_attr(obj);
	obj[ATTR_SIZE - 1] = 1;
}

static long call_sched_setattr(struct run *r)
{
	long ret = syscall(SYS_sched_setattr, 0, r->obj, 0);
	int e = errno;

	addstate(r, "nice=%d", getpriority(PRIO_PROCESS, 0));
	errno = e;
	return ret;
}

static void fill_how(unsigned char *obj)
{
	struct open_how h = { .flags = O_RDONLY | O_DIRECTORY };

	memset(obj, 0, HOW_SIZE);
	memcpy(obj, &h, sizeof(h));
}

static void fill_how_nz(unsigned char *obj)
{
	fill_how(obj);
	obj[HOW_SIZE - 1] = 1;
}

static long call_openat2(struct run *r)
{
	long ret = syscall(SYS_openat2, AT_FDCWD, dir_path, r->obj, HOW_SIZE);

	if (ret >= 0)
		KEEP_ERRNO(close(ret));
	return ret;
}

/* ------------------------------------------------------------------ */
/* mempolicy nodemasks: mm/mempolicy.c get_nodes()/copy_nodes_to_user();
 * for compat tasks kernel/compat.c compat_get_bitmap() and
 * compat_put_bitmap() (access regions). */

#define NODEMASK_BYTES	16
#define MAXNODE		(NODEMASK_BYTES * 8 + 1)
#define MPOL_DEFAULT	0
#define MPOL_PREFERRED	1

static const char *setup_mempolicy(const struct path *p)
{
	int mode;

	(void)p;
	if (syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 0) < 0)
		return errno == ENOSYS ? "no-NUMA" : "get_mempolicy-failed";
	return NULL;
}

static void fill_node0(unsigned char *obj)
{
	memset(obj, 0, NODEMASK_BYTES);
	obj[0] = 1;
}

static void mode_state(struct run *r)
{
	int mode = -1;

	syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 0);
	addstate(r, "mode=%d", mode);
	syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0);
}

static long call_set_mempolicy(struct run *r)
{
	long ret = syscall(SYS_set_mempolicy, MPOL_PREFERRED, r->obj, MAXNODE);
	int e = errno;

	mode_state(r);
	errno = e;
	return ret;
}

static long call_get_mempolicy(struct run *r)
{
	unsigned long node0 = 1;
	int mode;
	long ret;

	syscall(SYS_set_mempolicy, MPOL_PREFERRED, &node0, sizeof(node0) * 8);
	ret = syscall(SYS_get_mempolicy, &mode, r->obj, MAXNODE, NULL, 0);
	int e = errno;

	mode_state(r);
	errno = e;
	return ret;
}

/* ------------------------------------------------------------------ */
/* stat64 family (compat tasks on x86_64): arch/x86/kernel/sys_ia32.c
 * cp_stat64() (scoped write region since the series). */

#define STAT64_SIZE	96

static const struct mask stat64_masks[] = {
	{ 0, 8 },	/* st_dev: an anonymous device number */
	{ 64, 24 },	/* atime, mtime, ctime */
	{ 0, 0 },
};

static const char *setup_stat64(const struct path *p)
{
	(void)p;
#if defined(__i386__)
	return NULL;
#else
	return "no-stat64-on-64-bit";
#endif
}

static long call_stat64(struct run *r)
{
#if defined(__i386__)
	return syscall(SYS_stat64, file_path, r->obj);
#else
	(void)r;
	errno = ENOSYS;
	return -1;
#endif
}

static long call_fstat64(struct run *r)
{
#if defined(__i386__)
	return syscall(SYS_fstat64, file_fd, r->obj);
#else
	(void)r;
	errno = ENOSYS;
	return -1;
#endif
}

static long call_fstatat64(struct run *r)
{
#if defined(__i386__)
	return syscall(SYS_fstatat64, dir_fd, "../file", r->obj, 0);
#else
	(void)r;
	errno = ENOSYS;
	return -1;
#endif
}

/* ------------------------------------------------------------------ */
/* Strings and writes: lib/strncpy_from_user.c do_strncpy_from_user()
 * (masked read region on x86_64) through openat()'s path;
 * mm/gup.c fault_in_readable() (read region) through write() to a tmpfs
 * file, when generic_perform_write() faults on the buffer. */

#define WRITE_SIZE	64

static char path_copy[192];

static void fill_path(unsigned char *obj)
{
	memcpy(obj, path_copy, strlen(path_copy) + 1);
}

static long call_openat_path(struct run *r)
{
	long ret = syscall(SYS_openat, AT_FDCWD, r->obj, O_RDONLY);

	if (ret >= 0)
		KEEP_ERRNO(close(ret));
	return ret;
}

static void fill_text(unsigned char *obj)
{
	for (int i = 0; i < WRITE_SIZE; i++)
		obj[i] = 'A' + i % 26;
}

static long call_write(struct run *r)
{
	struct stat st;
	long ret;
	int e;

	if (ftruncate(file_fd, 0) < 0)
		die("ftruncate");
	lseek(file_fd, 0, SEEK_SET);
	ret = syscall(SYS_write, file_fd, r->obj, WRITE_SIZE);
	e = errno;
	fstat(file_fd, &st);
	addstate(r, "size=%lld", (long long)st.st_size);
	errno = e;
	return ret;
}

/* ------------------------------------------------------------------ */
/* Signal delivery to a handler on an alternate stack whose top moves
 * through the boundary: the frame straddles it.  x86_64:
 * arch/x86/kernel/signal_64.c x64_setup_rt_frame() (write region; the
 * fpstate is written first, by copy_fpstate_to_sigframe(), which faults
 * in with mm/gup.c fault_in_writeable()); i386 binary:
 * arch/x86/kernel/signal_32.c ia32_setup_frame() (no SA_SIGINFO) and
 * ia32_setup_rt_frame(); ppc64: arch/powerpc/kernel/signal_64.c
 * handle_rt_signal64().  The object is the top `size` bytes of the
 * alternate stack; the kernel aligns the frame (FRAME_STEP), so the
 * boundary moves through it by that much.  A delivery that fails kills
 * the child with SIGSEGV. */

#define SIGSPAN		4096
#define ALTSTACK	65536

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled = 1;
}

static void on_usr1_info(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)si; (void)uc;
	handled = 1;
}

static const char *setup_nonrt(const struct path *p)
{
	(void)p;
#if defined(__i386__)
	return NULL;
#else
	return "rt-frames-only";
#endif
}

static long deliver(struct run *r, bool rt)
{
	stack_t ss = {
		.ss_sp = r->obj + SIGSPAN - ALTSTACK,
		.ss_size = ALTSTACK,
	};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	if (rt)
		sa.sa_sigaction = on_usr1_info;
	else
		sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK | (rt ? SA_SIGINFO : 0);
	if (sigaltstack(&ss, NULL) < 0 || sigaction(SIGUSR1, &sa, NULL) < 0)
		return -1;
	handled = 0;
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR1);
	addstate(r, "handled=%d", handled);
	return 0;
}

static long call_signal_rt(struct run *r)
{
	return deliver(r, true);
}

static long call_signal_nonrt(struct run *r)
{
	return deliver(r, false);
}

/* ------------------------------------------------------------------ */
/* rt_sigreturn with the frame straddling the boundary.  A real frame is
 * captured once (a handler copies it), its saved pc and stack pointer
 * are pointed at landed() and a stack of ours, its saved mask blocks
 * SIGUSR1, and the child returns through a copy of it at each position.
 * x86_64: arch/x86/kernel/signal_64.c sys_rt_sigreturn()
 * (copy_from_user(), no region in 6.12); i386: signal_32.c
 * sys32_rt_sigreturn() -> ia32_restore_sigcontext(); ppc64:
 * signal_64.c sys_rt_sigreturn() (read region on uc_mcontext). */

#if defined(__x86_64__)
#define RT_FRAME_SIZE	440	/* struct rt_sigframe */
#elif defined(__i386__)
#define RT_FRAME_SIZE	268	/* struct rt_sigframe_ia32 */
#else
/*
 * The frame's struct ucontext, which rt_sigreturn finds at r1: the
 * kernel's sigcontext has 32 more doublewords of VSX room than glibc's
 * ucontext_t (vmx_reserve[ELF_NVRREG * 2 + 1 + 32]).
 */
#define RT_FRAME_SIZE	(sizeof(ucontext_t) + 32 * 8)
#endif

/* room for a whole glibc ucontext_t after the kernel's shorter one */
static unsigned char saved_frame[RT_FRAME_SIZE + sizeof(ucontext_t)];
static unsigned char *saved_at;		/* where the captured frame was */
static char landing_stack[16384] __attribute__((aligned(64)));

static void capture(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)si;
#if defined(__x86_64__)
	saved_at = (unsigned char *)uc - 8;		/* pretcode */
#elif defined(__i386__)
	saved_at = (unsigned char *)si - 16;		/* pretcode, sig, pinfo, puc */
#else
	saved_at = uc;
#endif
	memcpy(saved_frame, saved_at, RT_FRAME_SIZE);
}

static __attribute__((noreturn, used)) void landed(void)
{
	shared->landed = 1;
	shared->ret = 0;
	shared->err = 0;
	snprintf(shared->state, sizeof(shared->state), "landed,mask=%llx", get_sigmask());
	syscall(SYS_exit_group, 0);
	__builtin_unreachable();
}

static const char *setup_sigreturn(const struct path *p)
{
	struct sigaction sa, old;
	ucontext_t *uc;

	(void)p;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = capture;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR2, &sa, &old);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR2);
	sigaction(SIGUSR2, &old, NULL);
	if (!saved_at)
		return "no-frame-captured";
#if defined(__x86_64__)
	uc = (ucontext_t *)(saved_frame + 8);
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)landed;
	uc->uc_mcontext.gregs[REG_RSP] = (greg_t)(landing_stack + sizeof(landing_stack) - 8);
	uc->uc_mcontext.fpregs = NULL;	/* the fpstate is outside the frame */
#elif defined(__i386__)
	uc = (ucontext_t *)(saved_frame + 16 + 128);
	uc->uc_mcontext.gregs[REG_EIP] = (greg_t)landed;
	uc->uc_mcontext.gregs[REG_ESP] = (greg_t)(landing_stack + sizeof(landing_stack) - 4);
	uc->uc_mcontext.fpregs = NULL;
#else
	uc = (ucontext_t *)saved_frame;
	uc->uc_mcontext.gp_regs[PT_NIP] = (unsigned long)landed;
	uc->uc_mcontext.gp_regs[12] = (unsigned long)landed;	/* global entry */
	uc->uc_mcontext.gp_regs[1] = (unsigned long)(landing_stack + sizeof(landing_stack) - 128);
	/* no vector state: v_regs points into the frame, which moves */
	uc->uc_mcontext.v_regs = NULL;
	uc->uc_mcontext.gp_regs[PT_MSR] &= ~((1UL << 25) | (1UL << 23)); /* MSR_VEC, MSR_VSX */
#endif
	uc->uc_stack.ss_flags = SS_DISABLE;
	memset(&uc->uc_sigmask, 0, KSIGSET);
	memcpy(&uc->uc_sigmask, &(unsigned long long){ SIGBIT(SIGUSR1) }, KSIGSET);
	return NULL;
}

static void fill_frame(unsigned char *obj)
{
	memcpy(obj, saved_frame, RT_FRAME_SIZE);
}

static long call_sigreturn(struct run *r)
{
	unsigned char *f = r->obj;

	shared->ret = LONG_MIN;
#if defined(__x86_64__)
	asm volatile("mov %0, %%rsp\n\tmov %1, %%eax\n\tsyscall"
		     :: "r"(f + 8), "i"(SYS_rt_sigreturn) : "memory");
#elif defined(__i386__)
	asm volatile("mov %0, %%esp\n\tmov %1, %%eax\n\tint $0x80"
		     :: "r"(f + 4), "i"(SYS_rt_sigreturn) : "memory");
#else
	asm volatile("mr 1, %0\n\tli 0, %1\n\tsc"
		     :: "r"(f), "i"(SYS_rt_sigreturn) : "memory");
#endif
	__builtin_unreachable();
}

/* ------------------------------------------------------------------ */
/* ppc64 swapcontext(old, NULL, size): arch/powerpc/kernel/signal_64.c
 * sys_swapcontext() saves the context in a write region. */

static const char *setup_swapcontext(const struct path *p)
{
	(void)p;
#if defined(__powerpc64__)
	return NULL;
#else
	return "powerpc-only";
#endif
}

static long call_swapcontext(struct run *r)
{
#if defined(__powerpc64__)
	return syscall(SYS_swapcontext, r->obj, NULL, sizeof(ucontext_t));
#else
	(void)r;
	errno = ENOSYS;
	return -1;
#endif
}

/* ppc64 swapcontext(NULL, new, size): sys_swapcontext() reads the new
 * context's MSR in a read region, then do_setcontext() restores it like
 * rt_sigreturn.  The context is one swapcontext() saved, pointed at
 * landed(). */

#if defined(__powerpc64__)
static ucontext_t saved_ctx;
#endif

static const char *setup_setcontext(const struct path *p)
{
	(void)p;
#if defined(__powerpc64__)
	ucontext_t *uc = &saved_ctx;

	if (syscall(SYS_swapcontext, uc, NULL, sizeof(*uc)) < 0)
		return "swapcontext-failed";
	uc->uc_mcontext.gp_regs[PT_NIP] = (unsigned long)landed;
	uc->uc_mcontext.gp_regs[12] = (unsigned long)landed;
	uc->uc_mcontext.gp_regs[1] = (unsigned long)(landing_stack + sizeof(landing_stack) - 128);
	uc->uc_mcontext.v_regs = NULL;
	uc->uc_mcontext.gp_regs[PT_MSR] &= ~((1UL << 25) | (1UL << 23));
	memcpy(&uc->uc_sigmask, &(unsigned long long){ SIGBIT(SIGUSR1) }, KSIGSET);
	return NULL;
#else
	return "powerpc-only";
#endif
}

static void fill_ctx(unsigned char *obj)
{
#if defined(__powerpc64__)
	memcpy(obj, &saved_ctx, sizeof(saved_ctx));
#else
	(void)obj;
#endif
}

static long call_setcontext(struct run *r)
{
#if defined(__powerpc64__)
	return syscall(SYS_swapcontext, NULL, r->obj, sizeof(ucontext_t));
#else
	(void)r;
	errno = ENOSYS;
	return -1;
#endif
}

/* ------------------------------------------------------------------ */
/* The table.  Each path: name, region, regions per arch, object size,
 * step, map chunk, flags, masks, setup, fill, call. */

#define R(x86_64, i386, ppc64le)	{ x86_64, i386, ppc64le }

static const struct path paths[] = {
	{ "pselect6.argpack", "fs/select.c get_sigset_argpack() / get_compat_sigset_argpack()",
	  R("fs/select.c:get_sigset_argpack", "fs/select.c:get_compat_sigset_argpack", NULL),
	  sizeof(struct argpack), sizeof(long), 0, 0, NULL, setup_fds, fill_argpack,
	  call_pselect_argpack },
	{ "pselect6.fdset", "fs/select.c core_sys_select(); compat: kernel/compat.c compat_{get,put}_bitmap()",
	  R("", "kernel/compat.c:compat_get_bitmap kernel/compat.c:compat_put_bitmap", NULL),
	  FDSET_BYTES, sizeof(long), 0, 0, NULL, setup_fds, fill_bits, call_pselect_fdset },
	{ "pselect6.sigmask", "kernel/signal.c set_user_sigmask() (copy_from_user)",
	  R("", NULL, NULL),
	  KSIGSET, 4, 0, 0, NULL, setup_fds, fill_sigmask, call_pselect_sigmask },
	{ "ppoll.fds", "fs/select.c do_sys_poll() revents write region",
	  R("fs/select.c:do_sys_poll", NULL, NULL),
	  NPOLL * sizeof(struct pollfd), 2, 0, 0, NULL, NULL, fill_pollfds, call_ppoll_fds },
	{ "ppoll.sigmask", "kernel/signal.c set_user_sigmask() (copy_from_user)",
	  R("", NULL, NULL),
	  KSIGSET, 4, 0, 0, NULL, NULL, fill_sigmask, call_ppoll_sigmask },
	{ "waitid.infop", "kernel/exit.c waitid / compat waitid siginfo write region",
	  R("kernel/exit.c:sys_waitid", "kernel/exit.c:compat_sys_waitid", NULL),
	  sizeof(siginfo_t), 4, 0, 0, siginfo_masks, NULL, NULL, call_waitid_infop },
	{ "waitid.rusage", "kernel/exit.c waitid rusage (copy_to_user / put_compat_rusage)",
	  R("", NULL, NULL),
	  sizeof(struct rusage), sizeof(long), 0, 0, all_masked, NULL, NULL, call_waitid_rusage },
	{ "io_uring.waitid", "io_uring/waitid.c io_waitid_copy_si() / io_waitid_compat_copy_si()",
	  R("io_uring/waitid.c:io_waitid_copy_si",
	    "io_uring/waitid.c:io_waitid_compat_copy_si", NULL),
	  sizeof(siginfo_t), 4, 0, 0, siginfo_masks, setup_io_uring, NULL, call_uring_waitid },
	{ "io_uring.sendmsg", "io_uring/net.c io_msg_copy_hdr() / io_compat_msg_copy_hdr()",
	  R("io_uring/net.c:io_msg_copy_hdr", "", NULL),
	  sizeof(struct msghdr), 4, 0, 0, NULL, setup_io_uring, fill_msghdr, call_uring_sendmsg },
	{ "getdents", "fs/readdir.c filldir() / compat_filldir()",
	  R("fs/readdir.c:filldir", "fs/readdir.c:compat_filldir", NULL),
	  DIRBUF, 1, 8, 0, NULL, NULL, NULL, call_getdents },
	{ "getdents64", "fs/readdir.c filldir64()",
	  R("fs/readdir.c:filldir64", NULL, NULL),
	  DIRBUF, 1, 8, 0, NULL, NULL, NULL, call_getdents64 },
	{ "readdir", "fs/readdir.c compat_fillonedir() (fillonedir() on 32-bit kernels)",
	  R("", "fs/readdir.c:compat_fillonedir", NULL),
	  40, 1, 4, 0, NULL, setup_readdir, NULL, call_readdir },
	{ "readv.iov", "lib/iov_iter.c copy_iovec_from_user() / copy_compat_iovec_from_user()",
	  R("lib/iov_iter.c:copy_iovec_from_user",
	    "lib/iov_iter.c:copy_compat_iovec_from_user", NULL),
	  NIOV * sizeof(struct iovec), sizeof(long), 0, 0, NULL, NULL, fill_iov, call_readv },
	{ "writev.iov", "lib/iov_iter.c copy_iovec_from_user() / copy_compat_iovec_from_user()",
	  R("lib/iov_iter.c:copy_iovec_from_user",
	    "lib/iov_iter.c:copy_compat_iovec_from_user", NULL),
	  NIOV * sizeof(struct iovec), sizeof(long), 0, 0, NULL, NULL, fill_iov, call_writev },
	{ "process_vm_readv.lvec", "lib/iov_iter.c copy_iovec_from_user() via mm/process_vm_access.c",
	  R("lib/iov_iter.c:copy_iovec_from_user",
	    "lib/iov_iter.c:copy_compat_iovec_from_user", NULL),
	  NIOV * sizeof(struct iovec), sizeof(long), 0, 0, NULL, setup_cma, fill_iov, call_cma_lvec },
	{ "process_vm_readv.rvec", "lib/iov_iter.c copy_iovec_from_user() via mm/process_vm_access.c",
	  R("lib/iov_iter.c:copy_iovec_from_user",
	    "lib/iov_iter.c:copy_compat_iovec_from_user", NULL),
	  NIOV * sizeof(struct iovec), sizeof(long), 0, 0, NULL, setup_cma, fill_remote_iov, call_cma_rvec },
	{ "recvmsg.rights", "net/core/scm.c scm_detach_fds() / net/compat.c scm_detach_fds_compat()",
	  R("", NULL, NULL),
	  RIGHTS_SPACE, 4, 0, 0, NULL, NULL, NULL, call_recv_rights },
	{ "recvmsg.creds", "net/core/scm.c put_cmsg() write region / net/compat.c put_cmsg_compat()",
	  R("net/core/scm.c:put_cmsg", "", NULL),
	  CREDS_SPACE, 4, 0, 0, creds_masks, NULL, NULL, call_recv_creds },
	{ "rseq.register", "kernel/rseq.c rseq_update_cpu_node_id() write region",
	  R("kernel/rseq.c:rseq_update_cpu_node_id", NULL, NULL),
	  RSEQ_LEN, 32, 4, F_CHILD, rseq_masks, setup_rseq, fill_rseq, call_rseq },
	{ "futex.wake_op", "arch_futex_atomic_op_inuser() (x86: scoped rw; powerpc: asm/futex.h)",
	  R("arch/x86/include/asm/futex.h:arch_futex_atomic_op_inuser",
	    NULL, "arch/powerpc/include/asm/futex.h:arch_futex_atomic_op_inuser"),
	  4, 4, 0, 0, NULL, NULL, fill_41, call_wake_op },
	{ "futex.lock_pi", "futex_atomic_cmpxchg_inatomic() via futex_lock_pi_atomic()",
	  R("arch/x86/include/asm/futex.h:futex_atomic_cmpxchg_inatomic",
	    NULL, "arch/powerpc/include/asm/futex.h:futex_atomic_cmpxchg_inatomic"),
	  4, 4, 0, 0, tid_masks, NULL, fill_zero, call_lock_pi },
	{ "futex.unlock_pi", "futex_atomic_cmpxchg_inatomic() via futex_unlock_pi()",
	  R("arch/x86/include/asm/futex.h:futex_atomic_cmpxchg_inatomic",
	    NULL, "arch/powerpc/include/asm/futex.h:futex_atomic_cmpxchg_inatomic"),
	  4, 4, 0, 0, NULL, NULL, fill_tid, call_unlock_pi },
	{ "sched_setattr.zero_tail", "lib/usercopy.c check_zeroed_user()",
	  R("lib/usercopy.c:check_zeroed_user", NULL, NULL),
	  ATTR_SIZE, sizeof(long), 0, 0, NULL, NULL, fill_attr, call_sched_setattr },
	{ "sched_setattr.nonzero_tail", "lib/usercopy.c check_zeroed_user()",
	  R("lib/usercopy.c:check_zeroed_user", NULL, NULL),
	  ATTR_SIZE, sizeof(long), 0, 0, NULL, NULL, fill_attr_nz, call_sched_setattr },
	{ "openat2.zero_tail", "lib/usercopy.c check_zeroed_user()",
	  R("lib/usercopy.c:check_zeroed_user", NULL, NULL),
	  HOW_SIZE, sizeof(long), 0, 0, NULL, NULL, fill_how, call_openat2 },
	{ "openat2.nonzero_tail", "lib/usercopy.c check_zeroed_user()",
	  R("lib/usercopy.c:check_zeroed_user", NULL, NULL),
	  HOW_SIZE, sizeof(long), 0, 0, NULL, NULL, fill_how_nz, call_openat2 },
	{ "set_mempolicy.nodemask", "mm/mempolicy.c get_nodes(); compat: kernel/compat.c compat_get_bitmap()",
	  R("", "kernel/compat.c:compat_get_bitmap", NULL),
	  NODEMASK_BYTES, 4, 0, 0, NULL, setup_mempolicy, fill_node0, call_set_mempolicy },
	{ "get_mempolicy.nodemask", "mm/mempolicy.c copy_nodes_to_user(); compat: compat_put_bitmap()",
	  R("", "kernel/compat.c:compat_put_bitmap", NULL),
	  NODEMASK_BYTES, 4, 0, 0, NULL, setup_mempolicy, NULL, call_get_mempolicy },
	{ "stat64", "arch/x86/kernel/sys_ia32.c cp_stat64()",
	  R("", "arch/x86/kernel/sys_ia32.c:cp_stat64", ""),
	  STAT64_SIZE, 4, 0, 0, stat64_masks, setup_stat64, NULL, call_stat64 },
	{ "fstat64", "arch/x86/kernel/sys_ia32.c cp_stat64()",
	  R("", "arch/x86/kernel/sys_ia32.c:cp_stat64", ""),
	  STAT64_SIZE, 4, 0, 0, stat64_masks, setup_stat64, NULL, call_fstat64 },
	{ "fstatat64", "arch/x86/kernel/sys_ia32.c cp_stat64()",
	  R("", "arch/x86/kernel/sys_ia32.c:cp_stat64", ""),
	  STAT64_SIZE, 4, 0, 0, stat64_masks, setup_stat64, NULL, call_fstatat64 },
	{ "openat.path", "lib/strncpy_from_user.c strncpy_from_user()",
	  R("lib/strncpy_from_user.c:strncpy_from_user", NULL, NULL),
	  0 /* strlen + 1, set in main */, 1, 0, 0, NULL, NULL, fill_path, call_openat_path },
	{ "write.tmpfs", "mm/gup.c fault_in_readable() via generic_perform_write()",
	  R("mm/gup.c:fault_in_readable", NULL, NULL),
	  WRITE_SIZE, 8, 0, 0, NULL, NULL, fill_text, call_write },
	{ "signal.rt", "x86: signal_64.c x64_setup_rt_frame() / signal_32.c ia32_setup_rt_frame(); powerpc: signal_64.c handle_rt_signal64()",
	  R("arch/x86/kernel/signal_64.c:x64_setup_rt_frame mm/gup.c:fault_in_writeable",
	    "arch/x86/kernel/signal_32.c:ia32_setup_rt_frame mm/gup.c:fault_in_writeable",
	    "arch/powerpc/kernel/signal_64.c:handle_rt_signal64"),
	  SIGSPAN, FRAME_STEP, sizeof(long), F_CHILD | F_NOREF, NULL, NULL, NULL, call_signal_rt },
	{ "signal.frame", "arch/x86/kernel/signal_32.c ia32_setup_frame()",
	  R("", "arch/x86/kernel/signal_32.c:ia32_setup_frame mm/gup.c:fault_in_writeable", ""),
	  SIGSPAN, FRAME_STEP, 4, F_CHILD | F_NOREF, NULL, setup_nonrt, NULL, call_signal_nonrt },
	{ "rt_sigreturn", "x86: signal_64.c / signal_32.c rt_sigreturn; powerpc: signal_64.c sys_rt_sigreturn()",
	  R("", "", "arch/powerpc/kernel/signal_64.c:sys_rt_sigreturn"),
	  RT_FRAME_SIZE, sizeof(long), 0, F_CHILD, NULL, setup_sigreturn, fill_frame, call_sigreturn },
	{ "swapcontext.old", "arch/powerpc/kernel/signal_64.c sys_swapcontext() write region",
	  R("", "", "arch/powerpc/kernel/signal_64.c:sys_swapcontext"),
	  sizeof(ucontext_t), 8, 0, F_NOREF, NULL, setup_swapcontext, NULL, call_swapcontext },
	{ "swapcontext.new", "arch/powerpc/kernel/signal_64.c sys_swapcontext() read region, do_setcontext()",
	  R("", "", "arch/powerpc/kernel/signal_64.c:sys_swapcontext"),
	  sizeof(ucontext_t), 8, 0, F_CHILD, NULL, setup_setcontext, fill_ctx, call_setcontext },
};

#define NPATHS	(sizeof(paths) / sizeof(paths[0]))

/* ------------------------------------------------------------------ */
/* The engine */

static size_t obj_size(const struct path *p)
{
	return p->size ? p->size : strlen(path_copy) + 1;
}

/*
 * The volatile range byte i is in, or NULL.  A volatile value counts as
 * changed when any of its bytes changed: a pid whose low byte happens to
 * be the sentinel's is still a pid written.
 */
static const struct mask *masked(const struct path *p, size_t i)
{
	for (const struct mask *m = p->masks; m && m->len; m++)
		if (i >= m->off && i < m->off + m->len)
			return m;
	return NULL;
}

static bool range_changed(const unsigned char *buf, const struct mask *m, size_t mapped)
{
	for (size_t i = m->off; i < m->off + m->len && i < mapped; i++)
		if (buf[i] != pre[i])
			return true;
	return false;
}

/*
 * The data map of the mapped part of the object: per chunk '.', 'G',
 * 'x' or 'w' (see the header), run-length encoded.
 */
static void data_map(const struct path *p, const struct run *r, char *buf, size_t len)
{
	size_t chunk = p->chunk ? p->chunk : p->step, n = 0;
	char prev = 0;
	unsigned int count = 0;

	buf[0] = 0;
	if (r->mapped == 0) {
		snprintf(buf, len, "none");
		return;
	}
	for (size_t c = 0;; c += chunk) {
		char ch = 0;	/* past the end: flushes the last run */

		if (c < r->mapped) {
			bool changed = false, good = true;

			for (size_t i = c; i < c + chunk && i < r->mapped; i++) {
				const struct mask *m = masked(p, i);

				if (m) {
					bool ch_now = range_changed(r->obj, m, r->mapped);

					changed |= ch_now;
					if (ch_now != range_changed(ref, m, obj_size(p)))
						good = false;
				} else {
					changed |= r->obj[i] != pre[i];
					if (r->obj[i] != ref[i])
						good = false;
				}
			}
			ch = !changed ? '.' : (p->flags & F_NOREF) ? 'w' : good ? 'G' : 'x';
		}
		if (ch == prev) {
			count++;
			continue;
		}
		if (prev && n < len - 16)
			n += count > 1 ? snprintf(buf + n, len - n, "%c%u", prev, count)
				       : snprintf(buf + n, len - n, "%c", prev);
		prev = ch;
		count = 1;
		if (!ch)
			break;
	}
}

static void call(const struct path *p, struct run *r)
{
	pid_t pid;
	int status;

	r->state[0] = 0;
	if (!(p->flags & F_CHILD)) {
		errno = 0;
		r->ret = p->call(r);
		r->err = r->ret < 0 ? errno : 0;
		return;
	}
	memset(shared, 0, sizeof(*shared));
	shared->ret = LONG_MIN;
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		long ret;

		errno = 0;
		ret = p->call(r);
		shared->ret = ret;
		shared->err = ret < 0 ? errno : 0;
		memcpy(shared->state, r->state, sizeof(shared->state));
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	r->ret = shared->ret;
	r->err = shared->err;
	memcpy(r->state, shared->state, sizeof(r->state));
	if (WIFSIGNALED(status))
		addstate(r, "fate=%s", signame(WTERMSIG(status)));
	else
		addstate(r, "fate=exit%d", WEXITSTATUS(status));
}

static void record(const struct path *p, struct run *r, bool with_data)
{
	char map[4096], pos[48], ret[32];

	if (with_data)
		data_map(p, r, map, sizeof(map));
	else
		snprintf(map, sizeof(map), "-");
	if (strcmp(r->pos, "hole") && strcmp(r->pos, "top"))
		snprintf(pos, sizeof(pos), "%s", r->pos);
	else
		snprintf(pos, sizeof(pos), "%s:%zu", r->pos, r->mapped);
	if (r->ret == LONG_MIN)
		snprintf(ret, sizeof(ret), "-");
	else
		snprintf(ret, sizeof(ret), "%ld", r->ret);
	out("# sweep %s %s pos=%s ret=%s errno=%s data=%s state=%s", p->name, ARCH,
	    pos, ret, r->ret == LONG_MIN ? "-" : errname(r->err), map,
	    r->state[0] ? r->state : "-");
	nrecords++;
}

/* Fills the object's bytes as the path wants them before a call. */
static void prefill(const struct path *p, unsigned char *buf)
{
	memset(buf, SENTINEL, obj_size(p));
	if (p->fill)
		p->fill(buf);
}

static unsigned long walk(const struct path *p, const char *name, unsigned char *boundary)
{
	size_t size = obj_size(p), m = size;
	unsigned long n = 0;

	for (;;) {
		struct run r = { .pos = name, .obj = boundary - m, .mapped = m, .full = m == size };

		prefill(p, pre);
		memcpy(r.obj, pre, m);
		call(p, &r);
		if (r.full && !strcmp(name, "hole"))
			memcpy(ref, r.obj, size);
		record(p, &r, true);
		n++;
		if (m == 0)
			break;
		m = m > p->step ? m - p->step : 0;
	}
	return n;
}

static unsigned long bad_pointer(const struct path *p, const char *name, unsigned long addr)
{
	struct run r = { .pos = name, .obj = (unsigned char *)addr };

	call(p, &r);
	record(p, &r, false);
	return 1;
}

static void sweep(const struct path *p)
{
	const char *skip = p->setup ? p->setup(p) : NULL;
	const char *regions;
	unsigned long n = 0, top = 0;

	npaths++;
	if (skip) {
		out("# sweep-skip %s %s reason=%s", p->name, ARCH, skip);
		nskipped++;
		return;
	}
	regions = p->regions[ARCH_IDX] ? p->regions[ARCH_IDX] : p->regions[0];
	out("# sweep-region %s %s %s", p->name, ARCH, *regions ? regions : "-");
	n += walk(p, "hole", hole_end);
	if (top_end)
		n += top = walk(p, "top", top_end);
#ifdef KPTR
	n += bad_pointer(p, "kernel", KPTR);
#endif
#ifdef NONCANON
	n += bad_pointer(p, "noncanon", NONCANON);
#endif
#ifdef BEYOND
	n += bad_pointer(p, "beyond", BEYOND);
#endif
	out("# sweep-count %s %s size=%zu step=%zu positions=%lu top=%lu", p->name, ARCH,
	    obj_size(p), p->step, n, top);
}

/* ------------------------------------------------------------------ */
/*
 * The argument sweep: the values a range check decides on.  A row is a
 * path of the table above and one argument of its syscall that sets the
 * range or the pointer of a user access region: a size or count (A_SIZE)
 * or the object's address (A_PTR).  The call is made once per value, in
 * a child, and gives a record `pos=arg:<argument>=<value>`.
 *
 * A size row puts the object at the start of a window of ARGWIN bytes
 * that ends at the top of the user address space (the rest of the window
 * is the sentinel, so that what the kernel reads there is not a valid
 * continuation), and passes the size or count: 0, the exact one, the one
 * whose range reaches the top and the one that passes it, and values
 * that no range check accepts; the data map covers the whole window.  A
 * pointer row passes the exact size and moves the pointer: the object
 * ending at the top, one byte below the top, the top, above it, kernel
 * and non-canonical addresses, and addresses whose range wraps.  The
 * reference run ('G') is each row's first value.
 */

#define ARGWIN		3072	/* <= PAGE_SIZE: openat2 and sched_setattr take it */

enum argkind { A_SIZE, A_PTR };

enum argbase {
	B_NUM,		/* off */
	B_EXACT,	/* the object's size in units, + off */
	B_NEGEXACT,	/* minus the object's size (in units, or in bytes for a pointer) */
	B_TOP,		/* size: the range ends at the top, + off; pointer: top + off */
	B_TOPSIZE,	/* pointer: the object ends at the top */
	B_PAGE,		/* size: PAGE_SIZE in units, + off; pointer: top + PAGE_SIZE */
};

struct argval {
	const char *name;
	enum argbase base;
	long long off;
	bool wide;	/* only where a long has 64 bits (else it repeats another value) */
};

static const struct argval size_values[] = {
	{ "exact", B_EXACT, 0, false },		/* first: the reference run */
	{ "0", B_NUM, 0, false },
	{ "exact-1", B_EXACT, -1, false },
	{ "top", B_TOP, 0, false },
	{ "top+1", B_TOP, 1, false },
	{ "2^31", B_NUM, 1LL << 31, true },
	{ "INT_MAX", B_NUM, INT_MAX, false },
	{ "2^32", B_NUM, 1LL << 32, true },
	{ "UINT_MAX", B_NUM, UINT_MAX, true },
	{ "2^52", B_NUM, 1LL << 52, true },
	{ "LONG_MAX", B_NUM, LLONG_MAX, true },
	{ "-1", B_NUM, -1, false },
	{ "-exact", B_NEGEXACT, 0, false },
	{ "INT_MIN", B_NUM, INT_MIN, false },
	{ "LONG_MIN", B_NUM, LLONG_MIN, true },
	{ NULL, B_NUM, 0, false },
};

static const struct argval ptr_values[] = {
	{ "top-size", B_TOPSIZE, 0, false },	/* first: the reference run */
	{ "top-1", B_TOP, -1, false },
	{ "top", B_TOP, 0, false },
	{ "top+page", B_PAGE, 0, false },
	{ "null", B_NUM, 0, false },
#ifdef KPTR
	{ "kernel", B_NUM, (long long)KPTR, false },
#endif
#ifdef NONCANON
	{ "noncanon", B_NUM, (long long)NONCANON, false },
#endif
#ifdef BEYOND
	{ "beyond", B_NUM, BEYOND, false },
#endif
	{ "2^52", B_NUM, 1LL << 52, true },
	{ "LONG_MAX", B_NUM, LONG_MAX, false },
	{ "LONG_MIN", B_NUM, LONG_MIN, false },
	{ "-size", B_NEGEXACT, 0, false },
	{ "-1", B_NUM, -1, false },
	{ NULL, B_NUM, 0, false },
};

/* Limits of single arguments, checked before any range. */
static const struct argval vsx_values[] = {
	{ "exact+256", B_EXACT, 256, false },	/* the kernel's ucontext, with VSX room */
	{ NULL, B_NUM, 0, false },
};
static const struct argval uio_values[] = {
	{ "UIO_MAXIOV", B_NUM, 1024, false },
	{ "UIO_MAXIOV+1", B_NUM, 1025, false },
	{ NULL, B_NUM, 0, false },
};
static const struct argval nofile_values[] = {
	{ "RLIMIT_NOFILE", B_NUM, 1024, false },
	{ "RLIMIT_NOFILE+1", B_NUM, 1025, false },
	{ NULL, B_NUM, 0, false },
};
static const struct argval page_values[] = {
	{ "PAGE_SIZE", B_PAGE, 0, false },
	{ "PAGE_SIZE+1", B_PAGE, 1, false },
	{ NULL, B_NUM, 0, false },
};
static const struct argval rseq_values[] = {
	{ "32", B_NUM, 32, false },		/* ORIG_RSEQ_SIZE */
	{ NULL, B_NUM, 0, false },
};

struct argrow {
	const char *path;	/* the path (paths[]) whose object, setup and fill it takes */
	const char *arg;	/* the argument, as the kernel names it */
	enum argkind kind;
	unsigned int unit;	/* A_SIZE: bits per unit of the argument */
	int bias;		/* A_SIZE: added to a count (maxnode counts one bit more) */
	const struct argval *extra;	/* NULL or the argument's own limits */
	/* NULL, or puts the value into the object (a size the object carries) */
	void (*poke)(unsigned char *obj, unsigned long v);
	/* the call with r->arg; NULL: the path's call (pointer rows) */
	long (*call)(struct run *r);
	/* NULL, or why no binary here can run the row (then path is only its name) */
	const char *unreachable;
};

static long arg_swapcontext_old(struct run *r)
{
#if defined(__powerpc64__)
	return syscall(SYS_swapcontext, r->obj, NULL, r->arg);
#else
	(void)r;
	errno = ENOSYS;
	return -1;
#endif
}

static long arg_setcontext(struct run *r)
{
#if defined(__powerpc64__)
	return syscall(SYS_swapcontext, NULL, r->obj, r->arg);
#else
	(void)r;
	errno = ENOSYS;
	return -1;
#endif
}

static long arg_getdents(struct run *r)
{
	lseek(dir_fd, 0, SEEK_SET);
	return dir_state(r, syscall(SYS_getdents, dir_fd, r->obj, r->arg));
}

static long arg_getdents64(struct run *r)
{
	lseek(dir_fd, 0, SEEK_SET);
	return dir_state(r, syscall(SYS_getdents64, dir_fd, r->obj, r->arg));
}

static long arg_readv(struct run *r)
{
	long ret;

	refill(ready_wfd, READY_FD, NIOV * IOVLEN);
	ret = syscall(SYS_readv, READY_FD, r->obj, r->arg);
	KEEP_ERRNO(addstate(r, "left=%d", pipe_bytes(READY_FD));
		   refill(ready_wfd, READY_FD, 1));
	return ret;
}

static long arg_writev(struct run *r)
{
	long ret;

	drain(empty_rfd);
	ret = syscall(SYS_writev, empty_wfd, r->obj, r->arg);
	KEEP_ERRNO(addstate(r, "pipe=%d", pipe_bytes(empty_rfd));
		   drain(empty_rfd));
	return ret;
}

static long arg_cma_liovcnt(struct run *r)
{
	struct iovec rv = { remote, sizeof(remote) };

	memset(iov_bufs, 0, sizeof(iov_bufs));
	return cma_state(r, syscall(SYS_process_vm_readv, getpid(), r->obj, r->arg, &rv, 1, 0));
}

static long arg_cma_riovcnt(struct run *r)
{
	struct iovec lv[NIOV];

	fill_iov((unsigned char *)lv);
	memset(iov_bufs, 0, sizeof(iov_bufs));
	return cma_state(r, syscall(SYS_process_vm_readv, getpid(), lv, NIOV, r->obj, r->arg, 0));
}

static long arg_recv_controllen(struct run *r)
{
	return recv_into(r, r->arg, false);
}

static long arg_rseq_len(struct run *r)
{
	long ret = syscall(SYS_rseq, r->obj, r->arg, 0, RSEQ_SIG);

	KEEP_ERRNO(addstate(r, "alive"));
	return ret;
}

static void poke_attr_size(unsigned char *obj, unsigned long v)
{
	uint32_t size = v;

	memcpy(obj + offsetof(struct sched_attr, size), &size, sizeof(size));
}

static long arg_openat2(struct run *r)
{
	long ret = syscall(SYS_openat2, AT_FDCWD, dir_path, r->obj, r->arg);

	if (ret >= 0)
		KEEP_ERRNO(close(ret));
	return ret;
}

static long arg_set_mempolicy(struct run *r)
{
	long ret = syscall(SYS_set_mempolicy, MPOL_PREFERRED, r->obj, r->arg);

	KEEP_ERRNO(mode_state(r));
	return ret;
}

static long arg_get_mempolicy(struct run *r)
{
	unsigned long node0 = 1;
	int mode;
	long ret;

	syscall(SYS_set_mempolicy, MPOL_PREFERRED, &node0, sizeof(node0) * 8);
	ret = syscall(SYS_get_mempolicy, &mode, r->obj, r->arg, NULL, 0);
	KEEP_ERRNO(mode_state(r));
	return ret;
}

static long arg_pselect_nfds(struct run *r)
{
	struct argpack a = { &blocked_usr2, KSIGSET };
	long ret;

	ret = syscall(SYS_pselect6, r->arg, r->obj, NULL, NULL, zero_ts, &a);
	KEEP_ERRNO(put_sigmask_state(r));
	return ret;
}

static long arg_ppoll_nfds(struct run *r)
{
	long ret;

	ret = syscall(SYS_ppoll, r->obj, r->arg, zero_ts, &blocked_usr2, KSIGSET);
	KEEP_ERRNO(put_sigmask_state(r));
	return ret;
}

#define BITS(type)	(unsigned int)(sizeof(type) * 8)

/*
 * The rows: every argument that sets the range or the pointer of a user
 * access region the series converts (testcases/faultsweep/README.md,
 * "Argument sweep", says why each is in, and why others are out).
 */
static const struct argrow args[] = {
	{ "swapcontext.old", "ctx_size", A_SIZE, 8, 0, vsx_values, NULL, arg_swapcontext_old },
	{ "swapcontext.old", "old_ctx", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "swapcontext.new", "ctx_size", A_SIZE, 8, 0, vsx_values, NULL, arg_setcontext },
	{ "swapcontext.new", "new_ctx", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "waitid.infop", "infop", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "io_uring.waitid", "infop", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "io_uring.sendmsg", "msg", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "getdents", "count", A_SIZE, 8, 0, NULL, NULL, arg_getdents },
	{ "getdents", "dirent", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "getdents64", "count", A_SIZE, 8, 0, NULL, NULL, arg_getdents64 },
	{ "readdir", "dirent", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "readv.iov", "iovcnt", A_SIZE, BITS(struct iovec), 0, uio_values, NULL, arg_readv },
	{ "readv.iov", "iov", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "writev.iov", "iovcnt", A_SIZE, BITS(struct iovec), 0, uio_values, NULL, arg_writev },
	{ "process_vm_readv.lvec", "liovcnt", A_SIZE, BITS(struct iovec), 0, uio_values, NULL,
	  arg_cma_liovcnt },
	{ "process_vm_readv.rvec", "riovcnt", A_SIZE, BITS(struct iovec), 0, uio_values, NULL,
	  arg_cma_riovcnt },
	{ "recvmsg.creds", "msg_controllen", A_SIZE, 8, 0, NULL, NULL, arg_recv_controllen },
	{ "recvmsg.creds", "msg_control", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "rseq.register", "rseq_len", A_SIZE, 8, 0, rseq_values, NULL, arg_rseq_len },
	{ "rseq.register", "rseq", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "futex.wake_op", "uaddr2", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "futex.lock_pi", "uaddr", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "sched_setattr.zero_tail", "size", A_SIZE, 8, 0, page_values, poke_attr_size, NULL },
	{ "sched_setattr.zero_tail", "uattr", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "openat2.zero_tail", "usize", A_SIZE, 8, 0, page_values, NULL, arg_openat2 },
	{ "openat2.zero_tail", "how", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "set_mempolicy.nodemask", "maxnode", A_SIZE, 1, 1, NULL, NULL, arg_set_mempolicy },
	{ "get_mempolicy.nodemask", "maxnode", A_SIZE, 1, 1, NULL, NULL, arg_get_mempolicy },
	{ "pselect6.fdset", "n", A_SIZE, 1, 0, NULL, NULL, arg_pselect_nfds },
	{ "pselect6.fdset", "inp", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "pselect6.argpack", "sig", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "ppoll.fds", "nfds", A_SIZE, BITS(struct pollfd), 0, nofile_values, NULL, arg_ppoll_nfds },
	{ "ppoll.fds", "ufds", A_PTR, 0, 0, NULL, NULL, NULL },
	{ "stat64", "statbuf", A_PTR, 0, 0, NULL, NULL, NULL },
	/* arch/powerpc/kernel/signal_32.c: 32-bit powerpc tasks only */
	{ "compat_swapcontext.old", "ctx_size", A_SIZE, 8, 0, NULL, NULL, NULL,
	  "no-32-bit-powerpc-task:no-little-endian-ppc32-userland,no-COMPAT-in-the-ppc64le-kernel" },
};

#define NARGS	(sizeof(args) / sizeof(args[0]))

static const struct path *path_named(const char *name)
{
	for (size_t i = 0; i < NPATHS; i++)
		if (!strcmp(paths[i].name, name))
			return &paths[i];
	out("# sweep-error %s no path %s for the argument sweep", ARCH, name);
	exit(2);
}

/* The value v of row a as the syscall gets it; false when it does not exist here. */
static bool arg_value(const struct argrow *a, const struct path *p, const struct argval *v,
		      unsigned long *value)
{
	long long exact, n;

	if (v->wide && sizeof(long) < 8)
		return false;
	exact = a->kind == A_SIZE ? (long long)(obj_size(p) * 8 / a->unit) + a->bias
				  : (long long)obj_size(p);
	switch (v->base) {
	case B_NUM:
		n = v->off;
		break;
	case B_EXACT:
		n = exact + v->off;
		break;
	case B_NEGEXACT:
		n = -exact;
		break;
	case B_TOP:
		n = a->kind == A_SIZE ? (long long)(ARGWIN * 8 / a->unit) + a->bias + v->off
				      : (long long)(unsigned long)top_end + v->off;
		break;
	case B_TOPSIZE:
		n = (long long)(unsigned long)(top_end - obj_size(p));
		break;
	case B_PAGE:
		n = a->kind == A_SIZE ? (long long)(page * 8 / a->unit) + v->off
				      : (long long)(unsigned long)(top_end + page);
		break;
	default:
		return false;
	}
	*value = (unsigned long)n;
	return true;
}

/* How much of an object of size bytes at addr is in the top arena. */
static size_t mapped_at(unsigned long addr, size_t size)
{
	unsigned long start = (unsigned long)top_end - ARENA_BYTES, end = (unsigned long)top_end;

	if (addr < start || addr >= end)
		return 0;
	return end - addr < size ? end - addr : size;
}

static unsigned long arg_one(const struct argrow *a, const struct path *q,
			     const struct argval *v, bool reference)
{
	char pos[64];
	struct run r = { .pos = pos };
	size_t size = obj_size(q);

	if (!arg_value(a, q, v, &r.arg))
		return 0;
	snprintf(pos, sizeof(pos), "arg:%s=%s", a->arg, v->name);
	if (a->kind == A_SIZE) {
		r.obj = top_end - ARGWIN;
		r.mapped = ARGWIN;
		memset(pre, SENTINEL, ARGWIN);
		if (q->fill)
			q->fill(pre);
		if (a->poke)
			a->poke(pre, r.arg);
	} else {
		r.obj = (unsigned char *)r.arg;
		r.mapped = mapped_at(r.arg, size);
		prefill(q, pre);
	}
	memcpy(r.obj, pre, r.mapped);
	call(q, &r);
	if (reference)
		memcpy(ref, r.obj, r.mapped);
	record(q, &r, r.mapped > 0);
	return 1;
}

static const char *kind_name(const struct argrow *a)
{
	return a->kind == A_SIZE ? "size" : "pointer";
}

static void argsweep(const struct argrow *a)
{
	const struct path *p;
	const char *skip, *regions;
	struct path q;
	unsigned long n = 0;

	if (a->unreachable) {
		out("# argsweep-skip %s %s arg=%s kind=%s reason=%s", a->path, ARCH, a->arg,
		    kind_name(a), a->unreachable);
		return;
	}
	p = path_named(a->path);
	skip = p->setup ? p->setup(p) : NULL;
	if (!skip && !top_end)
		skip = top_skip;
	if (skip) {
		out("# argsweep-skip %s %s arg=%s kind=%s reason=%s", p->name, ARCH, a->arg,
		    kind_name(a), skip);
		return;
	}
	q = *p;
	regions = p->regions[ARCH_IDX] ? p->regions[ARCH_IDX] : p->regions[0];
	out("# argsweep-row %s %s arg=%s kind=%s %s", p->name, ARCH, a->arg, kind_name(a),
	    *regions ? regions : "-");
	/* in a child: a signal is recorded, and nothing a call changes stays */
	q.flags |= F_CHILD;
	/* a size row maps the whole window: a chunk per element, or a word */
	if (a->kind == A_SIZE) {
		size_t chunk = q.chunk ? q.chunk : q.step;

		if (chunk < a->unit / 8)
			chunk = a->unit / 8;
		q.chunk = chunk < sizeof(long) ? sizeof(long) : chunk;
	}
	if (a->call)
		q.call = a->call;
	for (const struct argval *v = a->kind == A_SIZE ? size_values : ptr_values; v->name; v++)
		n += arg_one(a, &q, v, n == 0);
	for (const struct argval *v = a->extra; v && v->name; v++)
		n += arg_one(a, &q, v, false);
	out("# argsweep-count %s %s arg=%s values=%lu", p->name, ARCH, a->arg, n);
}

/* ------------------------------------------------------------------ */
/* Setup */

static void *map_fixed(unsigned long addr, size_t len)
{
	return mmap((void *)addr, len, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
}

/*
 * Address-space randomisation put the stack (of a compat task, whose
 * stack top is TASK_SIZE) where the top walk goes; a sweep without the
 * walk has ~950 records fewer than the other kernel's.  exec again, up to
 * TOP_TRIES times, for another layout: the stack moves, the sweep's own
 * mappings are fixed.  Nothing has been printed yet.
 */
#define TOP_TRIES	16

static void reexec_for_top(void)
{
	const char *tries = getenv("FAULTSWEEP_TOP_TRIES");
	int n = tries ? atoi(tries) : 0;
	char buf[16];

	if (n >= TOP_TRIES)
		return;
	snprintf(buf, sizeof(buf), "%d", n + 1);
	setenv("FAULTSWEEP_TOP_TRIES", buf, 1);
	execv("/proc/self/exe", self_argv);
}

/*
 * The highest page the task can map: probe downwards from each power of
 * two; ENOMEM is beyond TASK_SIZE, EEXIST a page in use (then there is
 * no top walk, which a record would show).
 */
static void find_top(void)
{
	for (int bit = sizeof(long) * 8 - 1; bit >= 24; bit--) {
		for (int k = 1; k <= 4; k++) {
			unsigned long end = (bit == sizeof(long) * 8 - 1 ? 0UL : 1UL << bit) -
					    (k - 1) * page;
			unsigned long start = end - ARENA_BYTES;
			void *m;

			if (end == 0 && k == 1)
				continue;	/* the whole range up to 2^64 */
			m = map_fixed(start, ARENA_BYTES);
			if (m == MAP_FAILED) {
				if (errno == EEXIST) {
					top_skip = "top-page-in-use";
					reexec_for_top();
					return;
				}
				continue;
			}
			if ((unsigned long)m != start) {
				munmap(m, ARENA_BYTES);
				continue;
			}
			top_end = (unsigned char *)end;
			return;
		}
	}
	top_skip = "no-top-page";
}

static void mkfile(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);

	if (fd < 0)
		die(path);
	close(fd);
}

/* A private tmpfs: the same inode numbers, offsets and device in every run. */
static void setup_fs(void)
{
	const char *tmp = getenv("FAULTSWEEP_TMP");
	char p[256];
	bool private_fs = false;

	snprintf(base, sizeof(base), "%s/faultsweep", tmp ? tmp : "/tmp");
	mkdir(base, 0755);
	if (unshare(CLONE_NEWNS) == 0 &&
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
	    mount("faultsweep", base, "tmpfs", 0, "size=1m,mode=755") == 0)
		private_fs = true;
	if (!private_fs)
		out("# sweep-note %s no private tmpfs (%s): inode numbers may differ between runs",
		    ARCH, strerror(errno));
	snprintf(dir_path, sizeof(dir_path), "%s/d", base);
	snprintf(file_path, sizeof(file_path), "%s/file", base);
	mkdir(dir_path, 0755);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir_path, names[i]);
		mkfile(p);
	}
	mkfile(file_path);
	dir_fd = open(dir_path, O_RDONLY | O_DIRECTORY);
	file_fd = open(file_path, O_RDWR);
	if (dir_fd < 0 || file_fd < 0)
		die("open test files");
	snprintf(path_copy, sizeof(path_copy), "%s", file_path);
}

static void setup_fds_global(void)
{
	int fds[2];

	if (pipe(fds) < 0 || dup2(fds[0], READY_FD) < 0)
		die("pipe");
	close(fds[0]);
	ready_rfd = READY_FD;
	ready_wfd = fds[1];
	if (write(ready_wfd, "r", 1) != 1)
		die("write");
	if (pipe(fds) < 0 || dup2(fds[0], EMPTY_FD) < 0)
		die("pipe");
	close(fds[0]);
	empty_rfd = EMPTY_FD;
	empty_wfd = fds[1];
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sock) < 0 ||
	    socketpair(AF_UNIX, SOCK_DGRAM, 0, sock_rights) < 0)
		die("socketpair");
	int on = 1;
	if (setsockopt(sock[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) < 0)
		die("SO_PASSCRED");
}

static void setup_memory(void)
{
	unsigned char *a;

	page = sysconf(_SC_PAGESIZE);
	shared = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		die("mmap shared");
	/* the arena and the page after it, which is then unmapped */
	a = map_fixed(ARENA_ADDR, ARENA_BYTES + page);
	if (a != (unsigned char *)ARENA_ADDR)
		die("mmap arena");
	hole_end = a + ARENA_BYTES;
	munmap(hole_end, page);
	find_top();
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			out("# sweep-note %s cannot write %s", ARCH, path);
		close(fd);
	}
}

/* As /init: mount what the sweep needs, run it in a child, power off. */
static void be_init(char **argv)
{
	pid_t pid, done;
	int status = 0;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mkdir("/tmp", 01777);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	/*
	 * Warnings and worse only (a level below 5: KERN_WARNING is 4, and
	 * WARN() and KUAP's "Bug:" lines print at it), no "segfault at"
	 * lines: nothing else splits a record.
	 */
	write_file("/proc/sys/kernel/printk", "5\n");
	write_file("/proc/sys/debug/exception-trace", "0\n");
	out("# faultsweep-init begin");
	pid = fork();
	if (pid == 0) {
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	/* reap every orphan; the sweep's own status is what /init reports */
	while ((done = wait(&status)) > 0 || errno == EINTR)
		if (done == pid)
			out("# faultsweep-init %s exit %d", ARCH,
			    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	out("# faultsweep-init end");
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

/* The paths the command line names by prefix; all without one. */
static bool wanted(const char *name, int argc, char **argv)
{
	for (int a = 1; a < argc; a++)
		if (!strncmp(name, argv[a], strlen(argv[a])))
			return true;
	return argc < 2;
}

int main(int argc, char **argv)
{
	const char *tun = getenv("GLIBC_TUNABLES");

	if (argc > 1 && !strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < NPATHS; i++)
			printf("%-28s %s\n", paths[i].name, paths[i].region);
		for (size_t i = 0; i < NARGS; i++)
			printf("%-28s argument %s (%s)\n", args[i].path, args[i].arg,
			       kind_name(&args[i]));
		return 0;
	}
	self_argv = argv;
	if (getpid() == 1)
		be_init(argv);
	/* glibc registers its own rseq area; without it ours can register */
	if (!tun || !strstr(tun, "glibc.pthread.rseq=0")) {
		setenv("GLIBC_TUNABLES", "glibc.pthread.rseq=0", 1);
		execv("/proc/self/exe", argv);
		die("re-exec with GLIBC_TUNABLES");
	}
	signal(SIGPIPE, SIG_IGN);
	setup_memory();
	setup_fs();
	setup_fds_global();
	out("# sweep-start %s paths=%zu top=%s", ARCH, NPATHS, top_end ? "yes" : top_skip);
	for (size_t i = 0; i < NPATHS; i++)
		if (wanted(paths[i].name, argc, argv))
			sweep(&paths[i]);
	for (size_t i = 0; i < NARGS; i++)
		if (wanted(args[i].path, argc, argv))
			argsweep(&args[i]);
	out("# sweep-done %s paths=%lu skipped=%lu records=%lu", ARCH, npaths, nskipped, nrecords);
	return 0;
}
