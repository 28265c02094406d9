// SPDX-License-Identifier: GPL-2.0-only
/// Find the bugs user access regions invite, in open-coded regions and in
/// scopes: regions left open, ended in the wrong mode or nested, ends and
/// accesses with no region open, calls that may fault or sleep inside a
/// region, accesses that do not fit the region's mode or pointer.
///
/// A region is begun by user_{read_,write_,}access_begin() or
/// masked_user_access_begin(), which returns the pointer to use, and ended
/// by user_{read_,write_,}access_end(), or is a
/// scoped_user_{read,write,rw}_access{,_size}() scope; it covers the user
/// memory of the pointer given to it.  An accessor unsafe_*(..., label)
/// jumps to label on a fault.  Messages, in the form
/// file:line:col-col: ERROR|WARNING: [class] function(): what is wrong:
///  [mode-mismatch]   region begun in one mode, ended in another
///  [missing-end]     a path from a successful begin leaves the function,
///                    or the fault path of an accessor does, with no end
///  [nesting]         a region or scope opened inside another one
///  [conditional-region] (WARNING) a begin that runs only under another
///                    condition, if (c && !begin(...)), with ends under
///                    conditions of their own: correct only if they agree
///                    on every path; the message names both conditions
///  [end-without-begin] an end reachable with no region open: a failed
///                    begin, a second end, an end after or inside a scope
///  [access-outside-region] an accessor reachable with no region open
///  [call-in-region]  a call in a region that is not an accessor, a known
///                    safe helper or an __always_inline function of the
///                    file (WARNING unless it is known to be out of line)
///  [accessor-mode]   put/copy-to in a read region, get/copy-from in a
///                    write region, read-modify-write outside a rw region
///  [masked-range]    (WARNING) the first access of a masked region or
///                    scope may lie beyond PAGE_SIZE from the pointer
///  [range]           an accessor address not based on the begin pointer,
///                    or reached through the begin pointer after it got a
///                    new value inside the region (the begin checked the
///                    range of the old one)
///  [masked-pointer]  masked_user_access_begin()'s result discarded (a
///                    bare call, a cast to void, or stored in a variable no
///                    accessor of the region uses), or the unmasked pointer
///                    used inside the region
///  [stale-pointer]   the pointer a scope or begin opens on is a copy taken
///                    before the variable it was copied from was changed
///                    (truncated, aligned, advanced) and checked: the region
///                    covers the old value, which nobody checked
///
/// MODE=patch replaces the end of a mode mismatch where every begin that
/// reaches that end agrees on the mode; everything else needs a human.
///
// Confidence: High for ERROR, Moderate for WARNING
// Copyright: (C) 2026 Seed 856ff4c8 maintainers
// Comments:
//  Limits, each a possible false negative:
//  - Per function: a region ended in another function is a missing-end;
//    a helper made of accessors (__unsafe_setup_sigcontext()) is assumed
//    to run inside its caller's region and is not checked against it; an
//    end in a function that begins no region ends its caller's.
//  - A begin tested positively, if (user_read_access_begin(p, n)) { ... },
//    is checked inside the braces only; code under if (0) is not followed.
//  - Fault paths are followed one label deep, from the accessors of the
//    API, the wrappers of the tree it knows (WRAPPERS) and the macros of
//    the file whose last parameter is the label of the accessors in their
//    body; the address inside a wrapper is not checked.
//  - An end is one of the API, an __always_inline function of the file
//    that calls one, or a macro of the file whose body calls one; a
//    return whose value such a helper computes ends the region.
//  - A void function falling off its end after a fault label is not
//    checked for missing-end; a return on a fault path is.
//  - masked_user_access_begin() of 6.12 has no mode: any end fits it.
//  - call-in-region: a helper called in a region is not followed (objtool
//    checks the calls on x86); calls between user_access_save() and
//    user_access_restore() are not reported; a macro of the file counts
//    as the calls its body makes.
//  - conditional-region: whether c holds at the end as it did at the
//    begin is a question of the values on each path, which spatch does
//    not follow: the message names the conditions and leaves the verdict
//    to a human (upstream splits such a function; objtool: "redundant
//    UACCESS disable").  The other classes leave these regions alone.
//  - masked-range looks at the first access on each path of an open-coded
//    masked region and at the textually first accessor of a scope; a
//    masked begin in a declaration, T *u = masked_user_access_begin(p);,
//    is not checked.
//  - A scope whose body is, without braces, one do-while or switch
//    statement: spatch 1.1.1 does not parse it as the scope's body.
//    scoped-uaccess check puts such a body in braces before it runs the
//    script (converter/scoped_uaccess/cocci/shim.py); run by make
//    coccicheck, the scope is not looked into, and its accessors are
//    reported as access-outside-region.
//  A second user pointer accessed inside a scope (mainline's rseq reads
//  through a pointer it checked when it was registered) is a range ERROR:
//  the scope checks and masks its own pointer only, so that access has no
//  range check at this point and no speculation mask; a deliberate one is
//  right only by an argument the code does not show, triaged by hand.
//  Known false positives:
//  - call-in-region judges a helper of a header by a text scan of the
//    tree's headers for static inline definitions (the first time a call
//    needs it, or the index scoped-uaccess check names in
//    SCOPED_UACCESS_INLINES): an __always_inline one is fine, a plain
//    static inline one a WARNING, as is a helper the scan does not find
//    and the SAFE_CALLS table does not list; never an ERROR.
//  - masked-range misses struct members beyond one page (&p->big[4096])
//    and reports an index that is not a loop counter starting at 0 even
//    if it is provably small.
//  - range: a pointer derived from the begin pointer through a call or an
//    assignment the checker cannot follow.  An address that does not
//    parse as a pointer expression is a WARNING; an integer constant,
//    cast or not, an ERROR.
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@
import json
import os
import re
from pathlib import Path

# BEGIN API TABLES: OPEN_BEGINS MASKED_BEGINS ENDS END_FOR_MODE SCOPES INLINE_SCOPES ACCESSORS WRAPPERS NOT_ACCESSORS SAFE_CALLS SAFE_IN UNSAFE_CALLS FILE_MACROS FINDINGS EXPRESSIONS INLINES
# Generated by `converter/scoped-uaccess api-tables --write`.
OPEN_BEGINS = {
	'user_access_begin': 'rw', 'user_read_access_begin': 'read',
	'user_rw_access_begin': 'rw', 'user_write_access_begin': 'write',
}
MASKED_BEGINS = {
	'masked_user_access_begin': None,
	'masked_user_read_access_begin': 'read',
	'masked_user_rw_access_begin': 'rw',
	'masked_user_write_access_begin': 'write',
}
ENDS = {
	'user_access_end': 'rw', 'user_read_access_end': 'read',
	'user_rw_access_end': 'rw', 'user_write_access_end': 'write',
}
END_FOR_MODE = {
	'read': 'user_read_access_end', 'rw': 'user_access_end',
	'write': 'user_write_access_end',
}
SCOPES = {
	'scoped_user_read_access': 'read',
	'scoped_user_read_access_size': 'read', 'scoped_user_rw_access': 'rw',
	'scoped_user_rw_access_size': 'rw', 'scoped_user_write_access': 'write',
	'scoped_user_write_access_size': 'write',
}
INLINE_SCOPES = {
	'get_user_inline': 'read', 'put_user_inline': 'write',
}
ACCESSORS = {
	'unsafe_atomic_op1': ('rmw', 2), 'unsafe_atomic_op2': ('rmw', 2),
	'unsafe_copy_from_user': ('read', 1),
	'unsafe_copy_to_user': ('write', 0), 'unsafe_get_user': ('read', 1),
	'unsafe_put_user': ('write', 1), 'unsafe_try_cmpxchg_user': ('rmw', 0),
}
WRAPPERS = {
	'unsafe_compat_save_altstack': ('write', 0),
	'unsafe_copy_ckfpr_from_user': ('read', 1),
	'unsafe_copy_ckfpr_to_user': ('write', 0),
	'unsafe_copy_ckvsx_from_user': ('read', 1),
	'unsafe_copy_ckvsx_to_user': ('write', 0),
	'unsafe_copy_dirent_name': ('write', 0),
	'unsafe_copy_fpr_from_user': ('read', 1),
	'unsafe_copy_fpr_to_user': ('write', 0),
	'unsafe_copy_vsx_from_user': ('read', 1),
	'unsafe_copy_vsx_to_user': ('write', 0),
	'unsafe_get_compat_sigset': ('read', 1),
	'unsafe_get_sigset_t': ('read', 1),
	'unsafe_get_user_sigset': ('read', 1),
	'unsafe_put_compat_sigset': ('write', 0),
	'unsafe_put_sigcontext': ('write', 0),
	'unsafe_put_sigcontext32': ('write', 0),
	'unsafe_put_sigmask': ('write', None),
	'unsafe_put_sigset_t': ('write', 0),
	'unsafe_restore_general_regs': ('read', 1),
	'unsafe_restore_sigcontext': ('read', 3),
	'unsafe_save_altstack': ('write', 0),
	'unsafe_save_altstack32': ('write', 0),
	'unsafe_save_general_regs': ('write', 1),
	'unsafe_save_tm_user_regs': ('write', 1),
	'unsafe_save_user_regs': ('write', 1),
	'unsafe_setup_sigcontext': ('write', 0),
}
NOT_ACCESSORS = {
	'unsafe_memcpy', 'unsafe_memset',
}
SAFE_CALLS = {
	'READ_ONCE', 'WRITE_ONCE', '__access_ok', '__asm__',
	'__test_and_clear_bit', '__this_cpu_add', '__this_cpu_dec',
	'__this_cpu_inc', 'access_ok', 'array_index_mask_nospec',
	'array_index_nospec', 'asm', 'barrier', 'barrier_nospec', 'be16_to_cpu',
	'be32_to_cpu', 'be64_to_cpu', 'can_do_masked_user_access', 'clamp',
	'compat_ptr', 'container_of', 'copy_mc_enhanced_fast_string',
	'copy_mc_fragile', 'copy_mc_fragile_handle_tail', 'copy_to_nontemporal',
	'cpu_to_be16', 'cpu_to_be32', 'cpu_to_be64', 'cpu_to_le16',
	'cpu_to_le32', 'cpu_to_le64', 'csum_partial_copy_generic', 'data_race',
	'fallthrough', 'get_unaligned', 'le16_to_cpu', 'le32_to_cpu',
	'le64_to_cpu', 'likely', 'lower_32_bits', 'mask_user_address', 'max',
	'max_t', 'mb', 'min', 'min_t', 'offsetof', 'ptr_to_compat',
	'put_unaligned', 'raw_cpu_add', 'raw_cpu_dec', 'raw_cpu_inc',
	'raw_cpu_sub', 'rep_movs_alternative', 'rep_stos_alternative', 'rmb',
	'sizeof', 'smp_mb', 'smp_rmb', 'smp_wmb', 'static_branch_likely',
	'static_branch_unlikely', 'swab16', 'swab32', 'swab64', 'test_bit',
	'this_cpu_add', 'this_cpu_dec', 'this_cpu_inc', 'this_cpu_sub',
	'typeof', 'unlikely', 'untagged_addr', 'upper_32_bits',
	'user_access_restore', 'user_access_save', 'wmb',
}
SAFE_IN = {
	'__copy_user': 'arch/x86/lib/', '__futex_atomic_op': 'arch/',
	'aligned_byte_mask': '', 'cpu_feature_enabled': 'arch/x86/',
	'cpu_has_feature': 'arch/powerpc/', 'huge_encode_dev': '',
	'i915_mmio_reg_offset': 'drivers/gpu/drm/i915/',
	'mfspr': 'arch/powerpc/', 'mtspr': 'arch/powerpc/',
	'new_encode_dev': '', 'old_encode_dev': '',
	'set_trap_norestart': 'arch/powerpc/', 'static_cpu_has': 'arch/x86/',
	'to_user_ptr': 'arch/powerpc/',
}
UNSAFE_CALLS = {
	'__clear_user', '__copy_from_user', '__copy_to_user', '__get_user',
	'__put_user', 'clear_user', 'cond_resched', 'copy_from_user',
	'copy_from_user_nofault', 'copy_to_user', 'copy_to_user_nofault',
	'down_read', 'down_write', 'fault_in_user_writeable', 'force_exit_sig',
	'force_sig', 'force_sigsegv', 'get_user', 'kcalloc', 'kfree', 'kmalloc',
	'kmalloc_array', 'kvfree', 'kvmalloc', 'kvzalloc', 'kzalloc',
	'might_fault', 'might_resched', 'might_sleep', 'mmap_read_lock',
	'mmap_read_unlock', 'msleep', 'mutex_lock', 'mutex_lock_interruptible',
	'mutex_unlock', 'pr_alert', 'pr_cont', 'pr_crit', 'pr_debug',
	'pr_emerg', 'pr_err', 'pr_info', 'pr_notice', 'pr_warn', 'printk',
	'put_user', 'schedule', 'strncpy_from_user', 'strnlen_user', 'up_read',
	'up_write', 'usleep_range', 'vfree', 'vmalloc',
}

