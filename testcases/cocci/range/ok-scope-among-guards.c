// SPDX-License-Identifier: GPL-2.0
/* Mainline's constructs around and inside a scope: guard(), scoped_guard(),
 * auto, __free() and a statement expression. */
static int read_pair(struct foo *f, const struct pair __user *up, struct pair *kp)
{
	struct buf *b __free(kfree) = kzalloc(sizeof(*b), GFP_KERNEL);
	auto n = ({ int __x = f->count; __x + 1; });

	guard(mutex)(&f->lock);
	if (!b)
		return -ENOMEM;
	scoped_guard(spinlock, &f->slock) {
		f->seen++;
	}
	scoped_user_read_access(up, efault) {
		unsafe_get_user(kp->a, &up->a, efault);
		unsafe_get_user(kp->b, &up->b, efault);
	}
	scoped_guard(irq) {
		f->count = n;
	}
	return 0;
efault:
	return -EFAULT;
}

static int read_other(struct foo *f, const struct pair __user *up, u32 __user *other)
{
