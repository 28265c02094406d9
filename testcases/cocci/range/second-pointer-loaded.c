// SPDX-License-Identifier: GPL-2.0
/* A user pointer loaded inside the region is outside the checked range. */
static int get_first_len(struct user_msghdr *msg, struct user_msghdr __user *umsg,
			 size_t *len)
{
	if (!user_access_begin(umsg, sizeof(*umsg)))
		return -EFAULT;
	unsafe_get_user(msg->msg_iov, &umsg->msg_iov, ua_end);
	unsafe_get_user(*len, &msg->msg_iov[0].iov_len, ua_end);
	user_access_end();
	return 0;
ua_end:
	user_access_end();
	return -EFAULT;
}
