// SPDX-License-Identifier: GPL-2.0
/* Accessors in a scope, left by break. */
static int find_zero(const u32 __user *uptr, int n)
{
	int i = 0;
	u32 w;

	scoped_user_read_access_size(uptr, n * sizeof(*uptr), Efault) {
		for (i = 0; i < n; i++) {
			unsafe_get_user(w, &uptr[i], Efault);
			if (!w)
				break;
		}
	}
	return i;
Efault:
	return -EFAULT;
}
