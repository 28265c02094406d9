// SPDX-License-Identifier: GPL-2.0-only
/// Find misuse of user access regions, open-coded and scoped.
///
/// A user access region is begun by user_{read_,write_,}access_begin() or
/// masked_user_access_begin() and ended by the matching
/// user_{read_,write_,}access_end(), or opened and closed by a
/// scoped_user_{read,write,rw}_access{,_size}() scope or by
/// get_user_inline()/put_user_inline().  Inside it only the unsafe_*()
/// accessors and code that cannot call out of line belong.  An accessor
/// unsafe_*(..., label) jumps to label on a fault; every path-based check
/// below follows that jump.
///
/// Each message starts with ERROR: or WARNING:, a class tag and the function:
///   file:line:col-col: ERROR: [class] function(): what is wrong
/// The classes:
///  [mode-mismatch]   region begun in one mode, ended in another
///  [accessor-mode]   put/copy-to in a read region, get/copy-from in a
///                    write region, read-modify-write outside a rw region
///  [missing-end]     a path from a successful begin leaves the function,
///                    or the fault path of an accessor does, with no end
///  [end-without-begin] an end reachable with no region open: a failed
///                    begin, a second end, an end after or inside a scope
///  [access-outside-region] an accessor reachable with no region open
///  [range]           an accessor address not based on the begin pointer
///  [call-in-region]  a call in a region that is not an accessor, a known
///                    safe helper or an __always_inline function of the
///                    file (WARNING unless it is known to be out of line)
///  [nesting]         a region or scope opened inside another one
///  [masked-pointer]  masked_user_access_begin()'s result discarded, or
///                    the unmasked pointer used inside the region
///  [masked-range]    (WARNING) the first access of a masked region or
///                    scope may lie beyond PAGE_SIZE from the pointer
///
/// MODE=patch only replaces the end of a region begun in one mode and
/// ended in another, where every begin reaching that end agrees on the
/// mode; everything else needs a human.
///
// Confidence: High for ERROR, Moderate for WARNING
// Copyright: (C) 2026 Seed 856ff4c8 maintainers
// Comments:
//  Deliberate limits, each a possible false negative, none a false
//  positive:
//  - The analysis is per function.  A helper that only contains
//    accessors (e.g. __unsafe_setup_sigcontext()) is assumed to be called
//    inside its caller's region; only functions that begin, end or scope
//    a region are checked for accesses outside one.  objtool checks the
//    calls on x86.
//  - Macro bodies are not analysed: a wrapper like unsafe_put_sigmask()
//    counts as an accessor; its mode comes from a table, its address is
//    not checked.
//  - A begin tested positively, if (user_read_access_begin(p, n)) { ... },
//    is checked inside the braces only.
//  - Fault paths are followed one label deep: an accessor in code reached
//    only through a fault label does not open a second fault path.
//  - A return on a fault path is checked; a void function falling off its
//    end after a fault label is not.
//  - masked-range looks at the first access on each path of an open-coded
//    masked region, and at the textually first accessor of a scope.
//  Known false positives:
//  - range: a pointer derived from the begin pointer through a function
//    call or an assignment the checker cannot follow; an address that
//    does not parse as a pointer expression is only a WARNING.
//  - call-in-region: helpers defined in headers are unknown unless listed
//    in the SAFE_CALLS table; they are WARNING, never ERROR.
//  - masked-range: struct members beyond one page (&p->big[4096]) are not
//    seen; an index that is not a loop counter starting at 0 is reported
//    even if it is provably small.
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@
import re

# ---- lookup tables ------------------------------------------------------

# Begin of an open-coded region: mode ('read', 'write', 'rw').
OPEN_BEGINS = {
	'user_access_begin': 'rw',
	'user_rw_access_begin': 'rw',
	'user_read_access_begin': 'read',
	'user_write_access_begin': 'write',
}
# Masked begins return the pointer to use; the one of 6.12 has no mode (None): any
# end fits.  The read/write variants come with the scoped series.
MASKED_BEGINS = {
	'masked_user_access_begin': None,
	'masked_user_rw_access_begin': 'rw',
	'masked_user_read_access_begin': 'read',
	'masked_user_write_access_begin': 'write',
}
ENDS = {
	'user_access_end': 'rw',
	'user_rw_access_end': 'rw',
	'user_read_access_end': 'read',
	'user_write_access_end': 'write',
}
END_FOR_MODE = {
	'rw': 'user_access_end',
	'read': 'user_read_access_end',
	'write': 'user_write_access_end',
}
SCOPES = {
	'scoped_user_read_access': 'read',
	'scoped_user_read_access_size': 'read',
	'scoped_user_write_access': 'write',
	'scoped_user_write_access_size': 'write',
	'scoped_user_rw_access': 'rw',
	'scoped_user_rw_access_size': 'rw',
}
# Open their own scope: nesting when used in a region.
INLINE_SCOPES = {'get_user_inline': 'read', 'put_user_inline': 'write'}

# Accessors: (what they do, index of the user address argument).
ACCESSORS = {
	'unsafe_get_user': ('read', 1),
	'unsafe_copy_from_user': ('read', 1),
	'unsafe_put_user': ('write', 1),
	'unsafe_copy_to_user': ('write', 0),
	'unsafe_try_cmpxchg_user': ('rmw', 0),
	'unsafe_atomic_op1': ('rmw', 2),
	'unsafe_atomic_op2': ('rmw', 2),
}
# Wrapper macros around the accessors, read from their definitions.
WRAPPER_MODE = {
	'unsafe_copy_dirent_name': 'write',
	'unsafe_put_sigmask': 'write',
	'unsafe_put_sigcontext': 'write',
	'unsafe_put_sigcontext32': 'write',
	'unsafe_save_altstack': 'write',
	'unsafe_save_altstack32': 'write',
	'unsafe_compat_save_altstack': 'write',
	'unsafe_put_compat_sigset': 'write',
	'unsafe_put_sigset_t': 'write',
	'unsafe_save_general_regs': 'write',
	'unsafe_save_user_regs': 'write',
	'unsafe_save_tm_user_regs': 'write',
	'unsafe_setup_sigcontext': 'write',
	'unsafe_copy_fpr_to_user': 'write',
	'unsafe_copy_vsx_to_user': 'write',
	'unsafe_copy_ckfpr_to_user': 'write',
	'unsafe_copy_ckvsx_to_user': 'write',
	'unsafe_get_compat_sigset': 'read',
	'unsafe_get_sigset_t': 'read',
	'unsafe_get_user_sigset': 'read',
	'unsafe_restore_general_regs': 'read',
	'unsafe_restore_sigcontext': 'read',
	'unsafe_copy_fpr_from_user': 'read',
	'unsafe_copy_vsx_from_user': 'read',
	'unsafe_copy_ckfpr_from_user': 'read',
	'unsafe_copy_ckvsx_from_user': 'read',
}
# unsafe_* names that are not user accessors.
NOT_ACCESSORS = {'unsafe_memcpy', 'unsafe_memset'}

