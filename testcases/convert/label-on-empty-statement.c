// The fault label holds only the end and falls into the label the begin
// failure jumps to, a label on an empty statement (`end:;`, the last thing
// in its block): the accessors jump to that label, and the fault label
// goes with the end.
// EXPECT: converted-two-level
static void update_offsets(struct entry *list, struct entry __user *ulist,
			   unsigned int count)
{
	unsigned int i;

	if (count) {
		if (!user_write_access_begin(ulist, count * sizeof(*ulist)))
			goto end;

		for (i = 0; i < count; i++)
			unsafe_put_user(list[i].offset, &ulist[i].offset, end_user);
end_user:
		user_write_access_end();
end:;
	}
	list_done(list);
}
