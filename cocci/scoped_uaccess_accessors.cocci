// SPDX-License-Identifier: GPL-2.0-only
/// Find user accesses that do not fit their region: a write in a read
/// region and the like, a first access beyond the page a masked region
/// can rely on.
///
/// A user access region is begun by user_{read_,write_,}access_begin() or
/// masked_user_access_begin() and ended by user_{read_,write_,}access_end(),
/// or opened and closed by a scoped_user_{read,write,rw}_access{,_size}()
/// scope.  An accessor unsafe_*(..., label) jumps to label on a fault.
/// Messages:
///   file:line:col-col: ERROR|WARNING: [class] function(): what is wrong
///  [accessor-mode]   put/copy-to in a read region, get/copy-from in a
///                    write region, read-modify-write outside a rw region
///  [masked-range]    (WARNING) the first access of a masked region or
///                    scope may lie beyond PAGE_SIZE from the pointer
///
/// The other scoped_uaccess_*.cocci scripts check the rest of the API.
///
// Confidence: High for ERROR, Moderate for WARNING
// Copyright: (C) 2026 Seed 856ff4c8 maintainers
// Comments:
//  Deliberate limits, each a possible false negative, none a false
//  positive:
//  - The analysis is per function: a helper made of accessors is not
//    checked against the region of its caller.
//  - Macro bodies are not analysed: a wrapper like unsafe_put_sigmask()
//    takes its mode from the WRAPPERS table.
//  - A begin tested positively, if (user_read_access_begin(p, n)) { ... },
//    is checked inside the braces only.
//  - Fault paths are followed one label deep.
//  - masked-range looks at the first access on each path of an open-coded
//    masked region, and at the textually first accessor of a scope; a
//    masked begin in a declaration, T *u = masked_user_access_begin(p);,
//    is not checked.
//  - A scope whose body is, without braces, one do-while or switch
//    statement is not looked into (one call, if, if-else, for or
//    while is: the rules match the body by its kind).
//  Known false positives:
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

# BEGIN API TABLES: OPEN_BEGINS MASKED_BEGINS ENDS SCOPES ACCESSORS WRAPPERS NOT_ACCESSORS
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
SCOPES = {
	'scoped_user_read_access': 'read',
	'scoped_user_read_access_size': 'read',
	'scoped_user_rw_access': 'rw',
	'scoped_user_rw_access_size': 'rw',
	'scoped_user_write_access': 'write',
	'scoped_user_write_access_size': 'write',
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
	'unsafe_memcpy',
	'unsafe_memset',
}
# END API TABLES

BEGINS = {**OPEN_BEGINS, **MASKED_BEGINS}

def reset():
	"""Per-file state: Coccinelle runs the rules file by file."""
	global FINDINGS, BEGIN_AT, ACC, LOOP0, SCOPE_CALLS, SCOPE_FIRST
	global OPEN_LABELS
	FINDINGS = {}
	BEGIN_AT = {}		# begin position -> begin name
	ACC = {}		# accessor position -> (address, label)
	LOOP0 = {}		# accessor position -> loop counters from 0
	SCOPE_CALLS = []	# (scope, its position, pointer, accessor, position)
	SCOPE_FIRST = {}	# scope position -> (first accessor, scope, pointer)
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

def accessor_mode(f):
	return (ACCESSORS.get(f) or WRAPPERS.get(f) or (None,))[0]

def region_access(b, pb, f, px, scope=False):
	"""The accessor f at px runs in the region b began at pb.  Python:
	whether two calls agree is a table lookup."""
	if px.current_element != pb.current_element:
		return
	mode = SCOPES[b] if scope else BEGINS[b]
	amode = accessor_mode(f)
	if mode is not None and amode is not None and \
	   ((mode == 'read' and amode in ('write', 'rmw')) or
	    (mode == 'write' and amode in ('read', 'rmw'))):
		what = {'read': 'reads', 'write': 'writes', 'rmw': 'reads and writes'}[amode]
		finding(px, 'ERROR', 'accessor-mode',
			'%s() %s user memory in the %s-only region begun with %s() on %s'
			% (f, what, mode, b, where(pb)))

def open_access(pb, f, px):
	"""The accessor f at px runs with the open-coded region begun at pb
	open; its label starts a fault path of the region.  Python: a rule
	inheriting the label from the path rule would run once per accessor,
	the label rule below runs once and looks the begins up here."""
	region_access(BEGIN_AT[key(pb)], pb, f, px)
	if key(px) in ACC:
		OPEN_LABELS.setdefault(ACC[key(px)][1], []).append((px.current_element, pb))

# ---- pointer expressions ------------------------------------------------
# Python: how far an address lies from a pointer needs the access path of
# a C expression; SmPL matches one shape at a time and cannot measure it.

