// The masked prologue: masked begin where the architecture has it, the
// checked begin otherwise; one region, one scope.
// EXPECT: converted-masked
static int get_val(u32 __user *from, u32 *val)
{
	if (can_do_masked_user_access())
		from = masked_user_access_begin(from);
	else if (!user_read_access_begin(from, sizeof(*from)))
		return -EFAULT;
	unsafe_get_user(*val, from, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
