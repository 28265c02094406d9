// SPDX-License-Identifier: GPL-2.0-only
/// Find calls that do not belong in a user access region: functions that
/// may fault, sleep or run out of line with user access enabled.
///
/// A user access region is begun by user_{read_,write_,}access_begin() or
/// masked_user_access_begin() and ended by user_{read_,write_,}access_end(),
/// or opened and closed by a scoped_user_{read,write,rw}_access{,_size}()
/// scope.  An accessor unsafe_*(..., label) jumps to label on a fault.
/// Inside a region only the unsafe_*() accessors and code that cannot
/// call out of line belong.  Messages:
///   file:line:col-col: ERROR|WARNING: [class] function(): what is wrong
///  [call-in-region]  a call in a region that is not an accessor, a known
///                    safe helper or an __always_inline function of the
///                    file (WARNING unless it is known to be out of line)
///
/// The other scoped_uaccess_*.cocci scripts check the rest of the API.
///
// Confidence: High for ERROR, Moderate for WARNING
// Copyright: (C) 2026 Seed 856ff4c8 maintainers
// Comments:
//  Deliberate limits, each a possible false negative, none a false
//  positive:
//  - The analysis is per function: a helper called in a region is not
//    followed (objtool checks the calls on x86).
//  - Macro bodies are not analysed: a wrapper like unsafe_put_sigmask()
//    counts as an accessor.
//  - A begin tested positively, if (user_read_access_begin(p, n)) { ... },
//    is checked inside the braces only.
//  - Fault paths are followed one label deep.
//  - Calls between user_access_save() and user_access_restore() are not
//    reported.
//  - A scope whose body is, without braces, one do-while or switch
//    statement is not looked into (one call, if, if-else, for or
//    while is: the rules match the body by its kind).
//  Known false positives:
//  - Helpers defined in headers are unknown unless listed in the
//    SAFE_CALLS table; they are WARNING, never ERROR.
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@
import re

# BEGIN API TABLES: OPEN_BEGINS MASKED_BEGINS ENDS INLINE_SCOPES ACCESSORS NOT_ACCESSORS SAFE_CALLS SAFE_IN UNSAFE_CALLS
# Generated from converter/scoped_uaccess/cocci/api.py by
# `converter/scoped-uaccess api-tables --write`: edit them there.
OPEN_BEGINS = {
	'user_access_begin': 'rw',
	'user_read_access_begin': 'read',
	'user_rw_access_begin': 'rw',
	'user_write_access_begin': 'write',
}
MASKED_BEGINS = {
	'masked_user_access_begin': None,
	'masked_user_read_access_begin': 'read',
	'masked_user_rw_access_begin': 'rw',
	'masked_user_write_access_begin': 'write',
}
ENDS = {
	'user_access_end': 'rw',
	'user_read_access_end': 'read',
	'user_rw_access_end': 'rw',
	'user_write_access_end': 'write',
}
INLINE_SCOPES = {
	'get_user_inline': 'read',
	'put_user_inline': 'write',
}
ACCESSORS = {
	'unsafe_atomic_op1': ('rmw', 2),
	'unsafe_atomic_op2': ('rmw', 2),
	'unsafe_copy_from_user': ('read', 1),
	'unsafe_copy_to_user': ('write', 0),
	'unsafe_get_user': ('read', 1),
	'unsafe_put_user': ('write', 1),
	'unsafe_try_cmpxchg_user': ('rmw', 0),
}
NOT_ACCESSORS = {
	'unsafe_memcpy',
	'unsafe_memset',
}
SAFE_CALLS = {
	'READ_ONCE',
	'WRITE_ONCE',
	'__access_ok',
	'__asm__',
	'__test_and_clear_bit',
	'access_ok',
	'asm',
	'barrier',
	'be16_to_cpu',
	'be32_to_cpu',
	'be64_to_cpu',
	'can_do_masked_user_access',
	'clamp',
	'compat_ptr',
	'container_of',
	'copy_mc_enhanced_fast_string',
	'copy_mc_fragile',
	'copy_mc_fragile_handle_tail',
	'copy_to_nontemporal',
	'cpu_to_be16',
	'cpu_to_be32',
	'cpu_to_be64',
	'cpu_to_le16',
	'cpu_to_le32',
	'cpu_to_le64',
	'csum_partial_copy_generic',
	'fallthrough',
	'get_unaligned',
	'le16_to_cpu',
	'le32_to_cpu',
	'le64_to_cpu',
	'likely',
	'lower_32_bits',
	'mask_user_address',
	'max',
	'max_t',
	'mb',
	'min',
	'min_t',
	'offsetof',
	'ptr_to_compat',
	'put_unaligned',
	'rep_movs_alternative',
	'rep_stos_alternative',
	'rmb',
	'sizeof',
	'smp_mb',
	'smp_rmb',
	'smp_wmb',
	'swab16',
	'swab32',
	'swab64',
	'test_bit',
	'typeof',
	'unlikely',
	'untagged_addr',
	'upper_32_bits',
	'user_access_restore',
	'user_access_save',
	'wmb',
}
SAFE_IN = {
	'__copy_user': 'arch/x86/lib/',
	'__futex_atomic_op': 'arch/',
	'aligned_byte_mask': '',
	'cpu_has_feature': 'arch/powerpc/',
	'huge_encode_dev': '',
	'i915_mmio_reg_offset': 'drivers/gpu/drm/i915/',
	'mfspr': 'arch/powerpc/',
	'mtspr': 'arch/powerpc/',
	'new_encode_dev': '',
	'old_encode_dev': '',
	'set_trap_norestart': 'arch/powerpc/',
	'static_cpu_has': 'arch/x86/',
	'to_user_ptr': 'arch/powerpc/',
}
UNSAFE_CALLS = {
	'__clear_user',
	'__copy_from_user',
	'__copy_to_user',
	'__get_user',
	'__put_user',
	'clear_user',
	'cond_resched',
	'copy_from_user',
	'copy_from_user_nofault',
	'copy_to_user',
	'copy_to_user_nofault',
	'down_read',
	'down_write',
	'fault_in_user_writeable',
	'force_exit_sig',
	'force_sig',
	'force_sigsegv',
	'get_user',
	'kcalloc',
	'kfree',
	'kmalloc',
	'kmalloc_array',
	'kvfree',
	'kvmalloc',
	'kvzalloc',
	'kzalloc',
	'might_fault',
	'might_resched',
	'might_sleep',
	'mmap_read_lock',
	'mmap_read_unlock',
	'msleep',
	'mutex_lock',
	'mutex_lock_interruptible',
	'mutex_unlock',
	'pr_alert',
	'pr_cont',
	'pr_crit',
	'pr_debug',
	'pr_emerg',
	'pr_err',
	'pr_info',
	'pr_notice',
	'pr_warn',
	'printk',
	'put_user',
	'schedule',
	'strncpy_from_user',
	'strnlen_user',
	'up_read',
	'up_write',
	'usleep_range',
	'vfree',
	'vmalloc',
}
# END API TABLES

