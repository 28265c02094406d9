// Must not change: an indexed access may lie more than one page from the
// pointer, which masking does not cover.
// EXPECT: skip:masked-range
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