# Calls that are fine in a region: compiler builtins, macros and
# __always_inline helpers from headers, and the functions on the
# uaccess_safe_builtin list of objtool.
SAFE_CALLS = {
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
	'csum_partial_copy_generic', 'copy_mc_fragile',
	'copy_mc_enhanced_fast_string', 'rep_stos_alternative',
	'rep_movs_alternative', 'copy_to_nontemporal',
}
# Helpers from headers (or macros of the file) that are __always_inline
# or plain macros, valid for the files under the given path only.
SAFE_IN = {
	'huge_encode_dev': '',			# __always_inline, linux/kdev_t.h
	'new_encode_dev': '',			# __always_inline, linux/kdev_t.h
	'old_encode_dev': '',			# __always_inline, linux/kdev_t.h
	'aligned_byte_mask': '',		# macro, linux/wordpart.h
	'i915_mmio_reg_offset': 'drivers/gpu/drm/i915/',	# macro
	'static_cpu_has': 'arch/x86/',		# macro, asm/cpufeature.h
	'__copy_user': 'arch/x86/lib/',		# asm macro, usercopy_32.c
	'__futex_atomic_op': 'arch/',		# asm macro, asm/futex.h
	'set_trap_norestart': 'arch/powerpc/',	# __always_inline, asm/ptrace.h
	'cpu_has_feature': 'arch/powerpc/',	# __always_inline
	'mtspr': 'arch/powerpc/',		# asm macro, asm/reg.h
	'mfspr': 'arch/powerpc/',		# asm macro, asm/reg.h
	'to_user_ptr': 'arch/powerpc/',		# macro, signal_32.c
}

def safe_in(f, path):
	prefix = SAFE_IN.get(f)
	if prefix is None:
		return False
	path = path[2:] if path.startswith('./') else path
	return path.startswith(prefix) or ('/' + prefix) in path

# Calls that fault, sleep or are always out of line: ERROR in a region.
UNSAFE_CALLS = {
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
}

# ---- per-file state (reset at the end of each file) ---------------------

def reset():
	global FINDINGS, ACC, ALIASES, SCOPE_ALIASES, MASKED, INLINE_FNS
	global NOINLINE_FNS, LOCAL_FNS, SAVED, MANAGED, OPEN_LABELS
	global CLOSED_LABELS, IN_SCOPE, LOOP0, END_MODES, ME_RET, SCOPE_FIRST
	global BEGUN, SCOPE_EVENTS
	FINDINGS = {}
	ACC = {}		# accessor position -> (name, address, label)
	ALIASES = {}		# function -> [(variable, expression)]
	SCOPE_ALIASES = set()	# (function, variable) assigned in a scope
	MASKED = {}		# begin position -> (result, argument)
	INLINE_FNS = set()	# __always_inline functions of the file
	NOINLINE_FNS = set()
	LOCAL_FNS = set()	# functions defined in the file
	SAVED = set()		# calls between user_access_save/restore
	MANAGED = set()		# functions that begin, end or scope a region
	BEGUN = set()		# functions that begin or scope a region
	SCOPE_EVENTS = []	# (scope, its position, pointer, call, position)
	OPEN_LABELS = {}	# label -> [(function, begin info, accessor)]
	CLOSED_LABELS = {}	# label -> [(function, why)]
	IN_SCOPE = set()	# call positions inside a scope body
	LOOP0 = {}		# accessor position -> loop counters from 0
	END_MODES = {}		# end position -> set of begin modes reaching it
	ME_RET = set()		# begins with a missing end found at a return
	SCOPE_FIRST = {}	# scope position -> first accessor position

reset()

def key(p):
	return (p.file, p.line, p.column)

def line(p):
	return int(p.line)

def finding(p, severity, cls, msg):
	"""Records one finding at position p (a Coccinelle position)."""
	k = (p.file, int(p.line), int(p.column), cls)
	if k not in FINDINGS:
		FINDINGS[k] = (p, '%s: [%s] %s(): %s' % (severity, cls, p.current_element, msg))

NO_NAME = '__scoped_uaccess_no_name'

def has_finding(p):
	return any(k[:3] == (p.file, int(p.line), int(p.column)) for k in FINDINGS)

def emit(printer):
	for k in sorted(FINDINGS):
		p, msg = FINDINGS[k]
		printer(p, msg)

def is_accessor(f):
	return f.startswith('unsafe_') and f not in NOT_ACCESSORS

def accessor_mode(f):
	if f in ACCESSORS:
		return ACCESSORS[f][0]
	return WRAPPER_MODE.get(f)

def begin_mode(b):
	if b in OPEN_BEGINS:
		return OPEN_BEGINS[b]
	if b in MASKED_BEGINS:
		return MASKED_BEGINS[b]
	return SCOPES.get(b)

# ---- pointer expressions ------------------------------------------------

TOKEN = re.compile(r'\s*(->|\+\+|--|[A-Za-z_]\w*|0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|.)')
TYPE_WORDS = {'struct', 'union', 'enum', 'const', 'volatile', 'unsigned',
	      'signed', 'char', 'short', 'int', 'long', 'void', '__user',
	      '__force', 'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64',
	      '__u8', '__u16', '__u32', '__u64', 'compat_uptr_t', 'size_t'}

def tokens(text):
	return [t for t in TOKEN.findall(text) if t.strip()]

def matching(toks, i):
	"""Index of the bracket closing toks[i]."""
	pairs = {'(': ')', '[': ']'}
	depth = 0
	for j in range(i, len(toks)):
		if toks[j] in pairs:
			depth += 1
		elif toks[j] in (')', ']'):
			depth -= 1
			if depth == 0:
				return j
	return None

def is_cast(toks, i, j):
	inner = toks[i + 1:j]
	if not inner or j + 1 >= len(toks):
		return False
	if inner[-1] == '*':
		return True
	return all(t in TYPE_WORDS or t == '*' or
		   (re.match(r'[A-Za-z_]\w*_t$', t) is not None) for t in inner) \
		and any(t in TYPE_WORDS for t in inner)

