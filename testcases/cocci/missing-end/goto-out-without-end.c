// SPDX-License-Identifier: GPL-2.0
/* An error check jumps past the end of the region. */
static int copy_iov(struct iovec *iov, const struct iovec __user *uiov, u32 nr)
{
	int ret = -EFAULT;
	u32 i;

	if (!user_access_begin(uiov, nr * sizeof(*uiov)))
		return -EFAULT;
	for (i = 0; i < nr; i++) {
		unsafe_get_user(iov[i].iov_len, &uiov[i].iov_len, uaccess_end);
		unsafe_get_user(iov[i].iov_base, &uiov[i].iov_base, uaccess_end);
		if ((ssize_t)iov[i].iov_len < 0) {
			ret = -EINVAL;
			goto out;
		}
	}
	ret = 0;
uaccess_end:
	user_access_end();
out:
	return ret;
}