_FILE_MACROS = {}

def file_macros(path, known_ends=None):
	"""(ends, wrappers, calls) of the macros the file at path defines: a
	macro whose body calls an end ends a region (name -> that end, as a
	do { user_write_access_end(); return err; } while (0) exit); a macro
	whose last parameter is the label of the accessors in its body is an
	accessor (name -> what its body does: read, write or rmw); every
	function-like macro -> the names its body calls (a macro runs where it
	is used: its calls are what a region may not make).  A macro defined
	twice (once as a stub for another configuration) is what either
	definition makes it.  An end is one of known_ends (default ENDS), which a
	caller that counts the file's own end helpers passes.  A text scan,
	cached per file and table of ends: the one it was when first asked."""
	ends_table = ENDS if known_ends is None else known_ends
	cached = (path, id(ends_table))
	if cached not in _FILE_MACROS:
		try:
			with open(path, errors='replace') as src:
				text = re.sub(r'\\\n', ' ', src.read())
		except OSError:
			text = ''
		ends, wrappers, calls = {}, {}, {}
		for m in re.finditer(r'^[ \t]*#[ \t]*define[ \t]+(\w+)(?:\(([^)]*)\))?(.*)$',
				     text, re.M):
			name, params, body = m.group(1), m.group(2), m.group(3)
			called = re.findall(r'\b(\w+)\s*\(', body)
			if params is not None:
				calls.setdefault(name, set()).update(
					c for c in called if c not in ('while', 'if', 'for', 'switch',
								      'sizeof', 'typeof', 'return'))
			end = next((c for c in called if c in ends_table), None)
			if end:
				ends[name] = end
			label = params.split(',')[-1].strip() if params else ''
			modes = {(ACCESSORS.get(c) or WRAPPERS.get(c))[0] for c in called
				 if c in ACCESSORS or c in WRAPPERS}
			if modes and re.match(r'\w+$', label) and \
			   re.search(r'\b%s\s*\)' % label, body):
				wrappers[name] = modes.pop() if len(modes) == 1 else 'rmw'
		_FILE_MACROS[cached] = (ends, wrappers, calls)
	return _FILE_MACROS[cached]

def key(p):
	return (p.file, p.line, p.column)

def where(p):
	return 'line %s' % p.line

def finding(p, severity, cls, msg, subject=None):
	"""Records a finding at position p.  With a subject, one finding per
	function, class and subject: a later position of the same mistake is
	added to it.  Without one, one per position and class.  The first rule
	to see a position words its message."""
	func = p.current_element
	k = (p.file, func, cls, subject) if subject is not None else \
	    (p.file, func, cls, None, int(p.line), int(p.column))
	at = (int(p.line), int(p.column))
	FINDINGS.setdefault(k, {}).setdefault(at, (p, '%s: [%s] %s(): %s' % (
		severity, cls, func, msg)))

def has_finding(p):
	"""Whether a finding covers position p (context mode stars it)."""
	at = (int(p.line), int(p.column))
	return any(k[0] == p.file and at in places for k, places in FINDINGS.items())

def line_ranges(lines):
	"""Sorted line numbers as text, runs joined: [3, 4, 5, 9] -> '3-5, 9'."""
	out, run = [], []
	for n in sorted(set(lines)):
		if run and n == run[-1] + 1:
			run.append(n)
			continue
		if run:
			out.append('%d-%d' % (run[0], run[-1]) if len(run) > 1 else '%d' % run[0])
		run = [n]
	if run:
		out.append('%d-%d' % (run[0], run[-1]) if len(run) > 1 else '%d' % run[0])
	return ', '.join(out)

def emit(printer):
	"""Prints every finding at its first position, sorted by file, line and
	column; the lines of its other positions follow its message."""
	first = []
	for places in FINDINGS.values():
		at = min(places)
		p, msg = places[at]
		rest = [line for line, _ in places if line != at[0]]
		if rest:
			msg += '; also line%s %s' % ('s' if len(set(rest)) > 1 else '',
						      line_ranges(rest))
		first.append(((p.file, at), p, msg))
	for _, p, msg in sorted(first, key=lambda f: (f[0], f[2])):
		printer(p, msg)

TOKEN = re.compile(r'\s*(->|\+\+|--|[A-Za-z_]\w*|0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|.)')
TYPE_WORDS = {
	'__force', '__u16', '__u32', '__u64', '__u8', '__user', 'char',
	'compat_uptr_t', 'const', 'enum', 'int', 'long', 's16', 's32', 's64',
	's8', 'short', 'signed', 'size_t', 'struct', 'u16', 'u32', 'u64', 'u8',
	'union', 'unsigned', 'void', 'volatile',
}

def tokens(text):
	return [t for t in TOKEN.findall(text) if t.strip()]

def matching(toks, i):
	"""Index of the bracket closing toks[i], None if there is none."""
	depth = 0
	for j in range(i, len(toks)):
		depth += (toks[j] in ('(', '[')) - (toks[j] in (')', ']'))
		if depth == 0 and toks[j] in (')', ']'):
			return j
	return None

def is_cast(toks, j):
	"""Whether toks[0..j], in parentheses, is a cast before an operand."""
	inner = toks[1:j]
	if not inner or j + 1 >= len(toks):
		return False
	if inner[0] in ('typeof', '__typeof__') and inner[1:2] == ['(']:
		# (typeof(x)) or (typeof(x) *): a type, whatever x is
		k = matching(inner, 1)
		return k is not None and all(t in ('*', '__user', 'const') for t in inner[k + 1:])
	return inner[-1] == '*' or (any(t in TYPE_WORDS for t in inner) and all(
		t in TYPE_WORDS or t == '*' or re.match(r'[A-Za-z_]\w*_t$', t) for t in inner))

def access_path(text):
	"""The access path of a pointer expression, ['p', '->a', '.b', '[]'],
	and the offsets applied to it; None if it is not one."""
	toks = tokens(text)
	while toks and toks[0] in ('(', '&', '*'):
		j = matching(toks, 0) if toks[0] == '(' else 0
		if j is None:
			return None
		if toks[0] != '(' or j == len(toks) - 1:
			toks = toks[1:-1] if toks[0] == '(' else toks[1:]
		elif is_cast(toks, j):
			toks = toks[j + 1:]
		else:	# (expr) op ...: the parenthesised operand
			inner = access_path(' '.join(toks[1:j]))
			return inner and extend_path(*inner, toks[j + 1:])
	if not toks or not re.match(r'[A-Za-z_]\w*$', toks[0]):
		return None
	if re.match(r'[A-Z][A-Z0-9_]*$', toks[0]) and toks[1:2] == ['(']:
		# An ALL_CAPS macro around the pointer, like CMSG_USER_DATA(cm):
		# an offset from its first argument.
		j = matching(toks, 1)
		if j is None:
			return None
		depth, k = 0, 2
		while k < j and not (depth == 0 and toks[k] == ','):
			depth += (toks[k] in ('(', '[')) - (toks[k] in (')', ']'))
			k += 1
		inner = access_path(' '.join(toks[2:k]))
		return inner and extend_path(inner[0], inner[1] + ['?'], toks[j + 1:])
	return extend_path([toks[0]], [], toks[1:])

def extend_path(path, offs, rest):
	"""path and offs, followed by the members, indices and offset in rest."""
	i = 0
	while i < len(rest):
		t = rest[i]
		if t in ('->', '.') and i + 1 < len(rest):
			path, i = path + [t + rest[i + 1]], i + 2
		elif t == '[':
			j = matching(rest, i)
			if j is None:
				return None
			path, offs, i = path + ['[]'], offs + [' '.join(rest[i + 1:j])], j + 1
		elif t in ('++', '--'):
			i += 1
		elif t in ('+', '-'):
			return path, offs + [' '.join(rest[i + 1:])]
		else:
			return None
	return path, offs

def strip_index(path):
	return [c for c in path if c != '[]']

def chain(text):
	"""The access path of a pointer expression without its indices,
	['p', '->a', '.b']; None if it is not one."""
	found = access_path(text)
	return found and strip_index(found[0])

def pretty(text):
	"""An expression as printed by Coccinelle, spaced as in the kernel."""
	out, operand, glue = '', False, True
	for t in tokens(text):
		word = re.match(r'\w', t) is not None
		if t in ('->', '.', '[', ']', ')', '++', '--', ',') or glue or \
		   (t == '(' and operand):
			out += t
		else:
			out += ' ' + t
		# what the next token sticks to
		glue = t in ('->', '.', '[', '(') or \
		       (t in ('&', '*', '!', '~', '-', '+') and not operand)
		operand = word or t in (')', ']', '++', '--')
	return out.strip()