def chain(text):
	"""The access path of a pointer expression: ['p', '->a', '.b', '[]'],
	with the offsets applied after it, or None if it is not one."""
	toks = tokens(text)
	while True:
		if not toks:
			return None
		if toks[0] == '(':
			j = matching(toks, 0)
			if j is None:
				return None
			if j == len(toks) - 1:
				toks = toks[1:-1]
				continue
			if is_cast(toks, 0, j):
				toks = toks[j + 1:]
				continue
			# (expr) op ...: take the parenthesised operand
			inner = chain(' '.join(toks[1:j]))
			if inner is None:
				return None
			path, offs = inner
			rest = toks[j + 1:]
			return extend(path, offs, rest)
		if toks[0] in ('&', '*'):
			toks = toks[1:]
			continue
		break
	if not re.match(r'[A-Za-z_]\w*$', toks[0]):
		return None
	if re.match(r'[A-Z][A-Z0-9_]*$', toks[0]) and len(toks) > 1 and toks[1] == '(':
		# An ALL_CAPS macro around the pointer, like CMSG_USER_DATA(cm):
		# taken as an offset from its first argument.
		j = matching(toks, 1)
		if j is None:
			return None
		depth, k = 0, 2
		while k < j and not (depth == 0 and toks[k] == ','):
			depth += toks[k] in ('(', '[')
			depth -= toks[k] in (')', ']')
			k += 1
		inner = chain(' '.join(toks[2:k]))
		if inner is None:
			return None
		return extend(inner[0], inner[1] + ['?'], toks[j + 1:])
	return extend([toks[0]], [], toks[1:])

def pretty(text):
	"""An expression as printed by Coccinelle, spaced as in the kernel."""
	out, operand, glue = '', False, True
	for t in tokens(text):
		word = re.match(r'\w', t) is not None
		if t in ('->', '.', '[', ']', ')', '++', '--') or glue or \
		   (t == '(' and operand):
			out += t
		elif t == ',':
			out += ','
		else:
			out += ' ' + t
		# what the next token sticks to
		glue = t in ('->', '.', '[', '(') or \
		       (t in ('&', '*', '!', '~', '-', '+') and not operand)
		operand = word or t in (')', ']', '++', '--')
	return out.strip()

def extend(path, offs, rest):
	i = 0
	while i < len(rest):
		t = rest[i]
		if t in ('->', '.') and i + 1 < len(rest):
			path = path + [t + rest[i + 1]]
			i += 2
		elif t == '[':
			j = matching(rest, i)
			if j is None:
				return None
			offs = offs + [' '.join(rest[i + 1:j])]
			path = path + ['[]']
			i = j + 1
		elif t in ('++', '--'):
			i += 1
		elif t in ('+', '-'):
			offs = offs + [' '.join(rest[i + 1:])]
			return path, offs
		else:
			return None
	return path, offs

def strip_index(path):
	return [c for c in path if c != '[]']

def based_on(addr, bases):
	"""Whether the address text is a member, element or offset of one of
	the base paths; None when addr does not parse."""
	c = chain(addr)
	if c is None:
		return None
	path = strip_index(c[0])
	for b in bases:
		if path[:len(b)] == b:
			return True
	return False

def base_paths(func, ptr, scope=False):
	"""The begin pointer and the local pointers derived from it."""
	c = chain(ptr)
	if c is None:
		return []
	bases = [strip_index(c[0])]
	changed = True
	assigns = ALIASES.get(func, [])
	while changed:
		changed = False
		for var, expr in assigns:
			if scope and (func, var) not in SCOPE_ALIASES:
				continue
			ce = chain(expr)
			if ce is None:
				continue
			pe = strip_index(ce[0])
			known = [b for b in bases]
			if [var] not in known and any(pe[:len(b)] == b for b in known):
				bases.append([var])
				changed = True
			elif [var] in known and len(pe) == 1 and pe not in known:
				# prev = dirent - n: dirent is within reach too
				bases.append(pe)
				changed = True
	return bases

def small_offset(text):
	try:
		return int(text.rstrip('uUlL'), 0) < 512
	except ValueError:
		return False

def check_masked_range(pa, pb, ptr, what):
	if key(pa) not in ACC:
		return
	name, addr, label = ACC[key(pa)]
	base = chain(ptr)
	c = chain(addr)
	if base is None or c is None:
		return
	bpath = strip_index(base[0])
	path, offs = c
	if strip_index(path)[:len(bpath)] != bpath:
		return
	counters = LOOP0.get(key(pa), set())
	for off in offs:
		if small_offset(off) or off.strip() in counters:
			continue
		finding(pa, 'WARNING', 'masked-range',
			'first access %s after %s on %s may lie beyond PAGE_SIZE from %s; '
			'masking relies on the guard page'
			% (pretty(addr), what, where(pb), pretty(ptr)))
		return

# ---- the region events --------------------------------------------------

def where(p):
	return 'line %s' % p.line

def region_event(kind, b, pb, ptr, f, px, via=None):
	"""Classifies the call f at px, reached with the region of begin b
	(at pb, pointer ptr) open.  kind: 'open', 'masked' or 'scope'."""
	func = px.current_element
	if func != pb.current_element:
		return
	if kind != 'scope' and key(px) in IN_SCOPE:
		# a scope inside the region: reported as nesting, its body is
		# the business of the scope
		return
	mode = begin_mode(b)
	begun = '%s() on %s' % (b, where(pb))
	through = ' on the fault path of %s() on %s' % (via[0], via[1]) if via else ''
	if f in ENDS:
		if kind == 'scope':
			finding(px, 'ERROR', 'end-without-begin',
				'%s() inside the scope %s: the scope ends the region itself'
				% (f, begun))
			return
		END_MODES.setdefault(key(px), set()).add(mode)
		if mode is not None and ENDS[f] != mode:
			finding(px, 'ERROR', 'mode-mismatch',
				'region begun with %s ended with %s()%s, not %s()'
				% (begun, f, through, END_FOR_MODE[mode]))
		return
	if f in OPEN_BEGINS or f in MASKED_BEGINS or f in INLINE_SCOPES:
		finding(px, 'ERROR', 'nesting',
			'%s() inside the region begun with %s%s' % (f, begun, through))
		return
	if is_accessor(f):
		amode = accessor_mode(f)
		if mode is not None and amode is not None:
			bad = (mode == 'read' and amode in ('write', 'rmw')) or \
			      (mode == 'write' and amode in ('read', 'rmw'))
			if bad:
				what = {'read': 'reads', 'write': 'writes',
					'rmw': 'reads and writes'}[amode]
				finding(px, 'ERROR', 'accessor-mode',
					'%s() %s user memory in the %s-only region begun with %s'
					% (f, what, mode, begun))
		if key(px) in ACC:
			check_range(kind, b, pb, ptr, f, px)
		return
	check_call(f, px, begun)

