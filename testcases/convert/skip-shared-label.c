// Must not change: the first region alone could be converted, but its
// fault label also ends the second region, which cannot be (its pointer
// moves and is read after it); removing the end there would leave the
// second region open.
// EXPECT: skip:shared-label
// EXPECT: skip:pointer-modified
static int get_both(struct hdr __user *h, u32 __user *words, int n, u32 *out,
		    u32 __user **end)
{
	u32 v;

	if (!user_read_access_begin(h, sizeof(*h)))
		return -EFAULT;
	unsafe_get_user(v, &h->len, Efault);
	user_read_access_end();
	if (!user_read_access_begin(words, n * sizeof(u32)))
		return -EFAULT;
	while (n--)
		unsafe_get_user(*out++, words++, Efault);
	user_read_access_end();
	*end = words;
	return v;
Efault:
	user_read_access_end();
	return -EFAULT;
}
