// SPDX-License-Identifier: GPL-2.0
/* A wrapper macro of the file that reads, in a read region whose fault path ends it. */
#define unsafe_get_pair(a, b, uptr, label) do {			\
	unsafe_get_user(a, &(uptr)[0], label);			\
	unsafe_get_user(b, &(uptr)[1], label);			\
} while (0)

static int get_pair(const u32 __user *up, u32 *a, u32 *b)
{
	if (!user_read_access_begin(up, 2 * sizeof(*up)))
		return -EFAULT;
	unsafe_get_pair(*a, *b, up, efault);
	user_read_access_end();
	return 0;
efault:
	user_read_access_end();
	return -EFAULT;
}
