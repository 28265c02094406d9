# SPDX-License-Identifier: GPL-2.0
"""The user access API's names, as the project's Python reads them.

The checker, the converter's driver and its analysis (which
convert_scoped_uaccess.cocci imports) take the API's begins, ends,
scopes and accessors from here.  The kernel-form checker scripts stand
alone, as coccicheck runs them from scripts/coccinelle/: they name what
they match in SmPL, and a unit test (test_layout.ApiTablesTest) holds
their gate rules to these tables.
"""

import re
from typing import Optional


# Begin of an open-coded region -> access mode.
OPEN_BEGINS: dict[str, str] = {
	'user_access_begin': 'rw',
	'user_rw_access_begin': 'rw',
	'user_read_access_begin': 'read',
	'user_write_access_begin': 'write',
}
# Masked begins return the pointer to use.  6.12's masked_user_access_begin()
# has no mode (None): any end fits it.  The others come with the series.
MASKED_BEGINS: dict[str, Optional[str]] = {
	'masked_user_access_begin': None,
	'masked_user_rw_access_begin': 'rw',
	'masked_user_read_access_begin': 'read',
	'masked_user_write_access_begin': 'write',
}
ENDS: dict[str, str] = {
	'user_access_end': 'rw',
	'user_rw_access_end': 'rw',
	'user_read_access_end': 'read',
	'user_write_access_end': 'write',
}
END_FOR_MODE: dict[str, str] = {
	'rw': 'user_access_end',
	'read': 'user_read_access_end',
	'write': 'user_write_access_end',
}
# The scopes the series adds (include/linux/uaccess.h) -> access mode.
SCOPES: dict[str, str] = {
	'scoped_user_read_access': 'read',
	'scoped_user_read_access_size': 'read',
	'scoped_user_write_access': 'write',
	'scoped_user_write_access_size': 'write',
	'scoped_user_rw_access': 'rw',
	'scoped_user_rw_access_size': 'rw',
}
# The scope a conversion writes, per mode; `_size` is appended when the
# size is not sizeof(*ptr).
SCOPE_FOR_MODE: dict[str, str] = {
	'read': 'scoped_user_read_access',
	'write': 'scoped_user_write_access',
	'rw': 'scoped_user_rw_access',
}
# Open a scope of their own: nesting when used inside a region.
INLINE_SCOPES: dict[str, str] = {'get_user_inline': 'read', 'put_user_inline': 'write'}
# Masked access is used only where this says so.
MASKED_TEST = 'can_do_masked_user_access'

# Accessors: (what they do, index of the user address argument).
# 'rmw' reads and writes.
ACCESSORS: dict[str, tuple[str, int]] = {
	'unsafe_get_user': ('read', 1),
	'unsafe_copy_from_user': ('read', 1),
	'unsafe_put_user': ('write', 1),
	'unsafe_copy_to_user': ('write', 0),
	'unsafe_try_cmpxchg_user': ('rmw', 0),
	'unsafe_atomic_op1': ('rmw', 2),
	'unsafe_atomic_op2': ('rmw', 2),
}
# Macros and __always_inline helpers of the tree that wrap accessors and
# take a fault label: (what they do, index of the user address argument,
# None when the macro hides it).  Read from their definitions in 6.12.
WRAPPERS: dict[str, tuple[str, Optional[int]]] = {
	'unsafe_copy_dirent_name': ('write', 0),		# fs/readdir.c
	'unsafe_put_sigmask': ('write', None),		# arch/x86/kernel/signal_*.c
	'unsafe_put_sigcontext': ('write', 0),		# arch/x86/kernel/signal_64.c
	'unsafe_put_sigcontext32': ('write', 0),		# arch/x86/kernel/signal_32.c
	'unsafe_save_altstack': ('write', 0),		# include/linux/signal.h
	'unsafe_save_altstack32': ('write', 0),		# arch/x86/kernel/signal_32.c
	'unsafe_compat_save_altstack': ('write', 0),	# include/linux/compat.h
	'unsafe_put_compat_sigset': ('write', 0),	# include/linux/compat.h
	'unsafe_put_sigset_t': ('write', 0),		# arch/powerpc/kernel/signal_32.c
	'unsafe_get_compat_sigset': ('read', 1),		# include/linux/compat.h
	'unsafe_get_sigset_t': ('read', 1),		# arch/powerpc/kernel/signal_32.c
	'unsafe_get_user_sigset': ('read', 1),		# arch/powerpc/kernel/signal.h
	'unsafe_save_general_regs': ('write', 1),	# arch/powerpc/kernel/signal_32.c
	'unsafe_save_user_regs': ('write', 1),		# arch/powerpc/kernel/signal_32.c
	'unsafe_save_tm_user_regs': ('write', 1),	# arch/powerpc/kernel/signal_32.c
	'unsafe_setup_sigcontext': ('write', 0),		# arch/powerpc/kernel/signal_64.c
	'unsafe_restore_general_regs': ('read', 1),	# arch/powerpc/kernel/signal_32.c
	'unsafe_restore_sigcontext': ('read', 3),	# arch/powerpc/kernel/signal_64.c
	'unsafe_copy_fpr_to_user': ('write', 0),		# arch/powerpc/kernel/signal.h
	'unsafe_copy_vsx_to_user': ('write', 0),
	'unsafe_copy_ckfpr_to_user': ('write', 0),
	'unsafe_copy_ckvsx_to_user': ('write', 0),
	'unsafe_copy_fpr_from_user': ('read', 1),
	'unsafe_copy_vsx_from_user': ('read', 1),
	'unsafe_copy_ckfpr_from_user': ('read', 1),
	'unsafe_copy_ckvsx_from_user': ('read', 1),
}
# unsafe_* names that are not user accessors.
NOT_ACCESSORS: frozenset[str] = frozenset({'unsafe_memcpy', 'unsafe_memset'})