ALWAYS, INLINE = 'always', 'inline'
SKIP_DIRS = ('Documentation', 'tools', 'scripts', 'samples', 'usr', '.git')
_DEFINITION = re.compile(
	'^static\\s+(?P<quals>(?:(?:__always_inline|inline|__inline__|__inline|n'
	'okprobe_inline|__attribute__\\s*\\(\\([^)]*\\)\\)|const|unsigned|signed|str'
	'uct|enum|union|\\w+)\\s+|\\*\\s*)+?)\\**\\s*(?P<name>[A-Za-z_]\\w*)\\s*\\([^;{]'
	'*\\)\\s*\\{', re.MULTILINE)

def scan_text(text: str) -> dict[str, str]:
	"""name -> ALWAYS or INLINE for every static inline definition in text."""
	found: dict[str, str] = {}
	for m in _DEFINITION.finditer(text):
		quals = m.group('quals')
		if '__always_inline' in quals or 'nokprobe_inline' in quals:
			kind = ALWAYS
		elif re.search(r'\b(inline|__inline__|__inline)\b', quals):
			kind = INLINE
		else:
			continue
		# An __always_inline definition anywhere wins over a plain one
		# (the same helper may be defined per configuration).
		if found.get(m.group('name')) != ALWAYS:
			found[m.group('name')] = kind
	return found

def header_files(kdir: Path) -> list[Path]:
	"""Every header of the tree: include/, arch/*/include/ and the local
	headers beside the C files (drivers, arch/*/kernel)."""
	found = []
	for dirpath, dirnames, names in os.walk(kdir):
		if Path(dirpath) == kdir:
			dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
		found += [Path(dirpath) / n for n in names if n.endswith('.h')]
	return sorted(found)

def build(kdir: Path) -> dict[str, str]:
	index: dict[str, str] = {}
	for header in header_files(kdir):
		try:
			text = header.read_text(errors='replace')
		except OSError:
			continue
		for name, kind in scan_text(text).items():
			if index.get(name) != ALWAYS:
				index[name] = kind
	return index
# END API TABLES

BEGINS = {**OPEN_BEGINS, **MASKED_BEGINS}
OPENERS = set(BEGINS) | set(INLINE_SCOPES)	# nesting when called in a region
API_ENDS = dict(ENDS)
API_ACCESSORS = {**WRAPPERS, **ACCESSORS}
# ENDS and ACCESSORS stay the API's; the file's own ends and wrappers
# count for the classes of regions (end helpers, macros: learn()) and
# calls (end helpers) only, in tables of their own.
REGION_ENDS, REGION_ACCESSORS, CALL_ENDS = {}, {}, {}

def is_accessor(f):
	return f.startswith('unsafe_') and f not in NOT_ACCESSORS

def scope_call(it, ps, ptr, f, px):
	"""The call f at px in the body of the scope it at ps on ptr, for the
	classes that look into scope bodies: regions (openers), outside (ends
	and accessors), accessors (accessors) and range (the API's)."""
	if f in OPENERS:
		REGION_SCOPE_CALLS.append((it, ps, f, px))
	if f in ENDS or is_accessor(f):
		OUTSIDE_SCOPE_CALLS.append((it, ps, f, px))
	if is_accessor(f):
		ACCESS_SCOPE_CALLS.append((it, ps, ptr, f, px))
	if f in ACCESSORS:
		RANGE_SCOPE_CALLS.append((it, ps, ptr, f, px))

def innermost(calls):
	"""The calls (scope, its position, ..., call position), each with the
	innermost scope around it, the one begun last, sorted by position.
	Python: SmPL cannot cut a nested scope out of the outer one's body."""
	inner = {}
	for call in calls:
		k = key(call[-1])
		if k not in inner or (int(call[1].line), int(call[1].column)) > \
		   (int(inner[k][1].line), int(inner[k][1].column)):
			inner[k] = call
	return [inner[k] for k in sorted(inner)]

def reset():
	"""Per-file state: Coccinelle runs the rules file by file."""
	global FINDINGS, BEGIN_AT, LABEL_AT, END_MODES, ME_RET, REGION_LABEL_AT
	global REGION_SCOPE_CALLS, REGION_OPEN_LABELS, COND_BEGINS, MANAGED, BEGUN
	global OUTSIDE_SCOPE_CALLS, CLOSED_LABELS, INLINE_FNS
	global NOINLINE_FNS, LOCAL_FNS, SAVED, CALL_SCOPE_CALLS, CALL_OPEN_LABELS
	global ACCESS_ACC, LOOP0, ACCESS_SCOPE_CALLS, SCOPE_FIRST, ACCESS_OPEN_LABELS
	global RANGE_BEGIN_AT, RANGE_ACC, ALIASES, SCOPE_ALIASES, MASKED
	global RANGE_SCOPE_CALLS, RANGE_OPEN_LABELS, MASKED_USE, REASSIGN
	FINDINGS = {}
	for table, api in ((REGION_ENDS, API_ENDS), (CALL_ENDS, API_ENDS),
			   (REGION_ACCESSORS, API_ACCESSORS)):
		table.clear()
		table.update(api)
	BEGIN_AT = {}		# begin position -> begin name
	LABEL_AT = {}		# accessor position -> its fault label
	# regions: end position -> modes of the begins reaching it; begins
	# with a missing end found at a return on a fault path; accessor
	# position -> its fault label; (scope, its position, opener,
	# position); label -> [(function, begin position, via)]
	END_MODES, ME_RET, REGION_LABEL_AT = {}, set(), {}
	REGION_SCOPE_CALLS, REGION_OPEN_LABELS = [], {}
	COND_BEGINS = {}	# begin position -> (position, begin, its
				# condition, [(end, condition, position)])
	# outside: functions that begin, end or scope a region; those that
	# begin or scope one; (scope, its position, call, call position);
	# label -> [(function, why no region is open)]
	MANAGED, BEGUN = set(), set()
	OUTSIDE_SCOPE_CALLS, CLOSED_LABELS = [], {}
	# calls: the __always_inline, noinline and all functions of the file;
	# calls between user_access_save/restore; (scope, its position, call,
	# call position); label -> [(function, begin position)]
	INLINE_FNS, NOINLINE_FNS, LOCAL_FNS = set(), set(), set()
	SAVED, CALL_SCOPE_CALLS, CALL_OPEN_LABELS = set(), [], {}
	# accessors: accessor position -> (address, label); -> loop counters
	# from 0; (scope, its position, pointer, accessor, position); scope
	# position -> (first accessor, scope, pointer); label -> [(function,
	# begin position)]
	ACCESS_ACC, LOOP0, ACCESS_SCOPE_CALLS, SCOPE_FIRST = {}, {}, [], {}
	ACCESS_OPEN_LABELS = {}
	RANGE_BEGIN_AT = {}	# begin position -> (begin, pointer)
	RANGE_ACC = {}		# accessor position -> (address, label, accessor)
	ALIASES = {}		# function -> [(variable, expression)]
	SCOPE_ALIASES = set()	# (function, variable) assigned in a scope
	MASKED = {}		# masked begin position -> (result, argument)
	RANGE_SCOPE_CALLS = []	# (scope, position, pointer, accessor, position)
	RANGE_OPEN_LABELS = {}	# label -> [(function, begin position)]
	MASKED_USE = {}		# masked begin position -> [position, result used]
	REASSIGN = {}		# assignment position -> (variable, value)

reset()

# ---- regions ---------------------------------------------------------------

def learn(path):
	"""The macros of the file that end a region are ends, those that wrap
	accessors and take their label are accessors (file_macros())."""
	ends, wrappers = file_macros(path, REGION_ENDS)[:2]
	for name, end in ends.items():
		REGION_ENDS.setdefault(name, REGION_ENDS[end])
	for name, mode in wrappers.items():
		REGION_ACCESSORS.setdefault(name, (mode, None))

def end_reached(b, pb, e, pe, through):
	"""The end e at pe reached with the region b began at pb open.  Python:
	a table lookup, and MODE=patch needs every begin reaching an end."""
	mode = BEGINS[b]
	END_MODES.setdefault(key(pe), set()).add(mode)
	if mode is not None and REGION_ENDS[e] != mode:
		finding(pe, 'ERROR', 'mode-mismatch',
			'region begun with %s() on %s ended with %s()%s, not %s()'
			% (b, where(pb), e, through, END_FOR_MODE[mode]))

def end_fix(e, pe):
	"""The end MODE=patch puts at pe: that of the one mode of the begins
	reaching it (masked begins fit any end and do not vote), None where e
	fits or they disagree.  Python: SmPL cannot count the modes."""
	modes = END_MODES.get(key(pe), set()) - {None}
	if e in API_ENDS and len(modes) == 1 and REGION_ENDS[e] not in modes:
		return END_FOR_MODE[modes.pop()]
	return None

def region_call(b, pb, f, px, via=None):
	"""The call f at px, an end or an opener, runs with the region b began
	at pb open (via: the accessor whose fault path it is on).  Python:
	the verdict and its message read the tables."""
	if px.current_element != pb.current_element:
		return
	through = ' on the fault path of %s() on %s' % via if via else ''
	if f in REGION_ENDS:
		end_reached(b, pb, f, px, through)
	elif f in OPENERS:
		finding(px, 'ERROR', 'nesting', '%s() inside the region begun with %s() on %s%s'
			% (f, b, where(pb), through))

def region_open_call(pb, f, px):
	"""The call f at px runs in the open-coded region begun at pb; an
	accessor's label starts a fault path.  Python: the label rule runs once
	and looks the begins up here, not once per accessor of a path rule."""
	if f in REGION_ACCESSORS:
		if key(px) in REGION_LABEL_AT:
			REGION_OPEN_LABELS.setdefault(REGION_LABEL_AT[key(px)], []).append(
				(px.current_element, pb, (f, where(px))))
	else:
		region_call(BEGIN_AT[key(pb)], pb, f, px)

# ---- conditional -----------------------------------------------------------

def cond(c):
	"""A condition as the kernel spells it: spatch prints ! kbuf."""
	return str(c).replace('! ', '!')

# ---- outside ---------------------------------------------------------------

def closed(label, p, why):
	"""label is reached with no region open, when why.  Python: the labels
	come from three rules (failed begins, rejected scopes, faults in a
	scope), and a SmPL rule inherits a metavariable from one rule only."""
	CLOSED_LABELS.setdefault(label, []).append((p.current_element, why))

# ---- calls -----------------------------------------------------------------

_HEADER_INLINES = None

def tree_root():
	"""The kernel tree the run is in: make coccicheck runs spatch at its top."""
	for d in (Path.cwd(), *Path.cwd().parents):
		if (d / 'include' / 'linux').is_dir() and (d / 'Kbuild').is_file():
			return d
	return None

def header_inline(f):
	"""always, inline or None: how the tree's headers define f.  With
	--no-includes spatch does not read headers; the index is the CLI's
	(SCOPED_UACCESS_INLINES, cached per tree commit) or, under make
	coccicheck, built from the tree the first time a call needs it, by
	the same text scan (inlines.py).  Outside a tree, headers are unknown."""
	global _HEADER_INLINES
	if _HEADER_INLINES is None:
		try:
			with open(os.environ['SCOPED_UACCESS_INLINES']) as index:
				_HEADER_INLINES = json.load(index)
		except (KeyError, OSError, ValueError):
			root = tree_root()
			_HEADER_INLINES = build(root) if root else {}
	return _HEADER_INLINES.get(f)

