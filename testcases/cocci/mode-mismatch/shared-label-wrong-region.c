// SPDX-License-Identifier: GPL-2.0
/* The write region's accessor jumps to the read region's fault label. */
static int emulate(u32 __user *addr, u32 *val, bool store)
{
	if (!store) {
		if (!user_read_access_begin(addr, sizeof(*addr)))
			return -EFAULT;
		unsafe_get_user(*val, addr, Efault_read);
		user_read_access_end();
	} else {
		if (!user_write_access_begin(addr, sizeof(*addr)))
			return -EFAULT;
		unsafe_put_user(*val, addr, Efault_read);
		user_write_access_end();
	}
	return 0;

Efault_read:
	user_read_access_end();
	return -EFAULT;
}