TOKEN = re.compile(r'\s*(->|\+\+|--|[A-Za-z_]\w*|0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|.)')
TYPE_WORDS = {'struct', 'union', 'enum', 'const', 'volatile', 'unsigned',
	      'signed', 'char', 'short', 'int', 'long', 'void', '__user',
	      '__force', 'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64',
	      '__u8', '__u16', '__u32', '__u64', 'compat_uptr_t', 'size_t'}

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
	return inner[-1] == '*' or (any(t in TYPE_WORDS for t in inner) and all(
		t in TYPE_WORDS or t == '*' or re.match(r'[A-Za-z_]\w*_t$', t) for t in inner))

def chain(text):
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
			inner = chain(' '.join(toks[1:j]))
			return inner and extend(*inner, toks[j + 1:])
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
		inner = chain(' '.join(toks[2:k]))
		return inner and extend(inner[0], inner[1] + ['?'], toks[j + 1:])
	return extend([toks[0]], [], toks[1:])

def extend(path, offs, rest):
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

def strip_index(path):
	return [c for c in path if c != '[]']

def small_offset(text):
	try:
		return int(text.rstrip('uUlL'), 0) < 512
	except ValueError:
		return False

def check_masked_range(pa, pb, ptr, what):
	"""The first access at pa of the masked region begun at pb for ptr.
	Python: see the pointer expressions above."""
	if key(pa) not in ACC:
		return
	addr = ACC[key(pa)][0]
	base, c = chain(ptr), chain(addr)
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

// The user address of an accessor: its argument ACCESSORS[a][1].
@acc depends on api@
identifier a, L;
expression list[n] before;
expression addr;
position pa : script:python(a) { a in ACCESSORS };
@@
a@pa(before, addr, ..., L)

@script:python@
a << acc.a;
n << acc.n;
addr << acc.addr;
L << acc.L;
pa << acc.pa;
@@
if int(n) == ACCESSORS[a][1]:
	ACC[key(pa[0])] = (addr, L)

// Every unsafe_*() call in a loop counting from 0 (masked-range).
@loop0 depends on api exists@
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
i << loop0.i;
pa << loop0.pa;
@@
for p in pa:
	LOOP0.setdefault(key(p), set()).add(i)

// Accessors in a scope body, one match per call: a nest binding
// the calls of a scope costs spatch time exponential in their number.
// They belong to the scope, not to a region around it: vetoed below.
// An unbraced body is one call (spatch's braces isomorphism lets the
// braced pattern match it) or one if, if-else, for or while statement.
@scope_call depends on api exists@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
identifier f;
expression ptr;
position ps;
expression E;
statement S1;
position px : script:python(f) { is_accessor(f) };
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
SCOPE_CALLS.append((it, ps[0], ptr, f, px[0]))

// The then branch of an unbraced scope's if-else: a rule of its own,
// a disjunction tries it only where the else branch does not match.
@scope_call_then depends on api exists@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
identifier f;
expression ptr;
position ps;
expression E;
statement S1;
position px : script:python(f) { is_accessor(f) };
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
SCOPE_CALLS.append((it, ps[0], ptr, f, px[0]))

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
	it, ps, ptr, f, px = inner[k]
	first = SCOPE_FIRST.get(key(ps))
	if first is None or (int(px.line), int(px.column)) < \
	   (int(first[0].line), int(first[0].column)):
		SCOPE_FIRST[key(ps)] = (px, ps, ptr)
	region_access(it, ps, f, px, scope=True)

// ---- Open-coded regions: the accessors run with it open -----------------
// The forms after the | are begins tested positively, checked inside
// their braces.

@open_acc depends on api disable neg_if exists@
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
pb << open_acc.pb;
f << open_acc.f;
pf << open_acc.pf;
@@
open_access(pb[0], f, pf[0])

// Accessors on the fault path of an accessor, with the region still open.
@label_acc depends on api exists@
identifier L, f;
identifier ANY_E : script:python() { ANY_E in ENDS };
position pl : script:python(L) { L in OPEN_LABELS };
position px != {scope_call.px, scope_call_then.px};
position pf : script:python(f) { is_accessor(f) };
@@
L@pl:
... when != ANY_E()
    when any
f@pf@px(...)

@script:python@
L << label_acc.L;
f << label_acc.f;
pf << label_acc.pf;
@@
for func, pb in OPEN_LABELS[L]:
	region_access(BEGIN_AT[key(pb)], pb, f, pf[0])

// ---- masked-range: the first access of a masked region ------------------

// The first unsafe_*() call on each path, not only the accessors.
@masked_first depends on api exists@
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
m << masked_first.m;
pm << masked_first.pm;
res << masked_first.res;
pa << masked_first.pa;
@@
check_masked_range(pa[0], pm[0], res, '%s()' % m)

@script:python depends on api@
@@
# The first accessor of each scope, now that every scope has been seen.
for k in sorted(SCOPE_FIRST):
	pa, ps, ptr = SCOPE_FIRST[k]
	check_masked_range(pa, ps, ptr, 'the scope')

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
