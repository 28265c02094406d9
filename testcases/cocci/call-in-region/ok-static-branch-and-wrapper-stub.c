// SPDX-License-Identifier: GPL-2.0
/* A static key test and a wrapper macro of the file, defined a second
 * time as an empty stub for the other configuration (rseq_entry.h). */
#ifdef CONFIG_SLICE
#define slice_clear_user(u, efault)					\
do {									\
	if (slice_enabled())						\
		unsafe_put_user(0U, &u->slice, efault);			\
} while (0)
#else
#define slice_clear_user(u, efault) do { } while (0)
#endif

static bool set_ids(struct rseq __user *rseq, u32 cpu)
{
	scoped_user_rw_access(rseq, efault) {
		if (static_branch_unlikely(&debug_enabled))
			unsafe_put_user(cpu, &rseq->cpu_id_start, efault);
		unsafe_put_user(cpu, &rseq->cpu_id, efault);
		slice_clear_user(rseq, efault);
	}
	return true;
efault:
	return false;
}
