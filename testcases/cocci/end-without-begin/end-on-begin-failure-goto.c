// SPDX-License-Identifier: GPL-2.0
/* The failed begin jumps to a label that ends a region never begun. */
static int update_cpu_id(struct rseq __user *rseq, u32 cpu_id)
{
	if (!user_write_access_begin(rseq, sizeof(*rseq)))
		goto efault;
	unsafe_put_user(cpu_id, &rseq->cpu_id_start, efault);
	unsafe_put_user(cpu_id, &rseq->cpu_id, efault);
	user_write_access_end();
	return 0;
efault:
	user_write_access_end();
	return -EFAULT;
}