def check_range(kind, b, pb, ptr, f, px):
	name, addr, label = ACC[key(px)]
	func = px.current_element
	begun = '%s() on %s' % (b, where(pb))
	unmasked = None
	if kind == 'masked':
		res, arg = MASKED.get(key(pb), (None, ptr))
		if res is not None and chain(res) != chain(arg):
			unmasked = base_paths(func, arg)
			ptr = res
	bases = base_paths(func, ptr, scope=(kind == 'scope'))
	ok = based_on(addr, bases)
	if ok:
		return
	shown, given = pretty(addr), pretty(ptr)
	if ok is None:
		finding(px, 'WARNING', 'range',
			'cannot tell whether %s, the address of %s(), lies within %s given to %s'
			% (shown, f, given, begun))
		return
	if unmasked and based_on(addr, unmasked):
		finding(px, 'ERROR', 'masked-pointer',
			'%s() uses the unmasked pointer in %s; the region begun with %s '
			'must use %s' % (f, shown, begun, given))
		return
	if kind == 'scope' and based_on(addr, base_paths(func, ptr)):
		finding(px, 'ERROR', 'masked-pointer',
			'%s() uses %s, derived from %s outside the scope %s: it '
			'bypasses the masked pointer' % (f, shown, given, begun))
		return
	finding(px, 'ERROR', 'range',
		'%s, the address of %s(), is not based on %s given to %s'
		% (shown, f, given, begun))

def check_call(f, px, begun):
	if key(px) in SAVED or f in SAFE_CALLS or f in INLINE_FNS or \
	   safe_in(f, px.file):
		return
	# ALL_CAPS names are macros by kernel convention.
	if re.match(r'[A-Z][A-Z0-9_]*$', f) or f.startswith('__builtin_'):
		return
	if f in UNSAFE_CALLS or f in NOINLINE_FNS:
		why = 'is out of line' if f in NOINLINE_FNS else 'may fault or sleep'
		finding(px, 'ERROR', 'call-in-region',
			'%s() %s; called inside the region begun with %s'
			% (f, why, begun))
		return
	if f in LOCAL_FNS:
		why = 'defined in this file without __always_inline'
	else:
		why = 'not known to be inlined'
	finding(px, 'WARNING', 'call-in-region',
		'call to %s() inside the region begun with %s: %s'
		% (f, begun, why))

// ---- Gate: only files that use the API are parsed ----------------------

@api_call@
@@
(
user_access_begin(...)
|
user_rw_access_begin(...)
|
user_read_access_begin(...)
|
user_write_access_begin(...)
|
masked_user_access_begin(...)
|
masked_user_rw_access_begin(...)
|
masked_user_read_access_begin(...)
|
masked_user_write_access_begin(...)
|
user_access_end(...)
|
user_rw_access_end(...)
|
user_read_access_end(...)
|
user_write_access_end(...)
)

@api_scope@
iterator name scoped_user_read_access, scoped_user_read_access_size,
	scoped_user_write_access, scoped_user_write_access_size,
	scoped_user_rw_access, scoped_user_rw_access_size;
statement S;
@@
(
scoped_user_read_access(...) S
|
scoped_user_read_access_size(...) S
|
scoped_user_write_access(...) S
|
scoped_user_write_access_size(...) S
|
scoped_user_rw_access(...) S
|
scoped_user_rw_access_size(...) S
)

@script:python depends on api_call || api_scope@
@@
# Coccinelle runs the rules file by file: start each with a clean slate.
reset()

// ---- Facts: what the file defines ---------------------------------------

@inline_fn depends on api_call || api_scope@
attribute name __always_inline;
identifier fn;
type T;
@@
static __always_inline T fn(...) { ... }

@script:python@
fn << inline_fn.fn;
@@
INLINE_FNS.add(fn)

@nokprobe_fn depends on api_call || api_scope@
attribute name nokprobe_inline;
identifier fn;
type T;
@@
static nokprobe_inline T fn(...) { ... }

@script:python@
fn << nokprobe_fn.fn;
@@
# __always_inline whenever kprobes are configured
INLINE_FNS.add(fn)

@noinline_fn depends on api_call || api_scope@
attribute name noinline;
identifier fn;
type T;
@@
noinline T fn(...) { ... }

@script:python@
fn << noinline_fn.fn;
@@
NOINLINE_FNS.add(fn)

@local_fn depends on api_call || api_scope@
identifier fn;
type T;
@@
T fn(...) { ... }

@script:python@
fn << local_fn.fn;
@@
LOCAL_FNS.add(fn)

// ---- Facts: accessors, aliases, masking --------------------------------

@acc depends on api_call || api_scope@
expression x, addr, s, n, o, v;
identifier L;
position pa;
@@
(
unsafe_get_user@pa(x, addr, L)
|
unsafe_put_user@pa(x, addr, L)
|
unsafe_copy_from_user@pa(x, addr, n, L)
|
unsafe_copy_to_user@pa(addr, s, n, L)
|
unsafe_try_cmpxchg_user@pa(addr, o, v, L)
|
unsafe_atomic_op1@pa(s, x, addr, n, L)
|
unsafe_atomic_op2@pa(s, x, addr, n, L)
)

@script:python@
pa << acc.pa;
addr << acc.addr;
L << acc.L;
@@
ACC[key(pa[0])] = (None, addr, L)

@alias depends on api_call || api_scope@
identifier q;
expression e;
position pq;
@@
q@pq = e

@script:python@
q << alias.q;
e << alias.e;
pq << alias.pq;
@@
ALIASES.setdefault(pq[0].current_element, []).append((q, e))

@alias_decl depends on api_call || api_scope@
identifier q;
expression e;
type T;
position pq;
@@
T q@pq = e;

@script:python@
q << alias_decl.q;
e << alias_decl.e;
pq << alias_decl.pq;
@@
ALIASES.setdefault(pq[0].current_element, []).append((q, e))

@masked depends on api_call || api_scope@
identifier m = {masked_user_access_begin, masked_user_rw_access_begin,
		masked_user_read_access_begin, masked_user_write_access_begin};
expression ptr, res;
position pm;
@@
res = m@pm(ptr)

@script:python@
pm << masked.pm;
ptr << masked.ptr;
res << masked.res;
@@
MASKED[key(pm[0])] = (res, ptr)

@masked_decl depends on api_call || api_scope@
identifier m = {masked_user_access_begin, masked_user_rw_access_begin,
		masked_user_read_access_begin, masked_user_write_access_begin};
