// The fault label sets the result the function already holds and jumps
// to the label the begin failure goes to (do_sys_poll() in fs/select.c):
// err is -EFAULT from its declaration, the only other write before the
// region leaves past it, so once the scope ends the region the fault
// label adds nothing and the accessors jump to out_free directly (also
// when the accessor, wrapped, has the label on a line of its own).
// EXPECT: converted-two-level+cursor
static int report_all(struct entry __user *uents, struct list *head, unsigned int n)
{
	struct list *walk;
	int err = -EFAULT, count;

	walk = alloc_list(n);
	if (!walk) {
		err = -ENOMEM;
		goto out_free;
	}
	count = fill(head, walk);

	if (!user_write_access_begin(uents, n * sizeof(*uents)))
		goto out_free;
	for (walk = head; walk; walk = walk->next) {
		struct entry *e = walk->entries;
		unsigned int j;

		for (j = walk->len; j; e++, uents++, j--)
			unsafe_put_user(e->result_of_the_entry_and_more, &uents->result_of_the_entry_and_more, Efault);
	}
	user_write_access_end();

	err = count;
out_free:
	free_list(head);
	return err;

Efault:
	user_write_access_end();
	err = -EFAULT;
	goto out_free;
}
