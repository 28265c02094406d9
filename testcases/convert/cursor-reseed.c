// The region's pointer is a local copy of a parameter, advanced inside
// and read after the region: the scope opens on the parameter, and the
// copy, set from the scope's pointer first thing in the scope, stays the
// cursor.  A parameter named in a comment (ubuf) is not a use.
// EXPECT: converted-fault-label+cursor
static int set_regs(unsigned int count, const void __user *ubuf, unsigned long *regs)
{
	const u32 __user *u = ubuf;
	u32 reg;

	if (!user_read_access_begin(u, count))
		return -EFAULT;
	for (; count > 0; count -= sizeof(reg)) {
		unsafe_get_user(reg, u++, Efault);
		*regs++ = reg;
	}
	user_read_access_end();
	ubuf = u;
	return consumed(ubuf);
Efault:
	user_read_access_end();
	return -EFAULT;
}
