// SPDX-License-Identifier: GPL-2.0
/* A second user address clamped with array_index_nospec() inside a scope
 * (the rseq signature read): a macro that compiles to a few instructions,
 * not a call. */
static bool read_sig(struct rseq_cs __user *ucs, u32 *sig, unsigned long tasksize)
{
	u64 abort_ip;
	u32 __user *uc_sig;

	scoped_user_read_access(ucs, efault) {
		unsafe_get_user(abort_ip, &ucs->abort_ip, efault);
		if (abort_ip >= tasksize || abort_ip < sizeof(*uc_sig))
			return false;
		uc_sig = (u32 __user *)array_index_nospec((unsigned long)abort_ip - sizeof(*uc_sig),
							  tasksize);
		unsafe_get_user(*sig, uc_sig, efault);
	}
	return true;
efault:
	return false;
}
