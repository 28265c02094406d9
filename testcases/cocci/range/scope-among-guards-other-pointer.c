// SPDX-License-Identifier: GPL-2.0
/* Inside a scope among guards, a read through a second user pointer. */
static int read_other(struct foo *f, const struct pair __user *up, u32 __user *other)
{
	u32 v;

	guard(rcu)();
	scoped_user_read_access(up, efault) {
		scoped_guard(irqsave, &f->slock)
			f->seen++;
		unsafe_get_user(v, other, efault);
	}
	return v;
efault:
	return -EFAULT;
}