expression ptr;
identifier res;
type T;
position pm;
@@
T res = m@pm(ptr);

@script:python@
pm << masked_decl.pm;
ptr << masked_decl.ptr;
res << masked_decl.res;
@@
MASKED[key(pm[0])] = (res, ptr)

@masked_discarded depends on api_call || api_scope@
identifier m = {masked_user_access_begin, masked_user_rw_access_begin,
		masked_user_read_access_begin, masked_user_write_access_begin};
expression ptr;
position pm;
@@
m@pm(ptr);

@script:python@
pm << masked_discarded.pm;
ptr << masked_discarded.ptr;
m << masked_discarded.m;
@@
MASKED[key(pm[0])] = (None, ptr)
finding(pm[0], 'ERROR', 'masked-pointer',
	'result of %s() discarded: the accesses use the unmasked %s'
	% (m, pretty(ptr)))

@saved depends on api_call || api_scope@
identifier f;
expression flags;
type T;
identifier fl;
position px;
@@
(
flags = user_access_save();
|
T fl = user_access_save();
)
... when != user_access_restore(...)
    when any
f@px(...)

@script:python@
px << saved.px;
@@
SAVED.add(key(px[0]))

@managed depends on api_call || api_scope@
identifier g = {user_access_begin, user_rw_access_begin,
		user_read_access_begin, user_write_access_begin,
		masked_user_access_begin, masked_user_rw_access_begin,
		masked_user_read_access_begin, masked_user_write_access_begin,
		user_access_end, user_rw_access_end, user_read_access_end,
		user_write_access_end};
position pg;
@@
g@pg(...)

@script:python@
g << managed.g;
pg << managed.pg;
@@
MANAGED.add(pg[0].current_element)
if g not in ENDS:
	BEGUN.add(pg[0].current_element)

// ---- Scopes --------------------------------------------------------------

@scope_fact depends on api_call || api_scope@
iterator name scoped_user_read_access, scoped_user_read_access_size,
	scoped_user_write_access, scoped_user_write_access_size,
	scoped_user_rw_access, scoped_user_rw_access_size;
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
expression ptr, n;
identifier L;
position ps;
statement S;
@@
(
it@ps(ptr, L) S
|
it@ps(ptr, n, L) S
)

@script:python@
ps << scope_fact.ps;
L << scope_fact.L;
@@
MANAGED.add(ps[0].current_element)
BEGUN.add(ps[0].current_element)
CLOSED_LABELS.setdefault(L, []).append((ps[0].current_element,
	'the scope on %s is rejected' % where(ps[0])))

// Every call inside a scope body, with the scope's pointer.
// One match per call, not a nest: a nest binding f and px in a scope of
// n calls costs spatch 1.1.1 time exponential in n (8 calls: 2 minutes).
@scope_ev depends on api_call || api_scope exists@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
expression ptr;
identifier f;
position ps, px;
@@
it@ps(ptr, ...) {
... when any
f@px(...)
... when any
}

@scope_alias depends on api_call || api_scope exists@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
expression ptr, e;
identifier q;
position pq;
@@
it(ptr, ...) {
... when any
q@pq = e
... when any
}

@script:python@
q << scope_alias.q;
pq << scope_alias.pq;
@@
for p in pq:
	SCOPE_ALIASES.add((p.current_element, q))

@loop0 depends on api_call || api_scope exists@
identifier i;
identifier a =~ "^unsafe_";
position pa;
@@
for (i = 0; ...; ...) {
... when any
a@pa(...)
... when any
}

@script:python@
i << loop0.i;
pa << loop0.pa;
@@
for p in pa:
	LOOP0.setdefault(key(p), set()).add(i)

@script:python@
it << scope_ev.it;
ps << scope_ev.ps;
ptr << scope_ev.ptr;
f << scope_ev.f;
px << scope_ev.px;
@@
# A position in a nest holds every place the nest matched.
for p in px:
	SCOPE_EVENTS.append((it, ps[0], ptr, f, p))

@script:python depends on api_call || api_scope@
@@
# A call belongs to the innermost scope around it: the one begun last.
inner = {}
for it, ps, ptr, f, p in SCOPE_EVENTS:
	k = key(p)
	if k not in inner or (line(ps), int(ps.column)) > (line(inner[k][1]), int(inner[k][1].column)):
		inner[k] = (it, ps, ptr, f, p)
for k in sorted(inner):
	it, ps, ptr, f, p = inner[k]
	IN_SCOPE.add(k)
	if is_accessor(f):
		label = ACC.get(k, (None, None, None))[2]
		if label:
			CLOSED_LABELS.setdefault(label, []).append((p.current_element,
				'%s() on %s faults' % (f, where(p))))
		first = SCOPE_FIRST.get(key(ps))
		if first is None or (line(p), int(p.column)) < (line(first[0]), int(first[0].column)):
			SCOPE_FIRST[key(ps)] = (p, ps, ptr)
	region_event('scope', it, ps, ptr, f, p)

@scope_nest depends on api_call || api_scope@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
iterator it2 =~ "^scoped_user_(read|write|rw)_access(_size)?$";
expression ptr;
position ps, px;
statement S;
@@
it@ps(ptr, ...) {
<+... it2@px(...) S ...+>
}

@script:python@
it << scope_nest.it;
it2 << scope_nest.it2;
ps << scope_nest.ps;
px << scope_nest.px;
@@
for p in px:
	finding(p, 'ERROR', 'nesting', '%s() inside the scope %s() on %s'
		% (it2, it, where(ps[0])))

// ---- Open-coded regions: every call reached with the region open --------

@region_ev depends on api_call || api_scope exists@
identifier b = {user_access_begin, user_rw_access_begin,
		user_read_access_begin, user_write_access_begin,
		masked_user_access_begin, masked_user_rw_access_begin,
		masked_user_read_access_begin, masked_user_write_access_begin};
identifier f;
expression ptr, n, res;
position pb, px;
statement S;
type T;
identifier resid;
@@
(
if (!b@pb(ptr, n)) S
|
if (unlikely(!b@pb(ptr, n))) S
|
res = b@pb(ptr);
|
T resid = b@pb(ptr);
|
b@pb(ptr);
)
... when != \(user_access_end()\|user_rw_access_end()\|user_read_access_end()\|user_write_access_end()\)
    when != \(user_access_begin(...)\|user_rw_access_begin(...)\|user_read_access_begin(...)\|user_write_access_begin(...)\|masked_user_access_begin(...)\|masked_user_rw_access_begin(...)\|masked_user_read_access_begin(...)\|masked_user_write_access_begin(...)\)
    when any
