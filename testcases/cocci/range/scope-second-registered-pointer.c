// SPDX-License-Identifier: GPL-2.0
/*
 * The shape of mainline's rseq update: inside a scope on the task's rseq
 * area, a write through a second user pointer that registration checked
 * and stored.  The scope checks and masks its own pointer only.
 */
static int rseq_set_cpu(struct task_struct *t, u32 cpu)
{
	struct rseq __user *rseq = t->rseq;

	scoped_user_write_access(rseq, efault) {
		unsafe_put_user(cpu, &rseq->cpu_id, efault);
		unsafe_put_user(cpu, &t->rseq_ids->cpu, efault);
	}
	return 0;
efault:
	return -EFAULT;
}
