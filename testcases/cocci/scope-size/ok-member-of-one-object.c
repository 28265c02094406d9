// SPDX-License-Identifier: GPL-2.0
/* Members of the one object sizeof(*p) covers. */
struct pair {
	u32 a;
	u32 b;
};

static int get_pair(struct pair *to, const struct pair __user *p)
{
	scoped_user_read_access_size(p, sizeof(*p), Efault) {
		unsafe_get_user(to->a, &p->a, Efault);
		unsafe_get_user(to->b, &p->b, Efault);
	}
	return 0;
Efault:
	return -EFAULT;
}
