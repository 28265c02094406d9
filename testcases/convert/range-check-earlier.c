// The same range was checked earlier on every path to the begin (a
// condition that leaves when access_ok() fails, neither the pointer nor
// the size set since): the begin's check always passes, and the region
// can leave early without access_ok() again in front of the scope.
// EXPECT: converted-fault-label+tail-out
// EXPECT: converted-two-level
static long restore_context(struct ucontext __user *new_ctx, long ctx_size)
{
	unsigned long msr;

	if (!access_ok(new_ctx, ctx_size) || fault_in_readable((char __user *)new_ctx, ctx_size))
		return -EFAULT;
	prepare_restore();
	if (!user_read_access_begin(new_ctx, ctx_size))
		return -EFAULT;
	unsafe_get_user(msr, &new_ctx->uc_flags, efault_out);
	if (msr & 1) {
		user_read_access_end();
		force_exit_sig(SIGSEGV);
		return -EFAULT;
	}
	user_read_access_end();
	return 0;
efault_out:
	user_read_access_end();
	return -EFAULT;
}

// A copy_from_user() of the same range checked it on the way (i915's
// execbuffer ioctl writes offsets back through a pointer set from the
// same argument, the size spelled the other way round).
static int copy_back(struct args *args, struct entry *list)
{
	const size_t count = args->count;
	int err;

	if (copy_from_user(list, u64_to_user_ptr(args->ptr), sizeof(*list) * count)) {
		kvfree(list);
		return -EFAULT;
	}
	err = work(list, count);
	if (args->flags & WRITE_BACK) {
		struct entry __user *user_list = u64_to_user_ptr(args->ptr);
		unsigned int i;

		if (!user_write_access_begin(user_list, count * sizeof(*user_list)))
			goto end;
		for (i = 0; i < count; i++) {
			if (!(list[i].flags & UPDATE))
				continue;
			unsafe_put_user(list[i].offset, &user_list[i].offset, end_user);
		}
end_user:
		user_write_access_end();
end:;
	}
	return err;
}
