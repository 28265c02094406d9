// break statements of a switch inside the region belong to the switch,
// not to the scope; the accesses are in an asm macro, so the mode is the
// begin's.
// EXPECT: converted-no-fault+label
static int atomic_op(int op, int oparg, int *oval, u32 __user *uaddr)
{
	int oldval = 0, ret;

	if (!user_access_begin(uaddr, sizeof(*uaddr)))
		return -EFAULT;
	switch (op) {
	case 0:
		__futex_atomic_op("mr %1,%4\n", ret, oldval, uaddr, oparg);
		break;
	default:
		ret = -ENOSYS;
	}
	user_access_end();
	*oval = oldval;
	return ret;
}
