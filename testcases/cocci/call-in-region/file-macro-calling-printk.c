// SPDX-License-Identifier: GPL-2.0
/* A macro of the file that logs: pr_info() runs inside the scope. */
#define note_clear(cpu)	pr_info("rseq: cleared on %d\n", (cpu))

static bool clear_cs(struct rseq __user *rseq, int cpu)
{
	scoped_user_write_access(rseq, efault) {
		unsafe_put_user(0ULL, &rseq->rseq_cs, efault);
		note_clear(cpu);
	}
	return true;
efault:
	return false;
}
