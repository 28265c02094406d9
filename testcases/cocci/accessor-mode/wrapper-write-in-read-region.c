// SPDX-License-Identifier: GPL-2.0
/* A wrapper macro of the file that writes, in a read-only region. */
#define unsafe_put_pair(a, b, uptr, label) do {			\
	unsafe_put_user(a, &(uptr)[0], label);			\
	unsafe_put_user(b, &(uptr)[1], label);			\
} while (0)

static int swap_pair(u32 __user *up)
{
	u32 a, b;

	if (!user_read_access_begin(up, 2 * sizeof(*up)))
		return -EFAULT;
	unsafe_get_user(a, &up[0], efault);
	unsafe_get_user(b, &up[1], efault);
	unsafe_put_pair(b, a, up, efault);
	user_read_access_end();
	return 0;
efault:
	user_read_access_end();
	return -EFAULT;
}
