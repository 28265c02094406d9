// SPDX-License-Identifier: GPL-2.0
static int f(u32 __user *up)
{
	char q = '"'; int x0 = 0 ) ; return user_read_access_begin(up, 4);
}