# Functions objtool allows to be called with user access enabled: its
# uaccess_safe_builtin[] list of tools/objtool/check.c in 6.12, the part
# that is not sanitizer instrumentation.  Assembly routines meant to run
# inside a region.
OBJTOOL_UACCESS_SAFE: frozenset[str] = frozenset({
	'csum_partial_copy_generic', 'copy_mc_fragile', 'copy_mc_fragile_handle_tail',
	'copy_mc_enhanced_fast_string', 'rep_stos_alternative', 'rep_movs_alternative',
	'copy_to_nontemporal',
})
# Routines of arch/x86/lib/usercopy_32.c built around the __copy_user asm
# (with their own exception tables), called with user access open by design.
USERCOPY_ROUTINES: frozenset[str] = frozenset({
	'__copy_user_intel', '__copy_user_intel_nocache', '__copy_user_zeroing_intel',
	'__copy_user_zeroing_intel_nocache',
})
# Asm macros that access user memory with their own exception table: an
# access the accessor tables cannot see (its mode is the begin's).
ASM_ACCESSORS: frozenset[str] = frozenset({'__futex_atomic_op', '__copy_user'})
# Files built only for 32-bit x86, where there is no masked user access.
X86_32_ONLY = (r'^arch/x86/(kernel/vm86_32\.c|lib/usercopy_32\.c|lib/checksum_32|'
	       r'include/asm/checksum_32\.h|include/asm/uaccess_32\.h)')