BEGINS = {**OPEN_BEGINS, **MASKED_BEGINS}
OPENERS = set(BEGINS) | set(INLINE_SCOPES)	# nesting, for regions.cocci

def reset():
	"""Per-file state: Coccinelle runs the rules file by file."""
	global FINDINGS, BEGIN_AT, LABEL_AT, INLINE_FNS, NOINLINE_FNS, LOCAL_FNS
	global SAVED, SCOPE_CALLS, OPEN_LABELS
	FINDINGS = {}
	BEGIN_AT = {}		# begin position -> begin name
	LABEL_AT = {}		# accessor position -> its fault label
	INLINE_FNS = set()	# __always_inline functions of the file
	NOINLINE_FNS = set()	# noinline functions of the file
	LOCAL_FNS = set()	# functions defined in the file
	SAVED = set()		# calls between user_access_save/restore
	SCOPE_CALLS = []	# (scope, its position, call, call position)
	OPEN_LABELS = {}	# label -> [(function, begin position)]

reset()

# Message formatting: one message per position and class, printed sorted
# at the end of the file in the form coccicheck's report and org modes use.

def key(p):
	return (p.file, p.line, p.column)

def where(p):
	return 'line %s' % p.line

def finding(p, severity, cls, msg):
	"""One finding per position and class: the first rule to see it words it."""
	k = (p.file, int(p.line), int(p.column), cls)
	if k not in FINDINGS:
		FINDINGS[k] = (p, '%s: [%s] %s(): %s' % (severity, cls, p.current_element, msg))

def has_finding(p):
	return any(k[:3] == (p.file, int(p.line), int(p.column)) for k in FINDINGS)

def emit(printer):
	for k in sorted(FINDINGS):
		p, msg = FINDINGS[k]
		printer(p, msg)

def is_accessor(f):
	return f.startswith('unsafe_') and f not in NOT_ACCESSORS

def is_call(f):
	"""The calls this script judges: not the API's own.  A table lookup."""
	return f not in ENDS and f not in OPENERS and not is_accessor(f)

def safe_in(f, path):
	"""Whether f is a helper known safe in the files under path.  A table
	lookup on the file name, which SmPL does not see."""
	prefix = SAFE_IN.get(f)
	if prefix is None:
		return False
	path = path[2:] if path.startswith('./') else path
	return path.startswith(prefix) or ('/' + prefix) in path

def region_call(b, pb, f, px):
	"""The call f at px runs in the region b began at pb.  Python: the
	verdict reads four tables and the functions of the file."""
	if px.current_element != pb.current_element or key(px) in SAVED or \
	   f in SAFE_CALLS or f in INLINE_FNS or safe_in(f, px.file):
		return
	# ALL_CAPS names are macros by kernel convention.
	if re.match(r'[A-Z][A-Z0-9_]*$', f) or f.startswith('__builtin_'):
		return
	begun = '%s() on %s' % (b, where(pb))
	if f in UNSAFE_CALLS or f in NOINLINE_FNS:
		why = 'is out of line' if f in NOINLINE_FNS else 'may fault or sleep'
		finding(px, 'ERROR', 'call-in-region',
			'%s() %s; called inside the region begun with %s' % (f, why, begun))
	elif f in LOCAL_FNS:
		finding(px, 'WARNING', 'call-in-region', 'call to %s() inside the region '
			'begun with %s: defined in this file without __always_inline' % (f, begun))
	else:
		finding(px, 'WARNING', 'call-in-region', 'call to %s() inside the region '
			'begun with %s: not known to be inlined' % (f, begun))