def is_call(f):
	"""The calls call-in-region judges: not the API's own.  A table lookup."""
	return f not in CALL_ENDS and f not in OPENERS and not is_accessor(f)

def safe_in(f, path):
	"""Whether f is a helper known safe in the files under path.  A table
	lookup on the file name, which SmPL does not see."""
	prefix = SAFE_IN.get(f)
	if prefix is None:
		return False
	path = path[2:] if path.startswith('./') else path
	return path.startswith(prefix) or ('/' + prefix) in path

def safe_macro(f, path, seen=()):
	"""Whether f is a macro of the file whose body calls only what a region
	may call (rseq_entry.h's rseq_stat_inc(), a per-CPU increment).  A
	table lookup over file_macros()."""
	calls = file_macros(path, CALL_ENDS)[2]
	if f in seen or f not in calls:
		return f in seen
	return all(c in SAFE_CALLS or c in INLINE_FNS or safe_in(c, path) or
		   is_accessor(c) or c in CALL_ENDS or header_inline(c) == 'always' or
		   re.match(r'[A-Z][A-Z0-9_]*$', c) or c.startswith('__builtin_') or
		   safe_macro(c, path, seen + (f,)) for c in calls[f])

def judge_call(b, pb, f, px):
	"""The call f at px runs in the region b began at pb.  Python: the
	verdict reads four tables and the functions of the file."""
	if px.current_element != pb.current_element or key(px) in SAVED or \
	   f in SAFE_CALLS or f in INLINE_FNS or safe_in(f, px.file) or \
	   any(f in table for table in file_macros(px.file, CALL_ENDS)[:2]) or safe_macro(f, px.file):
		return
	# ALL_CAPS names are macros by kernel convention.
	if re.match(r'[A-Z][A-Z0-9_]*$', f) or f.startswith('__builtin_'):
		return
	begun = '%s() on %s' % (b, where(pb))
	hidden = sorted(c for c in file_macros(px.file, CALL_ENDS)[2].get(f, ()) if c in UNSAFE_CALLS)
	if hidden:
		finding(px, 'ERROR', 'call-in-region',
			'%s(), a macro of this file, calls %s(), which may fault or sleep; '
			'used inside the region begun with %s' % (f, hidden[0], begun), f)
	elif f in UNSAFE_CALLS or f in NOINLINE_FNS:
		why = 'is out of line' if f in NOINLINE_FNS else 'may fault or sleep'
		finding(px, 'ERROR', 'call-in-region',
			'%s() %s; called inside the region begun with %s' % (f, why, begun), f)
	elif f in LOCAL_FNS:
		finding(px, 'WARNING', 'call-in-region', 'call to %s() inside the region '
			'begun with %s: defined in this file without __always_inline' % (f, begun), f)
	elif header_inline(f) == 'always':
		return
	elif header_inline(f) == 'inline':
		finding(px, 'WARNING', 'call-in-region', 'call to %s() inside the region '
			'begun with %s: a static inline of a header, not __always_inline: '
			'the compiler may call it out of line' % (f, begun), f)
	else:
		finding(px, 'WARNING', 'call-in-region', 'call to %s() inside the region '
			'begun with %s: not known to be inlined' % (f, begun), f)

def call_open_call(pb, f, px):
	"""The call f at px runs with the open-coded region begun at pb open;
	an accessor's label starts a fault path of the region.  Python: a rule
	inheriting the label from the path rule would run once per accessor,
	the label rule below runs once and looks the begins up here."""
	if f in ACCESSORS:
		if key(px) in LABEL_AT:
			CALL_OPEN_LABELS.setdefault(LABEL_AT[key(px)], []).append(
				(px.current_element, pb))
	else:
		judge_call(BEGIN_AT[key(pb)], pb, f, px)

# ---- accessors -------------------------------------------------------------

def accessor_mode(f, path):
	"""What the accessor f does: the tables, then the wrapper macros of
	the file (file_macros())."""
	return (ACCESSORS.get(f) or WRAPPERS.get(f) or (file_macros(path)[1].get(f),))[0]

def access_region_access(b, pb, f, px, scope=False):
	"""The accessor f at px runs in the region b began at pb.  Python:
	whether two calls agree is a table lookup."""
	if px.current_element != pb.current_element:
		return
	mode = SCOPES[b] if scope else BEGINS[b]
	amode = accessor_mode(f, px.file)
	if mode is not None and amode is not None and \
	   ((mode == 'read' and amode in ('write', 'rmw')) or
	    (mode == 'write' and amode in ('read', 'rmw'))):
		what = {'read': 'reads', 'write': 'writes', 'rmw': 'reads and writes'}[amode]
		finding(px, 'ERROR', 'accessor-mode',
			'%s() %s user memory in the %s-only region begun with %s() on %s'
			% (f, what, mode, b, where(pb)), 'region ' + str(key(pb)))

def open_access(pb, f, px):
	"""The accessor f at px runs with the open-coded region begun at pb
	open; its label starts a fault path of the region.  Python: a rule
	inheriting the label from the path rule would run once per accessor,
	the label rule below runs once and looks the begins up here."""
	access_region_access(BEGIN_AT[key(pb)], pb, f, px)
	if key(px) in ACCESS_ACC:
		ACCESS_OPEN_LABELS.setdefault(ACCESS_ACC[key(px)][1], []).append((px.current_element, pb))

# ---- pointer expressions ------------------------------------------------
# Python: how far an address lies from a pointer needs the access path of
# a C expression; SmPL matches one shape at a time and cannot measure it.

def small_offset(text):
	try:
		return int(text.rstrip('uUlL'), 0) < 512
	except ValueError:
		return False

def check_masked_range(pa, pb, ptr, what):
	"""The first access at pa of the masked region begun at pb for ptr.
	Python: see the pointer expressions above."""
	if key(pa) not in ACCESS_ACC:
		return
	addr = ACCESS_ACC[key(pa)][0]
	base, c = access_path(ptr), access_path(addr)
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

# ---- range -----------------------------------------------------------------

# ---- pointer expressions ------------------------------------------------
# Python: whether an address lies within what a pointer points to needs the
# access paths of two C expressions and the assignments between them; SmPL
# matches one shape at a time and cannot compare two paths.

def pointer_of(addr):
	"""The pointer an address goes through, the subject of its finding:
	&p->a.b, p[2] and (T *)p + 1 go through p, &t->r.uptr->x through
	t->r.uptr; an address that does not parse is its own."""
	path = chain(addr)
	if not path:
		return pretty(addr)
	deref = [i for i, m in enumerate(path) if m.startswith('->')]
	return ''.join(path[:deref[-1]] if deref else path)

INTEGER = re.compile(r'(0[xX][0-9a-fA-F]+|\d+)[uUlL]*$')

def constant_address(text):
	"""Whether the address is an integer constant, cast or not: it points
	to no object, so certainly not into the begin pointer's."""
	toks = tokens(text)
	while len(toks) > 1 and toks[0] == '(':
		j = matching(toks, 0)
		if j is None:
			return False
		# (constant), or a cast (T *), (typeof(p)) before the operand
		toks = toks[1:j] if j == len(toks) - 1 else toks[j + 1:]
	return len(toks) == 1 and INTEGER.match(toks[0]) is not None

def based_on(addr, bases):
	"""Whether the address is a member, element or offset of one of the
	base paths; None when it does not parse."""
	path = chain(addr)
	return None if path is None else any(path[:len(b)] == b for b in bases)

def base_paths(func, ptr, scope=False):
	"""The begin pointer and the local pointers derived from it."""
	c = chain(ptr)
	if c is None:
		return []
	bases = [c]
	changed = True
	while changed:
		changed = False
		for var, expr in ALIASES.get(func, []):
			pe = None if scope and (func, var) not in SCOPE_ALIASES else chain(expr)
			if not pe:
				continue
			if [var] not in bases and any(pe[:len(b)] == b for b in bases):
				bases.append([var])
				changed = True
			elif [var] in bases and len(pe) == 1 and pe not in bases:
				# prev = dirent - n: dirent is within reach too
				bases.append(pe)
				changed = True
	return bases

def range_region_access(pb, f, px, scope=None):
	"""The address of the accessor f at px, in the region begun at pb (at
	the scope (name, pointer)).  Python: see the pointer expressions."""
	b, ptr = scope or RANGE_BEGIN_AT[key(pb)]
	addr = RANGE_ACC[key(px)][0]
	func = px.current_element
	if func != pb.current_element:
		return
	begun = '%s() on %s' % (b, where(pb))
	unmasked = None
	if b in MASKED_BEGINS:
		res, arg = MASKED.get(key(pb), (None, ptr))
		if res is not None and chain(res) != chain(arg):
			unmasked = base_paths(func, arg)
			ptr = res
			use = MASKED_USE.setdefault(key(pb), [pb, False])
			use[1] = use[1] or bool(based_on(addr, base_paths(func, res)))
	ok = based_on(addr, base_paths(func, ptr, scope=bool(scope)))
	if ok:
		return
	shown, given, via = pretty(addr), pretty(ptr), pointer_of(addr)
	if constant_address(addr):
		finding(px, 'ERROR', 'range',
			'%s, the address of %s(), is an integer constant: it is not '
			'based on %s given to %s' % (shown, f, given, begun), via)
	elif ok is None:
		finding(px, 'WARNING', 'range',
			'cannot tell whether %s, the address of %s(), lies within %s given to %s'
			% (shown, f, given, begun), via)
	elif unmasked and based_on(addr, unmasked):
		finding(px, 'ERROR', 'masked-pointer',
			'%s() uses the unmasked pointer in %s; the region begun with %s '
			'must use %s' % (f, shown, begun, given), via)
	elif scope and based_on(addr, base_paths(func, ptr)):
		finding(px, 'ERROR', 'masked-pointer',
			'%s() uses %s, derived from %s outside the scope %s: it '
			'bypasses the masked pointer' % (f, shown, given, begun), via)
	elif scope:
		finding(px, 'ERROR', 'range',
			'%s, the address of %s(), is not based on %s given to %s: the '
			'access is not covered by the scope, which checks and masks %s '
			'only' % (shown, f, given, begun, given), via)
	else:
		finding(px, 'ERROR', 'range',
			'%s, the address of %s(), is not based on %s given to %s'
			% (shown, f, given, begun), via)

def new_value(q, e, pe):
	"""Whether q = e gives q a value not derived from q itself (q + n and
	q->next are; the masked begin of a prologue is the begin).  Python:
	a token scan of e."""
	return key(pe) not in RANGE_BEGIN_AT and q not in tokens(e)

