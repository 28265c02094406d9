// SPDX-License-Identifier: GPL-2.0
/*
 * A helper that only ends its caller's region, like the scope's cleanup
 * class: deliberately not reported.
 */
static __always_inline void scope_end(const void __user *ptr)
{
	user_read_access_end();
}
