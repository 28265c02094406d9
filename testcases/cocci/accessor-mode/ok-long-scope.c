// SPDX-License-Identifier: GPL-2.0
/*
 * A long scope, like cp_stat64() after its conversion: 16 accessors with
 * statements between them, then a loop of 16 more.  Correct code; it is
 * here for the time it takes.  A nest <+... f(...) ...+> that binds the
 * call costs spatch time exponential in the accessors of the scope (eight
 * took two minutes); the rules match one call at a time instead.
 */
struct stat64_like {
	unsigned long long f[32];
};

static int fill_stat(struct stat64_like __user *ubuf, const unsigned long long *v)
{
	unsigned long long sum = 0, x;
	int i;

	scoped_user_rw_access(ubuf, Efault) {
		unsafe_put_user(v[0], &ubuf->f[0], Efault);
		sum += v[0];
		unsafe_put_user(v[1], &ubuf->f[1], Efault);
		sum += v[1];
		unsafe_put_user(v[2], &ubuf->f[2], Efault);
		sum += v[2];
		unsafe_put_user(v[3], &ubuf->f[3], Efault);
		sum += v[3];
		unsafe_put_user(v[4], &ubuf->f[4], Efault);
		sum += v[4];
		unsafe_put_user(v[5], &ubuf->f[5], Efault);
		sum += v[5];
		unsafe_put_user(v[6], &ubuf->f[6], Efault);
		sum += v[6];
		unsafe_put_user(v[7], &ubuf->f[7], Efault);
		sum += v[7];
		unsafe_put_user(v[8], &ubuf->f[8], Efault);
		sum += v[8];
		unsafe_put_user(v[9], &ubuf->f[9], Efault);
		sum += v[9];
		unsafe_put_user(v[10], &ubuf->f[10], Efault);
		sum += v[10];
		unsafe_put_user(v[11], &ubuf->f[11], Efault);
		sum += v[11];
		unsafe_put_user(v[12], &ubuf->f[12], Efault);
		sum += v[12];
		unsafe_put_user(v[13], &ubuf->f[13], Efault);
		sum += v[13];
		unsafe_put_user(v[14], &ubuf->f[14], Efault);
		sum += v[14];
		unsafe_put_user(v[15], &ubuf->f[15], Efault);
		sum += v[15];
		for (i = 0; i < 16; i++) {
			unsafe_get_user(x, &ubuf->f[0], Efault);
			sum ^= x;
			unsafe_get_user(x, &ubuf->f[1], Efault);
			sum ^= x;
			unsafe_get_user(x, &ubuf->f[2], Efault);
			sum ^= x;
			unsafe_get_user(x, &ubuf->f[3], Efault);
			sum ^= x;
			unsafe_get_user(x, &ubuf->f[4], Efault);
			sum ^= x;
			unsafe_get_user(x, &ubuf->f[5], Efault);
			sum ^= x;
			unsafe_get_user(x, &ubuf->f[6], Efault);
			sum ^= x;
			unsafe_get_user(x, &ubuf->f[7], Efault);
			sum ^= x;
			unsafe_get_user(x, &ubuf->f[8], Efault);
			sum ^= x;
			unsafe_get_user(x, &ubuf->f[9], Efault);
			sum ^= x;
			unsafe_get_user(x, &ubuf->f[10], Efault);
			sum ^= x;
			unsafe_get_user(x, &ubuf->f[11], Efault);
			sum ^= x;
			unsafe_get_user(x, &ubuf->f[12], Efault);
			sum ^= x;
			unsafe_get_user(x, &ubuf->f[13], Efault);
			sum ^= x;
			unsafe_get_user(x, &ubuf->f[14], Efault);
			sum ^= x;
			unsafe_get_user(x, &ubuf->f[15], Efault);
			sum ^= x;
		}
	}
	return sum ? 0 : -EINVAL;
Efault:
	return -EFAULT;
}
