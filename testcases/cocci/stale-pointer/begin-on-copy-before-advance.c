// SPDX-License-Identifier: GPL-2.0
/* An open-coded region begun on a copy taken before the buffer pointer was
 * advanced past its header and checked. */
static int read_payload(const u8 __user *buf, size_t len, u32 *out)
{
	const u8 __user *p = buf;

	buf += HDR_LEN;
	if (!access_ok(buf, len))
		return -EFAULT;
	if (!user_read_access_begin(p, len))
		return -EFAULT;
	unsafe_get_user(*out, (const u32 __user *)p, Efault);
	user_read_access_end();
	return 0;
Efault:
	user_read_access_end();
	return -EFAULT;
}
