// SPDX-License-Identifier: GPL-2.0
/*
 * emulate_dcbz() under a uprobe, for powerpc64le QEMU.
 *
 * Run as /init, the program puts a uprobe on its own dcbz instruction:
 * uprobes step a probed instruction by emulating it (emulate_step(),
 * which for dcbz is emulate_dcbz()), so the block the program then finds
 * cleared is the emulation's.  dcbz clears the cache block that holds its
 * effective address; the program runs it on a block-aligned address and
 * on one 8 bytes into a block, and compares the bytes cleared with that
 * block.  The uprobe's hit count proves the emulation ran, not the
 * hardware.  Results are KTAP lines on the console, then it powers off.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/mount.h>
#include <sys/reboot.h>

#define TRACING "/sys/kernel/tracing"
#define PROBE "fixes_dcbz"

extern char dcbz_insn[];

static void __attribute__((noinline)) zero_block(void *p)
{
	asm volatile(".globl dcbz_insn\n"
		     "dcbz_insn:\n"
		     "	dcbz 0, %0\n" : : "r"(p) : "memory");
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The file offset of addr in the executable mapping of /init. */
static long file_offset(void *addr)
{
	unsigned long start, end, off, a = (unsigned long)addr;
	char line[512], perms[8];
	FILE *maps = fopen("/proc/self/maps", "r");
	long found = -1;

	if (!maps)
		return -1;
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &start, &end, perms, &off) == 4 &&
		    a >= start && a < end && strchr(perms, 'x'))
			found = (long)(a - start + off);
	}
	fclose(maps);
	return found;
}

static long probe_hits(void)
{
	char line[512], name[128];
	long hits = -1, n;
	FILE *profile = fopen(TRACING "/uprobe_profile", "r");

	if (!profile)
		return -1;
	while (fgets(line, sizeof(line), profile))
		if (sscanf(line, "%*s %127s %ld", name, &n) == 2 && !strcmp(name, PROBE))
			hits = n;
	fclose(profile);
	return hits;
}

/* The run of cleared bytes in buf, as [first, last]; -1 when none. */
static void cleared(const unsigned char *buf, size_t size, long *first, long *last)
{
	*first = *last = -1;
	for (size_t i = 0; i < size; i++) {
		if (buf[i])
			continue;
		if (*first < 0)
			*first = (long)i;
		*last = (long)i;
	}
}

static int check(int n, const char *what, unsigned char *buf, size_t size, size_t at, size_t block)
{
	long want = (long)(at & ~(block - 1)), first, last;

	memset(buf, 0xff, size);
	zero_block(buf + at);
	cleared(buf, size, &first, &last);
	if (first == want && last == want + (long)block - 1) {
		printf("ok %d %s: dcbz at %zu cleared bytes %ld-%ld\n", n, what, at, first, last);
		return 0;
	}
	printf("not ok %d %s: dcbz at %zu must clear bytes %ld-%ld, cleared %ld-%ld\n",
	       n, what, at, want, want + (long)block - 1, first, last);
	return 1;
}

int main(void)
{
	size_t block = getauxval(AT_DCACHEBSIZE);
	unsigned char *buf;
	char def[256];
	long offset, hits;
	int failed = 0;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("tracefs", TRACING, "tracefs", 0, NULL);
	printf("# fixes-dcbz begin\n1..3\n");
	offset = file_offset(dcbz_insn);
	snprintf(def, sizeof(def), "p:" PROBE " /init:0x%lx\n", offset);
	if (!block || block & (block - 1) || offset < 0 ||
	    write_file(TRACING "/uprobe_events", def) ||
	    write_file(TRACING "/events/uprobes/" PROBE "/enable", "1")) {
		printf("Bail out! no uprobe on dcbz (block %zu, offset %ld)\n", block, offset);
		goto out;
	}
	if (posix_memalign((void **)&buf, block, 4 * block))
		goto out;
	failed |= check(1, "aligned", buf, 4 * block, block, block);
	failed |= check(2, "unaligned", buf, 4 * block, 2 * block + 8, block);
	hits = probe_hits();
	if (hits == 2)
		printf("ok 3 the uprobe ran both: the kernel emulated them\n");
	else
		printf("not ok 3 the uprobe ran %ld of 2: the hardware ran the others\n", hits);
	printf("# block %zu bytes, %s\n", block, failed ? "emulate_dcbz() cleared the wrong bytes"
							: "emulate_dcbz() cleared the block");
out:
	printf("# fixes-dcbz end\n");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
