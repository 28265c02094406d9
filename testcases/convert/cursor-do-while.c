// The cursor walks a do-while loop (copy_iovec_from_user()): the scope
// takes the statements in front of the loop, and spatch leaves an empty
// block where they were; the driver drops it.  The loop can leave early
// with -EINVAL (goto uaccess_end): past the top of user space it could
// do so before an access faults, so access_ok() of the range stays.
// EXPECT: converted-shared-exit+cursor+range-check+label
static int copy_iovecs(struct iovec *iov, const struct iovec __user *uiov,
		       unsigned long nr_segs)
{
	int ret = -EFAULT;

	if (!user_access_begin(uiov, nr_segs * sizeof(*uiov)))
		return -EFAULT;

	do {
		void __user *buf;
		ssize_t len;

		unsafe_get_user(len, &uiov->iov_len, uaccess_end);
		unsafe_get_user(buf, &uiov->iov_base, uaccess_end);
		if (unlikely(len < 0)) {
			ret = -EINVAL;
			goto uaccess_end;
		}
		iov->iov_base = buf;
		iov->iov_len = len;
		uiov++; iov++;
	} while (--nr_segs);

	ret = 0;
uaccess_end:
	user_access_end();
	return ret;
}