def open_call(pb, f, px):
	"""The call f at px runs with the open-coded region begun at pb open;
	an accessor's label starts a fault path of the region.  Python: a rule
	inheriting the label from the path rule would run once per accessor,
	the label rule below runs once and looks the begins up here."""
	if f in ACCESSORS:
		if key(px) in LABEL_AT:
			OPEN_LABELS.setdefault(LABEL_AT[key(px)], []).append(
				(px.current_element, pb))
	else:
		region_call(BEGIN_AT[key(pb)], pb, f, px)

// ---- Gate (report, org, context): only files naming the API are parsed ----
// The names are literal tokens: spatch's prefilter skips a file without
// any of them.  Every other rule depends on this one.

@api depends on context || org || report@
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

// ---- Facts -------------------------------------------------------------
// A metavariable with a script constraint cannot be passed to a script
// rule (spatch 1.1.1): those are in capitals, and a name a script needs
// is constrained through its position.

@inline_fn depends on api@
attribute name __always_inline;
identifier fn;
type T;
@@
static __always_inline T fn(...) { ... }

@script:python@
fn << inline_fn.fn;
@@
INLINE_FNS.add(fn)

@nokprobe_fn depends on api@
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

@noinline_fn depends on api@
attribute name noinline;
identifier fn;
type T;
@@
noinline T fn(...) { ... }

@script:python@
fn << noinline_fn.fn;
@@
NOINLINE_FNS.add(fn)

@local_fn depends on api@
identifier fn;
type T;
@@
T fn(...) { ... }

@script:python@
fn << local_fn.fn;
@@
LOCAL_FNS.add(fn)

@saved depends on api@
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
px << saved.px;
@@
SAVED.add(key(px[0]))

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

// Calls in a scope body, one match per call: a nest binding
// the calls of a scope costs spatch time exponential in their number.
// They belong to the scope, not to a region around it: vetoed below.
// An unbraced body is one call (spatch's braces isomorphism lets the
// braced pattern match it) or one if, if-else, for or while statement.
@scope_call depends on api exists@
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
it << scope_call.it;
ps << scope_call.ps;
f << scope_call.f;
px << scope_call.px;
@@
SCOPE_CALLS.append((it, ps[0], f, px[0]))

// The then branch of an unbraced scope's if-else: a rule of its own,
// a disjunction tries it only where the else branch does not match.
@scope_call_then depends on api exists@
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
it << scope_call_then.it;
ps << scope_call_then.ps;
f << scope_call_then.f;
px << scope_call_then.px;
@@
SCOPE_CALLS.append((it, ps[0], f, px[0]))

@script:python depends on api@
@@
# A call belongs to the innermost scope around it, the one begun last.
# Python: a nested scope cannot be cut out of the outer scope's body in
# SmPL without hiding the calls after it too.
inner = {}
for call in SCOPE_CALLS:
	k = key(call[-1])
	if k not in inner or (int(call[1].line), int(call[1].column)) > \
	   (int(inner[k][1].line), int(inner[k][1].column)):
		inner[k] = call
for k in sorted(inner):
	it, ps, f, px = inner[k]
	region_call(it, ps, f, px)

// ---- Open-coded regions: what runs with the region open -----------------
// A call reached from a begin is judged; an accessor's label becomes a
// fault path of the region.  The forms after the | are begins tested
// positively, checked inside their braces.

@open_call depends on api disable neg_if exists@
identifier B : script:python() { B in BEGINS };
identifier OB : script:python() { OB in OPEN_BEGINS };
identifier ANY_B : script:python() { ANY_B in BEGINS };
identifier ANY_E : script:python() { ANY_E in ENDS };
identifier f, resid;
expression ptr, n, res;
position pb, px != {scope_call.px, scope_call_then.px};
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
pb << open_call.pb;
f << open_call.f;
pf << open_call.pf;
@@
open_call(pb[0], f, pf[0])

// Calls on the fault path of an accessor, with the region still open.
@label_call depends on api exists@
identifier L, f;
identifier ANY_E : script:python() { ANY_E in ENDS };
position pl : script:python(L) { L in OPEN_LABELS };
position px != {scope_call.px, scope_call_then.px};
position pf : script:python(f) { is_call(f) };
@@
L@pl:
... when != ANY_E()
    when any
f@pf@px(...)

@script:python@
L << label_call.L;
f << label_call.f;
pf << label_call.pf;
@@
for func, pb in OPEN_LABELS[L]:
	region_call(BEGIN_AT[key(pb)], pb, f, pf[0])

// ---- Output: report, org, context ---------------------------------------

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
