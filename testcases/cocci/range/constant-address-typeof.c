// SPDX-License-Identifier: GPL-2.0
/* A typeof() cast does not tie a constant to the pointer it names. */
static int get_word(u32 *val, const u32 __user *uaddr)
{
	scoped_user_read_access(uaddr, Efault) {
		unsafe_get_user(*val, (typeof(uaddr))(0x10UL), Efault);
	}
	return 0;
Efault:
	return -EFAULT;
}
