// SPDX-License-Identifier: GPL-2.0
/* Builtins, barriers and ALL_CAPS macros are fine in a region. */
static int put_version(struct steal_time __user *st, u32 version, u32 flags)
{
	if (!user_access_begin(st, sizeof(*st)))
		return -EFAULT;
	BUILD_BUG_ON(sizeof(st->version) != 4);
	if (unlikely(flags & ST_FLAG_FLUSH))
		version += 1;
	unsafe_put_user(version, &st->version, Efault);
	smp_wmb();
	unsafe_put_user(READ_ONCE(flags), &st->flags, Efault);
	unsafe_put_user(lower_32_bits(ST_MAGIC), &st->magic, Efault);
	user_access_end();
	return 0;
Efault:
	user_access_end();
	return -EFAULT;
}