def reassigned_access(pb, pq, px):
	"""The accessor at px runs after the begin pointer was given a new
	value at pq inside the region begun at pb: the begin checked the range
	of the old value, as readdir did before "readdir: make
	user_access_begin() use the real access range".  Python: the begin
	pointer, the variable and the address are compared as access paths."""
	if key(px) not in RANGE_ACC or key(pq) not in REASSIGN or key(pb) not in RANGE_BEGIN_AT:
		return
	b, ptr = RANGE_BEGIN_AT[key(pb)]
	q, value = REASSIGN[key(pq)]
	addr = RANGE_ACC[key(px)][0]
	if b in MASKED_BEGINS or chain(ptr) != [q] or not based_on(addr, [[q]]):
		return
	finding(px, 'ERROR', 'range',
		'%s, the address of %s(), goes through %s, set to %s on %s inside the '
		'region begun with %s(%s) on %s: the begin checked the range of '
		'the old value' % (pretty(addr), RANGE_ACC[key(px)][2], q, pretty(value),
				   where(pq), b, pretty(ptr), where(pb)), q)

// ---- Gate (all modes): only files naming the API are parsed -------------
// Literal tokens, for spatch's prefilter: every other rule depends on this
// one, so the tree's files are selected once.  A scope, a begin or an end:
// an accessor with none of them in its file is in no region any class can
// see.  regions, outside and calls need nothing more; the other families
// depend on the names they need: conditional-region on an open-coded
// begin, the accessor classes on an accessor, range on an accessor or a
// masked begin.

@api@
iterator name scoped_user_read_access, scoped_user_read_access_size,
	scoped_user_write_access, scoped_user_write_access_size,
	scoped_user_rw_access, scoped_user_rw_access_size,
	scoped_guard, scoped_cond_guard;
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
|
\(user_access_begin\|user_rw_access_begin\|user_read_access_begin\|
  user_write_access_begin\|masked_user_access_begin\|
  masked_user_rw_access_begin\|masked_user_read_access_begin\|
  masked_user_write_access_begin\|user_access_end\|user_rw_access_end\|
  user_read_access_end\|user_write_access_end\)(...)
)

@script:python depends on api@
@@
reset()

@open_begin depends on api && (context || org || report)@
identifier OB : script:python() { OB in OPEN_BEGINS };
@@
OB(...)

@access depends on api && (context || org || report)@
identifier A : script:python() { A in ACCESSORS };
@@
A(...)

@masked depends on api && (context || org || report)@
identifier MB : script:python() { MB in MASKED_BEGINS };
@@
MB(...)

// ---- Facts all classes read ----------------------------------------------
// spatch 1.1.1 cannot pass a metavariable with a script constraint (in
// capitals) to a script rule: a name a script needs is constrained through
// its position.

// An __always_inline function of the file that calls an end is an end of
// the mode of the first end it calls, for the classes of regions and
// calls: its call ends the region, as objtool sees it once inlined
// (ANY_E(...): it may take arguments).
@end_helper depends on api@
attribute name __always_inline;
identifier fn, e;
position pe : script:python(e) { e in API_ENDS };
type T;
@@
static __always_inline T fn(...) {
... when any
e@pe(...);
... when any
}

@script:python@
fn << end_helper.fn;
e << end_helper.e;
@@
for table in (REGION_ENDS, CALL_ENDS):
	table.setdefault(fn, API_ENDS[e])

@begin depends on api@
identifier b;
position pb : script:python(b) { b in BEGINS };
@@
b@pb(...)

@script:python@
b << begin.b;
pb << begin.pb;
@@
BEGIN_AT[key(pb[0])] = b
learn(pb[0].file)

@acc depends on api@
identifier a, L;
position pa : script:python(a) { a in ACCESSORS };
@@
a@pa(..., L)

@script:python@
pa << acc.pa;
L << acc.L;
@@
LABEL_AT[key(pa[0])] = L

// Ends, accessors and openers in a scope body, one match per call (a nest
// binding them costs time exponential in their number): they belong to
// the scope, and the path rules of open-coded regions veto them.  An
// unbraced body is one call (the braces isomorphism matches it) or one
// if, if-else, for or while statement.  The calls the call-in-region
// rules judge are matched by call_scope_call.
@scope_call depends on api exists@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
identifier f;
expression ptr, E;
position ps;
statement S1;
position px : script:python(f) {
	f in REGION_ENDS or f in REGION_ACCESSORS or f in OPENERS or is_accessor(f) };
@@
(
it@ps(ptr, ...) {
... when any
f@px(...)
... when any
}
|
it@ps(ptr, ...) if (E) S1 else {
... when any
f@px(...)
... when any
}
|
it@ps(ptr, ...) if (E) {
... when any
f@px(...)
... when any
}
|
it@ps(ptr, ...) for (...;...;...) {
... when any
f@px(...)
... when any
}
|
it@ps(ptr, ...) while (E) {
... when any
f@px(...)
... when any
}
)

@script:python@
it << scope_call.it;
ps << scope_call.ps;
ptr << scope_call.ptr;
f << scope_call.f;
px << scope_call.px;
@@
scope_call(it, ps[0], ptr, f, px[0])

// The then branch of an unbraced scope's if-else: a rule of its own,
// a disjunction tries it only where the else branch does not match.
@scope_call_then depends on api exists@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
identifier f;
expression ptr, E;
position ps;
statement S1;
position px : script:python(f) {
	f in REGION_ENDS or f in REGION_ACCESSORS or f in OPENERS or is_accessor(f) };
@@
it@ps(ptr, ...) if (E) {
... when any
f@px(...)
... when any
} else S1

@script:python@
it << scope_call_then.it;
ps << scope_call_then.ps;
ptr << scope_call_then.ptr;
f << scope_call_then.f;
px << scope_call_then.px;
@@
scope_call(it, ps[0], ptr, f, px[0])

// ==== regions ===============================================================
// ---- Facts -------------------------------------------------------------
// Accessors and wrappers, the file's included (learn()), and their labels.
@region_acc depends on api@
identifier a, L;
position pa : script:python(a) { a in REGION_ACCESSORS };
@@
a@pa(..., L)

@script:python@
pa << region_acc.pa;
L << region_acc.L;
@@
REGION_LABEL_AT[key(pa[0])] = L

@script:python depends on api@
@@
for it, ps, f, px in innermost(REGION_SCOPE_CALLS):
	region_call(it, ps, f, px)

@region_scope_nest depends on api@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
iterator it2 =~ "^scoped_user_(read|write|rw)_access(_size)?$";
position ps, px;
statement S;
@@
(
it@ps(...) {
<+... it2@px(...) S ...+>
}
|
it@ps(...) it2@px(...) S
)

@script:python@
it << region_scope_nest.it;
it2 << region_scope_nest.it2;
ps << region_scope_nest.ps;
px << region_scope_nest.px;
@@
for p in px:
	finding(p, 'ERROR', 'nesting', '%s() inside the scope %s() on %s'
		% (it2, it, where(ps[0])))

// ---- Open-coded regions: what runs with the region open -----------------
// An end reached from a begin is checked against it and votes for
// MODE=patch, an opener nests, an accessor's label starts a fault path.
// After the |: a begin tested positively, checked inside its braces.

@region_open_call depends on api disable neg_if exists@
identifier B : script:python() { B in BEGINS };
identifier OB : script:python() { OB in OPEN_BEGINS };
identifier ANY_B : script:python() { ANY_B in BEGINS };
identifier ANY_E : script:python() { ANY_E in REGION_ENDS };
identifier f, resid;
expression ptr, n, res;
position pb, px != {scope_call.px, scope_call_then.px};
position pf : script:python(f) { f in REGION_ENDS or f in REGION_ACCESSORS or f in OPENERS };
statement S, S2;
type T;
@@
(
(
if (\(!B@pb(ptr, n)\|unlikely(!B@pb(ptr, n))\)) S
|
\(res = B@pb(ptr);\|T resid = B@pb(ptr);\|B@pb(ptr);\)
)
... when != ANY_E(...)
    when != ANY_B(...)
    when any
f@pf@px(...)
|
if (\(OB@pb(ptr, n)\|likely(OB@pb(ptr, n))\)) {
... when != ANY_E(...)
    when != ANY_B(...)
    when any
f@pf@px(...)
... when any
} else S2
)

@script:python@
pb << region_open_call.pb;
f << region_open_call.f;
pf << region_open_call.pf;
@@
region_open_call(pb[0], f, pf[0])

// Ends and openers on the fault path of an accessor, with the region still open.
@region_label_call depends on api exists@
identifier L, f;
identifier ANY_E : script:python() { ANY_E in REGION_ENDS };
position pl : script:python(L) { L in REGION_OPEN_LABELS };
position px != {scope_call.px, scope_call_then.px};
position pf : script:python(f) { f in REGION_ENDS or f in OPENERS };
@@
L@pl:
... when != ANY_E(...)
    when any
f@pf@px(...)

@script:python@
L << region_label_call.L;
f << region_label_call.f;
pf << region_label_call.pf;
@@
for func, pb, via in REGION_OPEN_LABELS[L]:
	region_call(BEGIN_AT[key(pb)], pb, f, pf[0], via)

// A scope opened while an open-coded region is open.
@region_scope depends on api exists@
identifier B : script:python() { B in BEGINS };
identifier ANY_E : script:python() { ANY_E in REGION_ENDS };
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
identifier resid;
expression ptr, n, res;
position pb, px;
statement S, S1;
type T;
@@
(
if (\(!B@pb(ptr, n)\|unlikely(!B@pb(ptr, n))\)) S
|
\(res = B@pb(ptr);\|T resid = B@pb(ptr);\|B@pb(ptr);\)
)
... when != ANY_E(...)
    when any
it@px(...) S1

@script:python@
pb << region_scope.pb;
it << region_scope.it;
px << region_scope.px;
@@
if px[0].current_element == pb[0].current_element:
	finding(px[0], 'ERROR', 'nesting', '%s() inside the region begun with %s() on %s'
		% (it, BEGIN_AT[key(pb[0])], where(pb[0])))

// ---- missing-end --------------------------------------------------------

// A return whose value an end helper computes (return put_fail();) ends.
@region_ret_end depends on api@
identifier ANY_E : script:python() { ANY_E in REGION_ENDS };
position pr;
@@
return@pr <+... ANY_E(...) ...+>;

@region_label_ret depends on api exists@
identifier L;
identifier ANY_E : script:python() { ANY_E in REGION_ENDS };
position pl : script:python(L) { L in REGION_OPEN_LABELS };
position pr != region_ret_end.pr;
@@
L@pl:
... when != ANY_E(...)
return@pr ...;

@script:python@
L << region_label_ret.L;
pr << region_label_ret.pr;
@@
for func, pb, via in REGION_OPEN_LABELS[L]:
	if func == pr[0].current_element:
		ME_RET.add(key(pb))
		finding(pr[0], 'ERROR', 'missing-end',
			'return on the fault path of %s() on %s leaves the region begun '
			'with %s() on %s open' % (via[0], via[1], BEGIN_AT[key(pb)], where(pb)))

