// SPDX-License-Identifier: GPL-2.0
/* Casts of the begin pointer, typeof() ones too, stay within its object. */
struct frame { u32 flags; u64 addr; };

static int get_frame(u32 *flags, u64 *addr, struct frame __user *uf)
{
	scoped_user_read_access(uf, Efault) {
		unsafe_get_user(*flags, (u32 __user *)&uf->flags, Efault);
		unsafe_get_user(*addr, (typeof(&uf->addr))&uf->addr, Efault);
	}
	if (!user_read_access_begin(uf, sizeof(*uf)))
		return -EFAULT;
	unsafe_get_user(*flags, (typeof(uf))uf, Efault_end);
	user_read_access_end();
	return 0;
Efault_end:
	user_read_access_end();
Efault:
	return -EFAULT;
}