# Calls that are fine in a region: compiler builtins, macros and
# __always_inline helpers of the common headers.
SAFE_CALLS: frozenset[str] = frozenset({
	'likely', 'unlikely', 'sizeof', 'typeof', 'offsetof', 'barrier',
	'smp_wmb', 'smp_rmb', 'smp_mb', 'wmb', 'rmb', 'mb',
	'READ_ONCE', 'WRITE_ONCE', 'min', 'max', 'min_t', 'max_t', 'clamp',
	'lower_32_bits', 'upper_32_bits', 'ptr_to_compat', 'compat_ptr',
	'access_ok', '__access_ok', 'untagged_addr', 'mask_user_address',
	'can_do_masked_user_access', 'user_access_save',
	'user_access_restore', 'swab16', 'swab32', 'swab64',
	'cpu_to_le16', 'cpu_to_le32', 'cpu_to_le64', 'le16_to_cpu',
	'le32_to_cpu', 'le64_to_cpu', 'cpu_to_be16', 'cpu_to_be32',
	'cpu_to_be64', 'be16_to_cpu', 'be32_to_cpu', 'be64_to_cpu',
	'get_unaligned', 'put_unaligned', 'test_bit', '__test_and_clear_bit',
	'container_of', 'fallthrough', 'asm', '__asm__',
	# jump_label.h: macros around an asm goto of the static key
	'static_branch_likely', 'static_branch_unlikely',
	# percpu-defs.h: one instruction, or the generic version with
	# interrupts disabled around it; compiler.h's KCSAN annotation
	'this_cpu_inc', 'this_cpu_dec', 'this_cpu_add', 'this_cpu_sub',
	'raw_cpu_inc', 'raw_cpu_dec', 'raw_cpu_add', 'raw_cpu_sub',
	'__this_cpu_inc', '__this_cpu_dec', '__this_cpu_add', 'data_race',
	# nospec.h: a mask computed without a branch, asm or an inline
	'array_index_nospec', 'array_index_mask_nospec', 'barrier_nospec',
}) | OBJTOOL_UACCESS_SAFE
# Helpers from headers (or macros of a file) that are __always_inline or
# plain macros, valid for the files under the given path only.
SAFE_IN: dict[str, str] = {
	'huge_encode_dev': '',			# __always_inline, linux/kdev_t.h
	'new_encode_dev': '',			# __always_inline, linux/kdev_t.h
	'old_encode_dev': '',			# __always_inline, linux/kdev_t.h
	'aligned_byte_mask': '',		# macro, linux/wordpart.h
	'i915_mmio_reg_offset': 'drivers/gpu/drm/i915/',	# macro
	'static_cpu_has': 'arch/x86/',		# macro, asm/cpufeature.h
	'cpu_feature_enabled': 'arch/x86/',	# macro, asm/cpufeature.h
	'__copy_user': 'arch/x86/lib/',		# asm macro, usercopy_32.c
	'__futex_atomic_op': 'arch/',		# asm macro, asm/futex.h
	'set_trap_norestart': 'arch/powerpc/',	# __always_inline, asm/ptrace.h
	'cpu_has_feature': 'arch/powerpc/',	# __always_inline
	'mtspr': 'arch/powerpc/',		# asm macro, asm/reg.h
	'mfspr': 'arch/powerpc/',		# asm macro, asm/reg.h
	'to_user_ptr': 'arch/powerpc/',		# macro, signal_32.c
}
# Calls that fault, sleep or are always out of line: ERROR in a region.
UNSAFE_CALLS: frozenset[str] = frozenset({
	'copy_to_user', 'copy_from_user', '__copy_to_user', '__copy_from_user',
	'copy_to_user_nofault', 'copy_from_user_nofault',
	'get_user', 'put_user', '__get_user', '__put_user',
	'clear_user', '__clear_user', 'strncpy_from_user', 'strnlen_user',
	'kmalloc', 'kzalloc', 'kcalloc', 'kmalloc_array', 'kvmalloc',
	'kvzalloc', 'vmalloc', 'kfree', 'kvfree', 'vfree',
	'printk', 'pr_err', 'pr_warn', 'pr_info', 'pr_debug', 'pr_alert',
	'pr_notice', 'pr_cont', 'pr_emerg', 'pr_crit',
	'might_fault', 'might_sleep', 'might_resched', 'cond_resched',
	'schedule', 'msleep', 'usleep_range',
	'mutex_lock', 'mutex_unlock', 'mutex_lock_interruptible',
	'down_read', 'up_read', 'down_write', 'up_write',
	'mmap_read_lock', 'mmap_read_unlock', 'fault_in_user_writeable',
	'force_exit_sig', 'force_sig', 'force_sigsegv',
})

# Definitions of the API itself: never regions, never converted.
DEFINITIONS: tuple[str, ...] = ('include/linux/uaccess.h', 'arch/x86/include/asm/uaccess.h',
				'arch/arm64/include/asm/uaccess.h',
				'arch/powerpc/include/asm/uaccess.h',
				'arch/riscv/include/asm/uaccess.h', 'arch/arm/include/asm/uaccess.h')


def begin_mode(name: str) -> Optional[str]:
	"""The mode a begin or scope opens, None for 6.12's masked begin."""
	for table in (OPEN_BEGINS, MASKED_BEGINS, SCOPES):
		if name in table:
			return table[name]
	return None


def is_accessor(name: str) -> bool:
	return name.startswith('unsafe_') and name not in NOT_ACCESSORS


def accessor_mode(name: str) -> Optional[str]:
	if name in ACCESSORS:
		return ACCESSORS[name][0]
	if name in WRAPPERS:
		return WRAPPERS[name][0]
	return None


def words() -> tuple[str, ...]:
	"""Every name that marks a file as a user of the API (begins, ends,
	scopes): what a prefilter greps for.  The gate rules of the checker
	scripts list whole families of these, or of ACCESSORS (test_layout)."""
	return (*OPEN_BEGINS, *MASKED_BEGINS, *ENDS, *SCOPES)


def words_pattern(names: tuple[str, ...] = ()) -> str:
	"""A regex alternation of whole words: the names, default words()."""
	return r'\b(' + '|'.join(re.escape(n) for n in (names or words())) + r')\b'