f@px(...)

@region_ev_pos depends on api_call || api_scope disable neg_if exists@
identifier b = {user_access_begin, user_rw_access_begin,
		user_read_access_begin, user_write_access_begin};
identifier f;
expression ptr, n;
position pb, px;
statement S2;
@@
(
if (b@pb(ptr, n)) {
... when != \(user_access_end()\|user_rw_access_end()\|user_read_access_end()\|user_write_access_end()\)
    when != \(user_access_begin(...)\|user_rw_access_begin(...)\|user_read_access_begin(...)\|user_write_access_begin(...)\|masked_user_access_begin(...)\|masked_user_rw_access_begin(...)\|masked_user_read_access_begin(...)\|masked_user_write_access_begin(...)\)
    when any
f@px(...)
... when any
} else S2
|
if (likely(b@pb(ptr, n))) {
... when != \(user_access_end()\|user_rw_access_end()\|user_read_access_end()\|user_write_access_end()\)
    when != \(user_access_begin(...)\|user_rw_access_begin(...)\|user_read_access_begin(...)\|user_write_access_begin(...)\|masked_user_access_begin(...)\|masked_user_rw_access_begin(...)\|masked_user_read_access_begin(...)\|masked_user_write_access_begin(...)\)
    when any
f@px(...)
... when any
} else S2
)

@script:python@
b << region_ev.b;
pb << region_ev.pb;
ptr << region_ev.ptr;
f << region_ev.f;
px << region_ev.px;
@@
kind = 'masked' if b in MASKED_BEGINS else 'open'
region_event(kind, b, pb[0], ptr, f, px[0])
if is_accessor(f) and key(px[0]) in ACC:
	label = ACC[key(px[0])][2]
	OPEN_LABELS.setdefault(label, []).append((px[0].current_element,
		(kind, b, pb[0], ptr), (f, where(px[0]))))

@script:python@
b << region_ev_pos.b;
pb << region_ev_pos.pb;
ptr << region_ev_pos.ptr;
f << region_ev_pos.f;
px << region_ev_pos.px;
@@
region_event('open', b, pb[0], ptr, f, px[0])
if is_accessor(f) and key(px[0]) in ACC:
	label = ACC[key(px[0])][2]
	OPEN_LABELS.setdefault(label, []).append((px[0].current_element,
		('open', b, pb[0], ptr), (f, where(px[0]))))

// A scope opened while an open-coded region is open.
@region_scope depends on api_call || api_scope exists@
identifier b = {user_access_begin, user_rw_access_begin,
		user_read_access_begin, user_write_access_begin,
		masked_user_access_begin, masked_user_rw_access_begin,
		masked_user_read_access_begin, masked_user_write_access_begin};
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
expression ptr, n, res;
position pb, px;
statement S, S1;
type T;
identifier resid;
@@
(
if (!b@pb(ptr, n)) S
|
if (unlikely(!b@pb(ptr, n))) S
|
res = b@pb(ptr);
|
T resid = b@pb(ptr);
|
b@pb(ptr);
)
... when != \(user_access_end()\|user_rw_access_end()\|user_read_access_end()\|user_write_access_end()\)
    when any
it@px(...) S1

@script:python@
b << region_scope.b;
pb << region_scope.pb;
it << region_scope.it;
px << region_scope.px;
@@
if px[0].current_element == pb[0].current_element:
	finding(px[0], 'ERROR', 'nesting', '%s() inside the region begun with %s() on %s'
		% (it, b, where(pb[0])))

// ---- Fault paths of open regions -----------------------------------------

@open_label_any depends on api_call || api_scope@
identifier L;
@@
L:

@script:python open_label@
L << open_label_any.L;
OL;
@@
# Never drop a match here: a script that drops every match of the file
# ends the processing of the file.  A label that is not a fault label of
# an open region becomes one that cannot occur.
coccinelle.OL = L if L in OPEN_LABELS else NO_NAME

@label_ev depends on api_call || api_scope exists@
identifier open_label.OL;
identifier f;
position px;
@@
OL:
... when != \(user_access_end()\|user_rw_access_end()\|user_read_access_end()\|user_write_access_end()\)
    when any
f@px(...)

@script:python@
OL << open_label.OL;
f << label_ev.f;
px << label_ev.px;
@@
for func, (kind, b, pb, ptr), via in OPEN_LABELS[OL]:
	if func == px[0].current_element:
		region_event(kind, b, pb, ptr, f, px[0], via)

@label_ret depends on api_call || api_scope exists@
identifier open_label.OL;
position pr;
@@
OL:
... when != \(user_access_end()\|user_rw_access_end()\|user_read_access_end()\|user_write_access_end()\)
return@pr ...;

@script:python@
OL << open_label.OL;
pr << label_ret.pr;
@@
for func, (kind, b, pb, ptr), via in OPEN_LABELS[OL]:
	if func == pr[0].current_element:
		ME_RET.add(key(pb))
		finding(pr[0], 'ERROR', 'missing-end',
			'return on the fault path of %s() on %s leaves the region begun '
			'with %s() on %s open' % (via[0], via[1], b, where(pb)))

// ---- missing end ----------------------------------------------------------

@ret_open depends on api_call || api_scope exists@
identifier b = {user_access_begin, user_rw_access_begin,
		user_read_access_begin, user_write_access_begin,
		masked_user_access_begin, masked_user_rw_access_begin,
		masked_user_read_access_begin, masked_user_write_access_begin};
expression ptr, n, res;
position pb, pr;
statement S;
type T;
identifier resid;
@@
(
if (!b@pb(ptr, n)) S
|
if (unlikely(!b@pb(ptr, n))) S
|
res = b@pb(ptr);
|
T resid = b@pb(ptr);
|
b@pb(ptr);
)
... when != \(user_access_end()\|user_rw_access_end()\|user_read_access_end()\|user_write_access_end()\)
return@pr ...;

@script:python@
b << ret_open.b;
pb << ret_open.pb;
pr << ret_open.pr;
@@
if pr[0].current_element == pb[0].current_element:
	ME_RET.add(key(pb[0]))
	finding(pr[0], 'ERROR', 'missing-end',
		'return leaves the region begun with %s() on %s open'
		% (b, where(pb[0])))

@fall_open depends on api_call || api_scope exists@
identifier b = {user_access_begin, user_rw_access_begin,
		user_read_access_begin, user_write_access_begin,
		masked_user_access_begin, masked_user_rw_access_begin,
		masked_user_read_access_begin, masked_user_write_access_begin};