@region_ret_open depends on api exists@
identifier B : script:python() { B in BEGINS };
identifier ANY_E : script:python() { ANY_E in REGION_ENDS };
identifier resid;
expression ptr, n, res;
position pb, pr != region_ret_end.pr;
statement S;
type T;
@@
(
if (\(!B@pb(ptr, n)\|unlikely(!B@pb(ptr, n))\)) S
|
\(res = B@pb(ptr);\|T resid = B@pb(ptr);\|B@pb(ptr);\)
)
... when != ANY_E(...)
return@pr ...;

@script:python@
pb << region_ret_open.pb;
pr << region_ret_open.pr;
@@
finding(pr[0], 'ERROR', 'missing-end', 'return leaves the region begun with %s() on %s open'
	% (BEGIN_AT[key(pb[0])], where(pb[0])))

@region_fall_open depends on api exists@
identifier B : script:python() { B in BEGINS };
identifier ANY_E : script:python() { ANY_E in REGION_ENDS };
identifier fn, resid;
expression ptr, n, res;
position pb != region_ret_open.pb;
statement S;
type T;
@@
fn(...) {
... when any
(
if (\(!B@pb(ptr, n)\|unlikely(!B@pb(ptr, n))\)) S
|
\(res = B@pb(ptr);\|T resid = B@pb(ptr);\|B@pb(ptr);\)
)
... when != ANY_E(...)
}

@script:python@
pb << region_fall_open.pb;
@@
# A begin whose region a return leaves open is reported there: those of
# region_ret_open are vetoed above, those of region_label_ret here.
if key(pb[0]) not in ME_RET:
	finding(pb[0], 'ERROR', 'missing-end',
		'the region begun with %s() here is not ended on some path out of '
		'the function' % BEGIN_AT[key(pb[0])])

@region_ret_pos depends on api disable neg_if exists@
identifier B : script:python() { B in OPEN_BEGINS };
identifier ANY_E : script:python() { ANY_E in REGION_ENDS };
expression ptr, n;
position pb, pr != region_ret_end.pr;
statement S2;
@@
if (\(B@pb(ptr, n)\|likely(B@pb(ptr, n))\)) {
... when != ANY_E(...)
    when exists
return@pr ...;
... when any
} else S2

@script:python@
pb << region_ret_pos.pb;
pr << region_ret_pos.pr;
@@
finding(pr[0], 'ERROR', 'missing-end', 'return leaves the region begun with %s() on %s open'
	% (BEGIN_AT[key(pb[0])], where(pb[0])))

// A positive begin whose block has no end at all.
@region_pos_ended depends on api disable neg_if@
identifier B : script:python() { B in OPEN_BEGINS };
identifier E : script:python() { E in REGION_ENDS };
expression ptr, n;
position pb;
statement S2;
@@
if (\(B@pb(ptr, n)\|likely(B@pb(ptr, n))\)) { <+... E() ...+> } else S2

@region_pos_unended depends on api disable neg_if@
identifier B : script:python() { B in OPEN_BEGINS };
expression ptr, n;
position pb != {region_pos_ended.pb, region_ret_pos.pb};
statement S1, S2;
@@
if (\(B@pb(ptr, n)\|likely(B@pb(ptr, n))\)) S1 else S2

@script:python@
pb << region_pos_unended.pb;
@@
# Reported at a return on a fault path already (region_label_ret)?
if key(pb[0]) not in ME_RET:
	finding(pb[0], 'ERROR', 'missing-end',
		'the region begun with %s() here is never ended' % BEGIN_AT[key(pb[0])])

// ==== conditional ===========================================================
// ---- A begin behind another condition of an && -------------------------

// spatch 1.1.1 cannot evaluate a position constraint in a disjunction:
// the begin's name comes from the rule begin (BEGIN_AT).
@conditional_cond_begin depends on open_begin@
identifier B : script:python() { B in OPEN_BEGINS };
expression C, ptr, n;
position pb;
statement S;
@@
(
if (C && !B@pb(ptr, n)) S
|
if (C && unlikely(!B@pb(ptr, n))) S
|
if (unlikely(C && !B@pb(ptr, n))) S
)

@script:python@
C << conditional_cond_begin.C;
pb << conditional_cond_begin.pb;
@@
COND_BEGINS[key(pb[0])] = (pb[0], BEGIN_AT[key(pb[0])], cond(C), [])

// The ends under a condition after a conditional begin, fault labels
// included: not a path rule, the label after an accessor is reached by
// no path spatch sees.
@conditional_cond_end depends on conditional_cond_begin@
expression C2;
identifier e;
position pe : script:python(e) { e in ENDS };
@@
if (C2) e@pe();

@script:python@
e << conditional_cond_end.e;
C2 << conditional_cond_end.C2;
pe << conditional_cond_end.pe;
@@
for pb, b, c, ends in COND_BEGINS.values():
	if pe[0].current_element == pb.current_element and \
	   int(pe[0].line) > int(pb.line):
		ends.append((e, cond(C2), pe[0]))

@script:python depends on conditional_cond_begin@
@@
# Python: the message lists every end with its condition.
for k in sorted(COND_BEGINS):
	pb, b, c, ends = COND_BEGINS[k]
	if ends:
		said = ', '.join('%s() on %s only when %s' % (e, where(pe), c2)
				 for e, c2, pe in sorted(ends, key=lambda t: int(t[2].line)))
		finding(pb, 'WARNING', 'conditional-region',
			'%s() here runs only when %s, and %s: the region is right only '
			'if these conditions agree on every path; split the function'
			% (b, c, said))
	else:
		finding(pb, 'WARNING', 'conditional-region',
			'%s() here runs only when %s, and no end depends on a '
			'condition: the region is right only if every end runs '
			'when %s; split the function' % (b, c, c))

// ==== outside ===============================================================
// ---- Facts -------------------------------------------------------------
@outside_managed depends on api@
identifier g;
position pg : script:python(g) { g in BEGINS or g in ENDS };
@@
g@pg(...)

@script:python@
g << outside_managed.g;
pg << outside_managed.pg;
@@
MANAGED.add(pg[0].current_element)
if g in BEGINS:
	BEGUN.add(pg[0].current_element)

@outside_scope depends on api@
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
ps << outside_scope.ps;
L << outside_scope.L;
@@
MANAGED.add(ps[0].current_element)
BEGUN.add(ps[0].current_element)
closed(L, ps[0], 'the scope on %s is rejected' % where(ps[0]))

@script:python depends on api@
@@
for it, ps, f, px in innermost(OUTSIDE_SCOPE_CALLS):
	if f in ENDS:
		finding(px, 'ERROR', 'end-without-begin',
			'%s() inside the scope %s() on %s: the scope ends the region itself'
			% (f, it, where(ps)))
	elif key(px) in LABEL_AT:
		# the scope has ended the region when its fault jumps
		closed(LABEL_AT[key(px)], px, '%s() on %s faults' % (f, where(px)))

// ---- end-without-begin --------------------------------------------------

@outside_end_entry depends on api exists@
identifier fn, e;
identifier ANY_B : script:python() { ANY_B in BEGINS };
position pe : script:python(e) { e in ENDS };
statement S0;
@@
fn(...) {
... when != ANY_B(...)
    when != if (0) S0
    when any
e@pe();
... when any
}

@script:python@
e << outside_end_entry.e;
pe << outside_end_entry.pe;
@@
# A function that never begins a region and only ends one is a helper
# ending the region of its caller, like the cleanup of a scope.
if pe[0].current_element in BEGUN:
	finding(pe[0], 'ERROR', 'end-without-begin',
		'%s() reachable from the start of the function with no region begun' % e)

@outside_end_after_end depends on api exists@
identifier e1, e2;
identifier ANY_B : script:python() { ANY_B in BEGINS };
position p1 : script:python(e1) { e1 in ENDS };
position p2 : script:python(e2) { e2 in ENDS };
statement S0;
@@
e1@p1();
... when != ANY_B(...)
    when != if (0) S0
e2@p2();

@script:python@
e1 << outside_end_after_end.e1;
e2 << outside_end_after_end.e2;
p1 << outside_end_after_end.p1;
p2 << outside_end_after_end.p2;
@@
finding(p2[0], 'ERROR', 'end-without-begin',
	'%s() reachable after %s() on %s with no region begun in between'
	% (e2, e1, where(p1[0])))

@outside_end_fail depends on api@
identifier B : script:python() { B in OPEN_BEGINS };
identifier e;
expression ptr, n;
position pb;
position pe : script:python(e) { e in ENDS };
statement S1;
@@
(
if (\(!B@pb(ptr, n)\|unlikely(!B@pb(ptr, n))\)) { <+... e@pe() ...+> }
|
if (B@pb(ptr, n)) S1 else { <+... e@pe() ...+> }
)

@script:python@
pb << outside_end_fail.pb;
e << outside_end_fail.e;
pe << outside_end_fail.pe;
@@
for p in pe:
	finding(p, 'ERROR', 'end-without-begin', '%s() on the path where %s() on %s failed'
		% (e, BEGIN_AT[key(pb[0])], where(pb[0])))

@outside_fail_goto depends on api@
identifier B : script:python() { B in OPEN_BEGINS };
expression ptr, n;
identifier L;
position pb;
@@
if (\(!B@pb(ptr, n)\|unlikely(!B@pb(ptr, n))\)) goto L;

@script:python@
pb << outside_fail_goto.pb;
L << outside_fail_goto.L;
@@
closed(L, pb[0], '%s() on %s fails' % (BEGIN_AT[key(pb[0])], where(pb[0])))

// Paths from the labels a failed begin, a rejected scope or a fault in a
// scope jumps to: no region is open there.
@outside_closed_end depends on api exists@
identifier L, e;
identifier ANY_B : script:python() { ANY_B in BEGINS };
position pl : script:python(L) { L in CLOSED_LABELS };
position pe : script:python(e) { e in ENDS };
statement S0;
@@
L@pl:
... when != ANY_B(...)
    when != if (0) S0
    when any
e@pe(...)

@script:python@
L << outside_closed_end.L;
e << outside_closed_end.e;
pe << outside_closed_end.pe;
@@
for func, why in CLOSED_LABELS[L]:
	if func == pe[0].current_element:
		finding(pe[0], 'ERROR', 'end-without-begin',
			'%s() reachable through label %s when %s: no region is open'
			% (e, L, why))

// ---- access-outside-region ----------------------------------------------
// The accessors of a scope body are in a region: scope_call vetoes them.

@outside_closed_acc depends on api exists@
identifier L, a;
identifier ANY_B : script:python() { ANY_B in BEGINS };
position pl : script:python(L) { L in CLOSED_LABELS };
position pa : script:python(a) { is_accessor(a) };
position px != {scope_call.px, scope_call_then.px};
statement S0;
@@
L@pl:
... when != ANY_B(...)
    when != if (0) S0
    when any
a@pa@px(...)

@script:python@
L << outside_closed_acc.L;
a << outside_closed_acc.a;
pa << outside_closed_acc.pa;
@@
for func, why in CLOSED_LABELS[L]:
	if func == pa[0].current_element:
		finding(pa[0], 'ERROR', 'access-outside-region',
			'%s() reachable through label %s when %s: no region is open'
			% (a, L, why), 'label ' + L)

