// SPDX-License-Identifier: GPL-2.0
/* The first access after masking is at an index from the caller. */
static int get_slot(u64 *val, const u64 __user *table, unsigned int idx)
{
	table = masked_user_access_begin(table);
	unsafe_get_user(*val, &table[idx], Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
