// SPDX-License-Identifier: GPL-2.0
/* Calls inside a scope: printk is an ERROR, a local plain function a WARNING. */
static u32 fold(u32 v)
{
	return v + 1;
}

static int get_fold(u32 *out, const u32 __user *uin)
{
	u32 v;

	scoped_user_read_access(uin, Efault) {
		unsafe_get_user(v, uin, Efault);
		pr_debug("read %u\n", v);
		*out = fold(v);
	}
	return 0;
Efault:
	return -EFAULT;
}
