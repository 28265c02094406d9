// The region is the body of a statement-expression macro (as the
// snd_pcm_sync_ptr_*_user() macros of sound/core/pcm_native.c are): the
// converter rewrites functions, and leaves the macro as it is.
// EXPECT: skip:macro
#define sync_get_user(__f, __ptr) ({					\
	__label__ failed, failed_begin;					\
	int __err = -EFAULT;						\
	typeof(*(__ptr)) __user *__src = (__ptr);			\
									\
	if (!user_read_access_begin(__src, sizeof(*__src)))		\
		goto failed_begin;					\
	unsafe_get_user(__f, &__src->flags, failed);			\
	__err = 0;							\
failed:									\
	user_read_access_end();						\
failed_begin:								\
	__err;								\
})

static int sync_ptr(struct sync __user *uptr)
{
	u32 flags;
	int err;

	err = sync_get_user(flags, uptr);
	if (err)
		return err;
	return flags;
}