identifier fn;
expression ptr, n, res;
position pb;
statement S;
type T;
identifier resid;
@@
fn(...) {
... when any
(
if (!b@pb(ptr, n)) S
|
if (unlikely(!b@pb(ptr, n))) S
|
res = b@pb(ptr);
|
T resid = b@pb(ptr);
|
b@pb(ptr);
)
... when != \(user_access_end()\|user_rw_access_end()\|user_read_access_end()\|user_write_access_end()\)
}

@script:python@
b << fall_open.b;
pb << fall_open.pb;
@@
if key(pb[0]) not in ME_RET:
	finding(pb[0], 'ERROR', 'missing-end',
		'the region begun with %s() here is not ended on some path out of '
		'the function' % b)

@ret_pos depends on api_call || api_scope disable neg_if exists@
identifier b = {user_access_begin, user_rw_access_begin,
		user_read_access_begin, user_write_access_begin};
expression ptr, n;
position pb, pr;
statement S2;
@@
(
if (b@pb(ptr, n)) {
... when != \(user_access_end()\|user_rw_access_end()\|user_read_access_end()\|user_write_access_end()\)
    when exists
return@pr ...;
... when any
} else S2
|
if (likely(b@pb(ptr, n))) {
... when != \(user_access_end()\|user_rw_access_end()\|user_read_access_end()\|user_write_access_end()\)
    when exists
return@pr ...;
... when any
} else S2
)

@script:python@
b << ret_pos.b;
pb << ret_pos.pb;
pr << ret_pos.pr;
@@
ME_RET.add(key(pb[0]))
finding(pr[0], 'ERROR', 'missing-end',
	'return leaves the region begun with %s() on %s open'
	% (b, where(pb[0])))

// A positive begin whose block has no end at all.
@pos_ended depends on api_call || api_scope disable neg_if@
identifier b = {user_access_begin, user_rw_access_begin,
		user_read_access_begin, user_write_access_begin};
identifier e = {user_access_end, user_rw_access_end, user_read_access_end,
		user_write_access_end};
expression ptr, n;
position pb;
statement S2;
@@
(
if (b@pb(ptr, n)) { <+... e() ...+> } else S2
|
if (likely(b@pb(ptr, n))) { <+... e() ...+> } else S2
)

@pos_unended depends on api_call || api_scope disable neg_if@
identifier b = {user_access_begin, user_rw_access_begin,
		user_read_access_begin, user_write_access_begin};
expression ptr, n;
position pb != pos_ended.pb;
statement S1, S2;
@@
(
if (b@pb(ptr, n)) S1 else S2
|
if (likely(b@pb(ptr, n))) S1 else S2
)

@script:python@
b << pos_unended.b;
pb << pos_unended.pb;
@@
if key(pb[0]) not in ME_RET:
	finding(pb[0], 'ERROR', 'missing-end',
		'the region begun with %s() here is never ended' % b)

// ---- end without begin ----------------------------------------------------

@end_entry depends on api_call || api_scope exists@
identifier fn;
identifier e = {user_access_end, user_rw_access_end, user_read_access_end,
		user_write_access_end};
position pe;
statement S0;
@@
fn(...) {
... when != \(user_access_begin(...)\|user_rw_access_begin(...)\|user_read_access_begin(...)\|user_write_access_begin(...)\|masked_user_access_begin(...)\|masked_user_rw_access_begin(...)\|masked_user_read_access_begin(...)\|masked_user_write_access_begin(...)\)
    when != if (0) S0
    when any
e@pe();
... when any
}

@script:python@
e << end_entry.e;
pe << end_entry.pe;
@@
# A function that never begins a region and only ends one is a helper
# ending the region of its caller, like the cleanup of a scope.
if pe[0].current_element in BEGUN:
	finding(pe[0], 'ERROR', 'end-without-begin',
		'%s() reachable from the start of the function with no region begun'
		% e)

@end_after_end depends on api_call || api_scope exists@
identifier e1 = {user_access_end, user_rw_access_end, user_read_access_end,
		 user_write_access_end};
identifier e2 = {user_access_end, user_rw_access_end, user_read_access_end,
		 user_write_access_end};
position p1, p2;
statement S0;
@@
e1@p1();
... when != \(user_access_begin(...)\|user_rw_access_begin(...)\|user_read_access_begin(...)\|user_write_access_begin(...)\|masked_user_access_begin(...)\|masked_user_rw_access_begin(...)\|masked_user_read_access_begin(...)\|masked_user_write_access_begin(...)\)
    when != if (0) S0
e2@p2();

@script:python@
e1 << end_after_end.e1;
e2 << end_after_end.e2;
p1 << end_after_end.p1;
p2 << end_after_end.p2;
@@
finding(p2[0], 'ERROR', 'end-without-begin',
	'%s() reachable after %s() on %s with no region begun in between'
	% (e2, e1, where(p1[0])))

@end_fail depends on api_call || api_scope@
identifier b = {user_access_begin, user_rw_access_begin,
		user_read_access_begin, user_write_access_begin};
identifier e = {user_access_end, user_rw_access_end, user_read_access_end,
		user_write_access_end};
expression ptr, n;
position pb, pe;
statement S1;
@@
(
if (!b@pb(ptr, n)) { <+... e@pe() ...+> }
|
if (unlikely(!b@pb(ptr, n))) { <+... e@pe() ...+> }
|
if (b@pb(ptr, n)) S1 else { <+... e@pe() ...+> }
)

@script:python@
b << end_fail.b;
e << end_fail.e;
pb << end_fail.pb;
pe << end_fail.pe;
@@
for p in pe:
	finding(p, 'ERROR', 'end-without-begin',
		'%s() on the path where %s() on %s failed' % (e, b, where(pb[0])))

@fail_goto depends on api_call || api_scope@
identifier b = {user_access_begin, user_rw_access_begin,
		user_read_access_begin, user_write_access_begin};
expression ptr, n;
identifier L;
position pb;
@@
(
if (!b@pb(ptr, n)) goto L;
|
if (unlikely(!b@pb(ptr, n))) goto L;
)

@script:python@
b << fail_goto.b;
pb << fail_goto.pb;
L << fail_goto.L;
@@
CLOSED_LABELS.setdefault(L, []).append((pb[0].current_element,
	'%s() on %s fails' % (b, where(pb[0]))))

// ---- Paths with no region open: from closed labels ------------------------

@closed_label_any depends on api_call || api_scope@
identifier L;
@@
L:

@script:python closed_label@
L << closed_label_any.L;
CL;
@@
coccinelle.CL = L if L in CLOSED_LABELS else NO_NAME

