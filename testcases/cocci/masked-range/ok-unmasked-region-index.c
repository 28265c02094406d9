// SPDX-License-Identifier: GPL-2.0
/* Without masking the begin checks the whole range: any first access. */
static int get_slot(u64 *val, const u64 __user *table, unsigned int n, unsigned int idx)
{
	if (!user_read_access_begin(table, n * sizeof(*table)))
		return -EFAULT;
	unsafe_get_user(*val, &table[idx], Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
