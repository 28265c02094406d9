// Two regions, each with a fault label that ends its own kind of region
// and returns -EFAULT (emulate_spe() in arch/powerpc/kernel/align.c):
// once the scopes end the regions, the labels do the same thing, and
// the second merges into the first under the name they share.
// EXPECT: converted-fault-label
// EXPECT: converted-fault-label
static int swap_word(u32 __user *addr, u32 *val)
{
	u32 old;

	if (!user_read_access_begin(addr, sizeof(*addr)))
		return -EFAULT;
	unsafe_get_user(old, addr, Efault_read);
	user_read_access_end();

	if (!user_write_access_begin(addr, sizeof(*addr)))
		return -EFAULT;
	unsafe_put_user(*val, addr, Efault_write);
	user_write_access_end();

	*val = old;
	return 0;

Efault_read:
	user_read_access_end();
	return -EFAULT;

Efault_write:
	user_write_access_end();
	return -EFAULT;
}