@closed_ev depends on api_call || api_scope exists@
identifier closed_label.CL;
identifier f;
position px;
statement S0;
@@
CL:
... when != \(user_access_begin(...)\|user_rw_access_begin(...)\|user_read_access_begin(...)\|user_write_access_begin(...)\|masked_user_access_begin(...)\|masked_user_rw_access_begin(...)\|masked_user_read_access_begin(...)\|masked_user_write_access_begin(...)\)
    when != if (0) S0
    when any
f@px(...)

@script:python@
CL << closed_label.CL;
f << closed_ev.f;
px << closed_ev.px;
@@
for func, why in CLOSED_LABELS[CL]:
	if func != px[0].current_element:
		continue
	if f in ENDS:
		finding(px[0], 'ERROR', 'end-without-begin',
			'%s() reachable through label %s when %s: no region is open'
			% (f, CL, why))
	elif is_accessor(f) and key(px[0]) not in IN_SCOPE:
		finding(px[0], 'ERROR', 'access-outside-region',
			'%s() reachable through label %s when %s: no region is open'
			% (f, CL, why))

// ---- access outside a region ---------------------------------------------

@acc_entry depends on api_call || api_scope exists@
identifier fn;
identifier a =~ "^unsafe_";
position pa;
statement S0;
@@
fn(...) {
... when != \(user_access_begin(...)\|user_rw_access_begin(...)\|user_read_access_begin(...)\|user_write_access_begin(...)\|masked_user_access_begin(...)\|masked_user_rw_access_begin(...)\|masked_user_read_access_begin(...)\|masked_user_write_access_begin(...)\)
    when != if (0) S0
    when any
a@pa(...)
... when any
}

@script:python@
a << acc_entry.a;
pa << acc_entry.pa;
@@
if is_accessor(a) and key(pa[0]) not in IN_SCOPE and \
   pa[0].current_element in MANAGED:
	finding(pa[0], 'ERROR', 'access-outside-region',
		'%s() reachable from the start of the function with no region begun'
		% a)

@acc_after_end depends on api_call || api_scope exists@
identifier e = {user_access_end, user_rw_access_end, user_read_access_end,
		user_write_access_end};
identifier a =~ "^unsafe_";
position pe, pa;
statement S0;
@@
e@pe();
... when != \(user_access_begin(...)\|user_rw_access_begin(...)\|user_read_access_begin(...)\|user_write_access_begin(...)\|masked_user_access_begin(...)\|masked_user_rw_access_begin(...)\|masked_user_read_access_begin(...)\|masked_user_write_access_begin(...)\)
    when != if (0) S0
    when any
a@pa(...)

@script:python@
e << acc_after_end.e;
a << acc_after_end.a;
pe << acc_after_end.pe;
pa << acc_after_end.pa;
@@
if is_accessor(a) and key(pa[0]) not in IN_SCOPE:
	finding(pa[0], 'ERROR', 'access-outside-region',
		'%s() reachable after %s() on %s with no region begun'
		% (a, e, where(pe[0])))

@acc_fail depends on api_call || api_scope@
identifier b = {user_access_begin, user_rw_access_begin,
		user_read_access_begin, user_write_access_begin};
identifier a =~ "^unsafe_";
expression ptr, n;
position pb, pa;
statement S1;
@@
(
if (!b@pb(ptr, n)) { <+... a@pa(...) ...+> }
|
if (unlikely(!b@pb(ptr, n))) { <+... a@pa(...) ...+> }
|
if (b@pb(ptr, n)) S1 else { <+... a@pa(...) ...+> }
)

@script:python@
b << acc_fail.b;
a << acc_fail.a;
pb << acc_fail.pb;
pa << acc_fail.pa;
@@
for p in pa:
	if is_accessor(a):
		finding(p, 'ERROR', 'access-outside-region',
			'%s() on the path where %s() on %s failed' % (a, b, where(pb[0])))

// ---- masked range --------------------------------------------------------

@masked_first depends on api_call || api_scope exists@
identifier m = {masked_user_access_begin, masked_user_rw_access_begin,
		masked_user_read_access_begin, masked_user_write_access_begin};
identifier a =~ "^unsafe_";
expression ptr, res;
position pm, pa;
type T;
identifier resid;
@@
(
res = m@pm(ptr);
|
T resid = m@pm(ptr);
)
... when != \(user_access_end()\|user_rw_access_end()\|user_read_access_end()\|user_write_access_end()\)
a@pa(...)

@script:python@
m << masked_first.m;
pm << masked_first.pm;
res << masked_first.res;
pa << masked_first.pa;
@@
check_masked_range(pa[0], pm[0], res, '%s()' % m)

// ---- output ---------------------------------------------------------------

@script:python depends on api_call || api_scope@
@@
# The first access of each scope, now that every scope has been seen.
for k in sorted(SCOPE_FIRST):
	pa, ps, ptr = SCOPE_FIRST[k]
	check_masked_range(pa, ps, ptr, 'the scope')

@script:python depends on report && (api_call || api_scope)@
@@
emit(coccilib.report.print_report)

@script:python depends on org && (api_call || api_scope)@
@@
emit(lambda p, msg: coccilib.org.print_safe_todo(p, msg))

// context: star every finding, selected by a script constraint.

@depends on context && (api_call || api_scope)@
identifier f;
position p : script:python() { has_finding(p[0]) };
@@
* f@p(...)

@depends on context && (api_call || api_scope)@
position p : script:python() { has_finding(p[0]) };
@@
* return@p ...;

@depends on context && (api_call || api_scope)@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
position p : script:python() { has_finding(p[0]) };
statement S;
@@
* it@p(...) S

// patch: replace the end of a mode mismatch where every begin that reaches
// the end agrees on the mode.  Masked begins fit any end and do not vote.

@end_site depends on patch && (api_call || api_scope)@
identifier e = {user_access_end, user_rw_access_end, user_read_access_end,
		user_write_access_end};
position pe;
@@
e@pe()

@script:python end_fix depends on patch@
e << end_site.e;
pe << end_site.pe;
old;
new;
@@
modes = END_MODES.get(key(pe[0]), set()) - {None}
if len(modes) == 1 and ENDS[e] not in modes:
	coccinelle.old = e
	coccinelle.new = END_FOR_MODE[modes.pop()]
else:
	coccinelle.old = NO_NAME
	coccinelle.new = NO_NAME

@depends on patch && (api_call || api_scope)@
identifier end_fix.old, end_fix.new;
position end_site.pe;
@@
- old@pe();
+ new();
