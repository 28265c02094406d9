// SPDX-License-Identifier: GPL-2.0
/*
 * 8-byte user reads on ARM without CONFIG_CPU_SPECTRE, where __get_user()
 * is inline.  Before the series, its 8-byte case fell to __get_user_bad(),
 * which exists nowhere: the object compiled but the kernel failed to link.
 * `make cross` compiles this with the kbuild flags of the ARM build and
 * checks that the object does not reference __get_user_bad().
 */
#include <linux/uaccess.h>

int arm_get_user_u64(u64 __user *uptr, u64 *val);
int arm_get_user_u64(u64 __user *uptr, u64 *val)
{
	u64 a, b, c, d;

	if (get_user(a, uptr) || __get_user(b, uptr) ||
	    get_user_inline(c, uptr))
		return -EFAULT;
	scoped_user_read_access(uptr, efault)
		unsafe_get_user(d, uptr, efault);
	*val = a ^ b ^ c ^ d;
	return 0;
efault:
	return -EFAULT;
}
