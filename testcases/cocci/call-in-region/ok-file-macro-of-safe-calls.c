// SPDX-License-Identifier: GPL-2.0
/* A macro of the file whose body is a per-CPU increment (rseq_entry.h's
 * rseq_stat_inc()): it runs inline where it is used. */
#define stat_inc(which)	this_cpu_inc((which))

static bool clear_cs(struct rseq __user *rseq)
{
	scoped_user_write_access(rseq, efault) {
		unsafe_put_user(0ULL, &rseq->rseq_cs, efault);
		stat_inc(stats.clear);
	}
	return true;
efault:
	return false;
}
