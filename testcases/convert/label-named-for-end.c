// The fault label was named for the region end it made (ua_end); the
// scope ends the region now and the label only returns -EFAULT: it is
// named for what it does.
// EXPECT: converted-fault-label
static int copy_hdr(struct msghdr *msg, struct user_msghdr __user *umsg)
{
	if (!user_read_access_begin(umsg, sizeof(*umsg)))
		return -EFAULT;
	unsafe_get_user(msg->msg_name, &umsg->msg_name, ua_end);
	unsafe_get_user(msg->msg_namelen, &umsg->msg_namelen, ua_end);
	user_read_access_end();
	return 0;
ua_end:
	user_read_access_end();
	return -EFAULT;
}
