// An indexed access may lie more than one page from the pointer, which
// masking does not cover: access_ok() of the whole range stays in front
// of the scope.
// EXPECT: converted-fault-label+range-check
static int put_offsets(struct reloc __user *urelocs, const u64 *offs, int i, int n)
{
	if (!user_write_access_begin(urelocs, n * sizeof(*urelocs)))
		return -EFAULT;
	unsafe_put_user(offs[i], &urelocs[i].offset, Efault);
	user_write_access_end();
	return 0;
Efault:
	user_write_access_end();
	return -EFAULT;
}
