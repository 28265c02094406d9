// An access indexed by the counter of a loop from 0, with every element
// accessed in turn, walks the range densely as a cursor would: the walk
// meets the guard above user space before it could pass it, so no
// access_ok() in front (i915's eb_copy_relocations()).  A `continue`
// before the access makes the walk skip: then the check stays.
// EXPECT: converted-fault-label
// EXPECT: converted-fault-label+range-check
static int invalidate(struct reloc __user *urelocs, unsigned long n)
{
	unsigned long i;

	if (!user_write_access_begin(urelocs, n * sizeof(*urelocs)))
		return -EFAULT;
	for (i = 0; i < n; i++)
		unsafe_put_user(-1, &urelocs[i].presumed_offset, Efault);
	user_write_access_end();
	return 0;
Efault:
	user_write_access_end();
	return -EFAULT;
}

static int update(struct entry __user *uents, struct entry *ents, unsigned long n)
{
	unsigned long i;

	if (!user_write_access_begin(uents, n * sizeof(*uents)))
		return -EFAULT;
	for (i = 0; i < n; i++) {
		if (!ents[i].dirty)
			continue;
		unsafe_put_user(ents[i].offset, &uents[i].offset, Efault);
	}
	user_write_access_end();
	return 0;
Efault:
	user_write_access_end();
	return -EFAULT;
}