@outside_acc_entry depends on api exists@
identifier fn, a;
identifier ANY_B : script:python() { ANY_B in BEGINS };
position pa : script:python(a) { is_accessor(a) };
position px != {scope_call.px, scope_call_then.px};
statement S0;
@@
fn(...) {
... when != ANY_B(...)
    when != if (0) S0
    when any
a@pa@px(...)
... when any
}

@script:python@
a << outside_acc_entry.a;
pa << outside_acc_entry.pa;
@@
# Only functions that manage a region: a helper made of accessors runs
# inside its caller's region.
if pa[0].current_element in MANAGED:
	finding(pa[0], 'ERROR', 'access-outside-region',
		'%s() reachable from the start of the function with no region begun' % a,
		'entry')

@outside_acc_after_end depends on api exists@
identifier e, a;
identifier ANY_B : script:python() { ANY_B in BEGINS };
position pe : script:python(e) { e in ENDS };
position pa : script:python(a) { is_accessor(a) };
position px != {scope_call.px, scope_call_then.px};
statement S0;
@@
e@pe();
... when != ANY_B(...)
    when != if (0) S0
    when any
a@pa@px(...)

@script:python@
e << outside_acc_after_end.e;
a << outside_acc_after_end.a;
pe << outside_acc_after_end.pe;
pa << outside_acc_after_end.pa;
@@
finding(pa[0], 'ERROR', 'access-outside-region',
	'%s() reachable after %s() on %s with no region begun' % (a, e, where(pe[0])),
	'end ' + str(key(pe[0])))

@outside_acc_fail depends on api@
identifier B : script:python() { B in OPEN_BEGINS };
identifier a;
expression ptr, n;
position pb;
position pa : script:python(a) { is_accessor(a) };
statement S1;
@@
(
if (\(!B@pb(ptr, n)\|unlikely(!B@pb(ptr, n))\)) { <+... a@pa(...) ...+> }
|
if (B@pb(ptr, n)) S1 else { <+... a@pa(...) ...+> }
)

@script:python@
pb << outside_acc_fail.pb;
a << outside_acc_fail.a;
pa << outside_acc_fail.pa;
@@
for p in pa:
	finding(p, 'ERROR', 'access-outside-region', '%s() on the path where %s() on %s failed'
		% (a, BEGIN_AT[key(pb[0])], where(pb[0])), 'failed ' + str(key(pb[0])))

// ==== calls =================================================================
// ---- Facts -------------------------------------------------------------
@call_inline_fn depends on api@
attribute name __always_inline;
identifier fn;
type T;
@@
static __always_inline T fn(...) { ... }

@script:python@
fn << call_inline_fn.fn;
@@
INLINE_FNS.add(fn)

// An __always_inline function of the file that calls an end ends the
// region: what follows its call runs with user access closed.
@call_nokprobe_fn depends on api@
attribute name nokprobe_inline;
identifier fn;
type T;
@@
static nokprobe_inline T fn(...) { ... }

@script:python@
fn << call_nokprobe_fn.fn;
@@
# __always_inline whenever kprobes are configured
INLINE_FNS.add(fn)

@call_noinline_fn depends on api@
attribute name noinline;
identifier fn;
type T;
@@
noinline T fn(...) { ... }

@script:python@
fn << call_noinline_fn.fn;
@@
NOINLINE_FNS.add(fn)

@call_local_fn depends on api@
identifier fn;
type T;
@@
T fn(...) { ... }

@script:python@
fn << call_local_fn.fn;
@@
LOCAL_FNS.add(fn)

@call_saved depends on api@
identifier f, fl;
expression flags;
type T;
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
px << call_saved.px;
@@
SAVED.add(key(px[0]))

// Calls in a scope body, one match per call: a nest binding
// the calls of a scope costs spatch time exponential in their number.
// They belong to the scope, not to a region around it: vetoed below.
// An unbraced body is one call (spatch's braces isomorphism lets the
// braced pattern match it) or one if, if-else, for or while statement.
@call_scope_call depends on api exists@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
identifier f;
position ps;
expression E;
statement S1;
position px : script:python(f) { is_call(f) };
@@
(
it@ps(...) {
... when any
f@px(...)
... when any
}
|
it@ps(...) if (E) S1 else {
... when any
f@px(...)
... when any
}
|
it@ps(...) if (E) {
... when any
f@px(...)
... when any
}
|
it@ps(...) for (...;...;...) {
... when any
f@px(...)
... when any
}
|
it@ps(...) while (E) {
... when any
f@px(...)
... when any
}
)

@script:python@
it << call_scope_call.it;
ps << call_scope_call.ps;
f << call_scope_call.f;
px << call_scope_call.px;
@@
CALL_SCOPE_CALLS.append((it, ps[0], f, px[0]))

// The then branch of an unbraced scope's if-else: a rule of its own,
// a disjunction tries it only where the else branch does not match.
@call_scope_call_then depends on api exists@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
identifier f;
position ps;
expression E;
statement S1;
position px : script:python(f) { is_call(f) };
@@
it@ps(...) if (E) {
... when any
f@px(...)
... when any
} else S1

@script:python@
it << call_scope_call_then.it;
ps << call_scope_call_then.ps;
f << call_scope_call_then.f;
px << call_scope_call_then.px;
@@
CALL_SCOPE_CALLS.append((it, ps[0], f, px[0]))

@script:python depends on api@
@@
for it, ps, f, px in innermost(CALL_SCOPE_CALLS):
	judge_call(it, ps, f, px)

// ---- Open-coded regions: what runs with the region open -----------------
// A call reached from a begin is judged; an accessor's label becomes a
// fault path of the region.  The forms after the | are begins tested
// positively, checked inside their braces.

@call_open_call depends on api disable neg_if exists@
identifier B : script:python() { B in BEGINS };
identifier OB : script:python() { OB in OPEN_BEGINS };
identifier ANY_B : script:python() { ANY_B in BEGINS };
identifier ANY_E : script:python() { ANY_E in CALL_ENDS };
identifier f, resid;
expression ptr, n, res;
position pb, px != {call_scope_call.px, call_scope_call_then.px};
position pf : script:python(f) { is_call(f) or f in ACCESSORS };
statement S, S2;
type T;
@@
(
(
if (\(!B@pb(ptr, n)\|unlikely(!B@pb(ptr, n))\)) S
|
res = B@pb(ptr);
|
T resid = B@pb(ptr);
|
B@pb(ptr);
)
... when != ANY_E(...)
    when != ANY_B(...)
    when any
f@pf@px(...)
|
if (\(OB@pb(ptr, n)\|likely(OB@pb(ptr, n))\)) {
... when != ANY_E(...)
    when != ANY_B(...)
    when any
f@pf@px(...)
... when any
} else S2
)

@script:python@
pb << call_open_call.pb;
f << call_open_call.f;
pf << call_open_call.pf;
@@
call_open_call(pb[0], f, pf[0])

// Calls on the fault path of an accessor, with the region still open.
@call_label_call depends on api exists@
identifier L, f;
identifier ANY_E : script:python() { ANY_E in CALL_ENDS };
position pl : script:python(L) { L in CALL_OPEN_LABELS };
position px != {call_scope_call.px, call_scope_call_then.px};
position pf : script:python(f) { is_call(f) };
@@
L@pl:
... when != ANY_E(...)
    when any
f@pf@px(...)

@script:python@
L << call_label_call.L;
f << call_label_call.f;
pf << call_label_call.pf;
@@
for func, pb in CALL_OPEN_LABELS[L]:
	judge_call(BEGIN_AT[key(pb)], pb, f, pf[0])

// ==== accessors =============================================================
// ---- Facts -------------------------------------------------------------
// The user address of an accessor: its argument ACCESSORS[a][1].
@access_acc depends on access@
identifier a, L;
expression list[n] before;
expression addr;
position pa : script:python(a) { a in ACCESSORS };
@@
a@pa(before, addr, ..., L)

@script:python@
a << access_acc.a;
n << access_acc.n;
addr << access_acc.addr;
L << access_acc.L;
pa << access_acc.pa;
@@
if int(n) == ACCESSORS[a][1]:
	ACCESS_ACC[key(pa[0])] = (addr, L)

// Every unsafe_*() call in a loop counting from 0 (masked-range).
@access_loop0 depends on access exists@
identifier i;
identifier A =~ "^unsafe_";
position pa;
@@
for (i = 0; ...; ...) {
... when any
A@pa(...)
... when any
}

@script:python@
i << access_loop0.i;
pa << access_loop0.pa;
@@
for p in pa:
	LOOP0.setdefault(key(p), set()).add(i)

@script:python depends on access@
@@
for it, ps, ptr, f, px in innermost(ACCESS_SCOPE_CALLS):
	first = SCOPE_FIRST.get(key(ps))
	if first is None or (int(px.line), int(px.column)) < \
	   (int(first[0].line), int(first[0].column)):
		SCOPE_FIRST[key(ps)] = (px, ps, ptr)
	access_region_access(it, ps, f, px, scope=True)

// ---- Open-coded regions: the accessors run with it open -----------------
// The forms after the | are begins tested positively, checked inside
// their braces.

@access_open_acc depends on access disable neg_if exists@
identifier B : script:python() { B in BEGINS };
identifier OB : script:python() { OB in OPEN_BEGINS };
identifier ANY_B : script:python() { ANY_B in BEGINS };
identifier ANY_E : script:python() { ANY_E in ENDS };
identifier f, resid;
expression ptr, n, res;
position pb, px != {scope_call.px, scope_call_then.px};
position pf : script:python(f) { is_accessor(f) };
statement S, S2;
type T;
@@
(
(
if (\(!B@pb(ptr, n)\|unlikely(!B@pb(ptr, n))\)) S
|
res = B@pb(ptr);
|
T resid = B@pb(ptr);
|
B@pb(ptr);
)
... when != ANY_E()
    when != ANY_B(...)
    when any
f@pf@px(...)
|
if (\(OB@pb(ptr, n)\|likely(OB@pb(ptr, n))\)) {
... when != ANY_E()
    when != ANY_B(...)
    when any
f@pf@px(...)
... when any
} else S2
)

@script:python@
pb << access_open_acc.pb;
f << access_open_acc.f;
pf << access_open_acc.pf;
@@
open_access(pb[0], f, pf[0])

// Accessors on the fault path of an accessor, with the region still open.
@access_label_acc depends on access exists@
identifier L, f;
identifier ANY_E : script:python() { ANY_E in ENDS };
position pl : script:python(L) { L in ACCESS_OPEN_LABELS };
position px != {scope_call.px, scope_call_then.px};
position pf : script:python(f) { is_accessor(f) };
@@
L@pl:
... when != ANY_E()
    when any
f@pf@px(...)

@script:python@
L << access_label_acc.L;
f << access_label_acc.f;
pf << access_label_acc.pf;
@@
for func, pb in ACCESS_OPEN_LABELS[L]:
	access_region_access(BEGIN_AT[key(pb)], pb, f, pf[0])

