// SPDX-License-Identifier: GPL-2.0
/* Scopes one after the other in a loop, left by continue and break. */
static int bump_all(u32 __user *uptr, int n)
{
	u32 val;
	int i;

	for (i = 0; i < n; i++) {
		scoped_user_rw_access(uptr, Efault) {
			unsafe_get_user(val, uptr, Efault);
			if (!val)
				continue;
			unsafe_put_user(val + 1, uptr, Efault);
		}
		scoped_user_read_access(uptr, Efault) {
			unsafe_get_user(val, uptr, Efault);
			if (val > 100)
				break;
		}
	}
	return 0;
Efault:
	return -EFAULT;
}