// ---- masked-range: the first access of a masked region ------------------

// The first unsafe_*() call on each path, not only the accessors.
@access_masked_first depends on access exists@
identifier m, A =~ "^unsafe_";
identifier ANY_E : script:python() { ANY_E in ENDS };
expression ptr, res;
position pa;
position pm : script:python(m) { m in MASKED_BEGINS };
@@
res = m@pm(ptr);
... when != ANY_E()
A@pa(...)

@script:python@
m << access_masked_first.m;
pm << access_masked_first.pm;
res << access_masked_first.res;
pa << access_masked_first.pa;
@@
check_masked_range(pa[0], pm[0], res, '%s()' % m)

@script:python depends on access@
@@
# The first accessor of each scope, now that every scope has been seen.
for k in sorted(SCOPE_FIRST):
	pa, ps, ptr = SCOPE_FIRST[k]
	check_masked_range(pa, ps, ptr, 'the scope')

// ==== range =================================================================
// ---- Facts -------------------------------------------------------------
// The begins with their pointer.  The path rules bind no pointer (spatch
// would enumerate the paths once per binding: signal_32.c 32 s instead of
// 4 s), only positions.
@range_begin depends on (access || masked)@
identifier b;
expression ptr;
position pb : script:python(b) { b in BEGINS };
@@
b@pb(ptr, ...)

@script:python@
b << range_begin.b;
ptr << range_begin.ptr;
pb << range_begin.pb;
@@
RANGE_BEGIN_AT[key(pb[0])] = (b, ptr)

// The user address of an accessor: its argument ACCESSORS[a][1].
@range_acc depends on (access || masked)@
identifier a, L;
expression list[n] before;
expression addr;
position pa : script:python(a) { a in ACCESSORS };
@@
a@pa(before, addr, ..., L)

@script:python@
a << range_acc.a;
n << range_acc.n;
addr << range_acc.addr;
L << range_acc.L;
pa << range_acc.pa;
@@
if int(n) == ACCESSORS[a][1]:
	RANGE_ACC[key(pa[0])] = (addr, L, a)

// Assignments, for the pointers derived from a begin's pointer; one of a
// masked begin's result also says which pointer the region must use.
@range_alias depends on (access || masked)@
identifier q;
expression e;
type T;
position pq, pe;
@@
(
T q@pq = e@pe;
|
q@pq = e@pe
)

@script:python@
q << range_alias.q;
e << range_alias.e;
pq << range_alias.pq;
pe << range_alias.pe;
@@
ALIASES.setdefault(pq[0].current_element, []).append((q, e))
b, ptr = RANGE_BEGIN_AT.get(key(pe[0]), (None, None))
if b in MASKED_BEGINS:
	MASKED[key(pe[0])] = (q, ptr)

// An assignment of a new value to a variable, candidates for a begin
// pointer changed inside its region (reassign_acc).
@range_ptr_set depends on (access || masked)@
identifier q;
expression e;
position pq, pe;
@@
q@pq = e@pe

@script:python@
q << range_ptr_set.q;
e << range_ptr_set.e;
pq << range_ptr_set.pq;
pe << range_ptr_set.pe;
@@
if new_value(q, e, pe[0]):
	REASSIGN[key(pq[0])] = (q, e)

// Every spelling of throwing the result away: a bare call, a cast to void.
@range_masked_discarded depends on (access || masked)@
identifier m;
position pm : script:python(m) { m in MASKED_BEGINS };
@@
(
m@pm(...);
|
 (void)m@pm(...);
)

@script:python@
m << range_masked_discarded.m;
pm << range_masked_discarded.pm;
@@
ptr = RANGE_BEGIN_AT[key(pm[0])][1]
MASKED[key(pm[0])] = (None, ptr)
finding(pm[0], 'ERROR', 'masked-pointer',
	'result of %s() discarded: the accesses use the unmasked %s' % (m, pretty(ptr)))

@range_scope_alias depends on (access || masked) exists@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
identifier q;
expression e;
position pq;
@@
it(...) {
... when any
q@pq = e
... when any
}

@script:python@
q << range_scope_alias.q;
pq << range_scope_alias.pq;
@@
for p in pq:
	SCOPE_ALIASES.add((p.current_element, q))

@script:python depends on (access || masked)@
@@
for it, ps, ptr, f, px in innermost(RANGE_SCOPE_CALLS):
	if key(px) in RANGE_ACC:
		range_region_access(ps, f, px, scope=(it, ptr))

// ---- Open-coded regions: the accessors run with it open -----------------
// After the |: a begin tested positively, checked inside its braces.

@range_open_acc depends on (access || masked) disable neg_if exists@
identifier B : script:python() { B in BEGINS };
identifier OB : script:python() { OB in OPEN_BEGINS };
identifier ANY_B : script:python() { ANY_B in BEGINS };
identifier ANY_E : script:python() { ANY_E in ENDS };
identifier f, resid;
expression ptr, n, res;
position pb, px != {scope_call.px, scope_call_then.px};
position pf : script:python(f) { f in ACCESSORS };
statement S, S2;
type T;
@@
(
(
if (\(!B@pb(ptr, n)\|unlikely(!B@pb(ptr, n))\)) S
|
res = B@pb(ptr);
|
T resid = B@pb(ptr);
|
B@pb(ptr);
|
 (void)B@pb(ptr);
)
... when != ANY_E()
    when != ANY_B(...)
    when any
f@pf@px(...)
|
if (\(OB@pb(ptr, n)\|likely(OB@pb(ptr, n))\)) {
... when != ANY_E()
    when != ANY_B(...)
    when any
f@pf@px(...)
... when any
} else S2
)

@script:python@
pb << range_open_acc.pb;
f << range_open_acc.f;
pf << range_open_acc.pf;
@@
# The accessor's label starts a fault path.  Python: the label rule runs
# once and looks the begins up here, not once per accessor of a path rule.
if key(pf[0]) in RANGE_ACC:
	range_region_access(pb[0], f, pf[0])
	RANGE_OPEN_LABELS.setdefault(RANGE_ACC[key(pf[0])][1], []).append((pf[0].current_element, pb[0]))

// An accessor after the begin pointer got a new value inside the region.
@range_reassigned depends on (access || masked)@
identifier q;
expression e;
position pq : script:python() { key(pq[0]) in REASSIGN };
@@
q@pq = e

@range_reassign_acc depends on range_reassigned disable neg_if exists@
identifier B : script:python() { B in OPEN_BEGINS };
identifier ANY_E : script:python() { ANY_E in ENDS };
identifier q, f;
expression ptr, n, e;
position pb, pq : script:python() { key(pq[0]) in REASSIGN };
position pf : script:python(f) { f in ACCESSORS };
statement S;
@@
if (\(!B@pb(ptr, n)\|unlikely(!B@pb(ptr, n))\)) S
... when != ANY_E()
    when any
q@pq = e;
... when != ANY_E()
    when any
f@pf(...)

@script:python@
pb << range_reassign_acc.pb;
pq << range_reassign_acc.pq;
pf << range_reassign_acc.pf;
@@
reassigned_access(pb[0], pq[0], pf[0])

// Accessors on the fault path of an accessor, with the region still open.
@range_label_acc depends on (access || masked) exists@
identifier L, f;
identifier ANY_E : script:python() { ANY_E in ENDS };
position pl : script:python(L) { L in RANGE_OPEN_LABELS };
position px != {scope_call.px, scope_call_then.px};
position pf : script:python(f) { f in ACCESSORS };
@@
L@pl:
... when != ANY_E()
    when any
f@pf@px(...)

@script:python@
L << range_label_acc.L;
f << range_label_acc.f;
pf << range_label_acc.pf;
@@
for func, pb in RANGE_OPEN_LABELS[L]:
	if key(pf[0]) in RANGE_ACC:
		range_region_access(pb, f, pf[0])

@script:python depends on (access || masked)@
@@
# The result stored where no accessor of the region looks is discarded as
# surely as by a bare call: reported at the begin.
for k in sorted(MASKED_USE):
	pb, used = MASKED_USE[k]
	if not used:
		res, arg = MASKED[k]
		finding(pb, 'ERROR', 'masked-pointer',
			'result of %s(%s) stored in %s, which no accessor of the '
			'region uses: the accesses bypass the mask'
			% (RANGE_BEGIN_AT[k][0], pretty(arg), pretty(res)))

// ---- Stale copies: the region opens on a value from before a change ----
// P = V (or a cast of V), then V changed and tested in an if, with P not
// set again: the code checked V's new value, the region covers P's old
// one (emulate_dcbz() in 7.3 took uea before aligning ea).  A change that
// is not tested afterwards leaves a copy the code may want (a cursor
// advanced past what the region covers), and is not reported.
@range_stale depends on (access || masked) exists@
identifier P, V;
identifier B : script:python() { B in BEGINS };
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
expression E, E2;
assignment operator aop;
type T, T2;
statement S, S2;
position pc, pv, pk, pb;
@@
(
T P@pc = V;
|
T P@pc = (T2)V;
|
P@pc = V;
|
P@pc = (T2)V;
)
... when != P = E2
    when any
(
V@pv aop E;
|
V@pv++;
|
V@pv--;
)
... when != P = E2
    when any
if (<+... V@pk ...+>) S
... when != P = E2
    when any
(
it@pb(P, ...) S2
|
B@pb(P, ...)
)

@script:python@
P << range_stale.P;
V << range_stale.V;
pc << range_stale.pc;
pv << range_stale.pv;
pk << range_stale.pk;
pb << range_stale.pb;
@@
opener = pb[0]
finding(opener, 'ERROR', 'stale-pointer',
	'the region opens on %s, copied from %s on %s; %s was changed on %s and '
	'tested on %s: the region covers the value from before the change, '
	'which the code did not check' % (P, V, where(pc[0]), V, where(pv[0]),
					   where(pk[0])), P)

// ==== Output: report, org, context, patch ====================================

@script:python depends on report && api@
@@
emit(coccilib.report.print_report)

@script:python depends on org && api@
@@
emit(lambda p, msg: coccilib.org.print_safe_todo(p, msg))

// context: star every finding.
@depends on context && api@
identifier f;
position p : script:python() { has_finding(p[0]) };
@@
* f@p(...)

@depends on context && api@
position p : script:python() { has_finding(p[0]) };
@@
* return@p ...;

@depends on context && api@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
position p : script:python() { has_finding(p[0]) };
statement S;
@@
* it@p(...) S

// patch: replace the end of a mode mismatch (see end_fix()).
@region_end_fix depends on patch && api@
identifier e;
position pe : script:python(e) { end_fix(e, pe[0]) is not None };
@@
e@pe()

@script:python region_end_new depends on patch@
e << region_end_fix.e;
pe << region_end_fix.pe;
new;
@@
coccinelle.new = end_fix(e, pe[0])

@depends on patch && api@
identifier region_end_fix.e, region_end_new.new;
position region_end_fix.pe;
@@
+ new();
- e@pe();
