// SPDX-License-Identifier: GPL-2.0-only
/// Find user accesses whose address is not based on the pointer their
/// region was opened for, or that bypass the masked pointer.
///
/// A user access region is begun by user_{read_,write_,}access_begin() or
/// masked_user_access_begin() and ended by user_{read_,write_,}access_end(),
/// or opened and closed by a scoped_user_{read,write,rw}_access{,_size}()
/// scope.  An accessor unsafe_*(..., label) jumps to label on a fault.
/// A region covers the user memory of the pointer given to its begin or
/// scope; masked_user_access_begin() returns the pointer to use.
/// Messages:
///   file:line:col-col: ERROR|WARNING: [class] function(): what is wrong
///  [range]           an accessor address not based on the begin pointer
///  [masked-pointer]  masked_user_access_begin()'s result discarded (a
///                    bare call, a cast to void, or stored in a variable no
///                    accessor of the region uses), or the unmasked pointer
///                    used inside the region
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
//  - Macro bodies are not analysed: the address of a wrapper like
//    unsafe_put_sigmask() is not checked.
//  - A begin tested positively, if (user_read_access_begin(p, n)) { ... },
//    is checked inside the braces only.
//  - Fault paths are followed one label deep.
//  - A scope whose body is, without braces, one do-while or switch
//    statement is not looked into (one call, if, if-else, for or
//    while is: the rules match the body by its kind).
//  Known false positives:
//  - range: a pointer derived from the begin pointer through a function
//    call or an assignment the checker cannot follow; an address that
//    does not parse as a pointer expression is only a WARNING, unless
//    it is an integer constant, cast or not (also a typeof() cast):
//    that one points into no object, an ERROR.
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@
import re

# BEGIN API TABLES: OPEN_BEGINS MASKED_BEGINS ENDS ACCESSORS
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
ACCESSORS = {
	'unsafe_atomic_op1': ('rmw', 2),
	'unsafe_atomic_op2': ('rmw', 2),
	'unsafe_copy_from_user': ('read', 1),
	'unsafe_copy_to_user': ('write', 0),
	'unsafe_get_user': ('read', 1),
	'unsafe_put_user': ('write', 1),
	'unsafe_try_cmpxchg_user': ('rmw', 0),
}
# END API TABLES

BEGINS = {**OPEN_BEGINS, **MASKED_BEGINS}

def reset():
	"""Per-file state: Coccinelle runs the rules file by file."""
	global FINDINGS, BEGIN_AT, ACC, ALIASES, SCOPE_ALIASES, MASKED, SCOPE_PTR
	global SCOPE_CALLS, OPEN_LABELS, MASKED_USE
	FINDINGS = {}
	BEGIN_AT = {}		# begin position -> (begin, pointer)
	ACC = {}		# accessor position -> (address, label)
	ALIASES = {}		# function -> [(variable, expression)]
	SCOPE_ALIASES = set()	# (function, variable) assigned in a scope
	MASKED = {}		# masked begin position -> (result, argument)
	SCOPE_PTR = {}		# scope position -> its pointer
	SCOPE_CALLS = []	# (scope, its position, accessor, position)
	OPEN_LABELS = {}	# label -> [(function, begin position)]
	MASKED_USE = {}		# masked begin position -> [position, whether an
				# accessor of its region used the result]

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

def open_access(pb, f, px):
	"""The accessor f at px runs with the open-coded region begun at pb
	open; its label starts a fault path of the region.  Python: a rule
	inheriting the label from the path rule would run once per accessor,
	the label rule below runs once and looks the begins up here."""
	if key(px) in ACC:
		region_access(pb, f, px)
		OPEN_LABELS.setdefault(ACC[key(px)][1], []).append((px.current_element, pb))

# ---- pointer expressions ------------------------------------------------
# Python: whether an address lies within what a pointer points to needs
# the access paths of two C expressions and the assignments between them;
# SmPL matches one shape at a time and cannot compare two paths.

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
	if inner[0] in ('typeof', '__typeof__') and inner[1:2] == ['(']:
		# (typeof(x)) or (typeof(x) *): a type, whatever x is
		k = matching(inner, 1)
		return k is not None and all(t in ('*', '__user', 'const') for t in inner[k + 1:])
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

INTEGER = re.compile(r'(0[xX][0-9a-fA-F]+|\d+)[uUlL]*$')

def constant_address(text):
	"""Whether the address is an integer constant, cast (also with a
	typeof() cast) or parenthesised: it points to no object at all, so
	certainly not into what the begin pointer points to."""
	toks = tokens(text)
	while len(toks) > 1 and toks[0] == '(':
		j = matching(toks, 0)
		if j is None:
			return False
		# (constant), or a cast (T *), (typeof(p)) before the operand
		toks = toks[1:j] if j == len(toks) - 1 else toks[j + 1:]
	return len(toks) == 1 and INTEGER.match(toks[0]) is not None

def strip_index(path):
	return [c for c in path if c != '[]']

def based_on(addr, bases):
	"""Whether the address is a member, element or offset of one of the
	base paths; None when it does not parse."""
	c = chain(addr)
	if c is None:
		return None
	path = strip_index(c[0])
	return any(path[:len(b)] == b for b in bases)

def base_paths(func, ptr, scope=False):
	"""The begin pointer and the local pointers derived from it."""
	c = chain(ptr)
	if c is None:
		return []
	bases = [strip_index(c[0])]
	changed = True
	while changed:
		changed = False
		for var, expr in ALIASES.get(func, []):
			ce = None if scope and (func, var) not in SCOPE_ALIASES else chain(expr)
			if ce is None:
				continue
			pe = strip_index(ce[0])
			if [var] not in bases and any(pe[:len(b)] == b for b in bases):
				bases.append([var])
				changed = True
			elif [var] in bases and len(pe) == 1 and pe not in bases:
				# prev = dirent - n: dirent is within reach too
				bases.append(pe)
				changed = True
	return bases


def region_access(pb, f, px, scope=None):
	"""The address of the accessor f at px, in the region begun at pb (at
	the scope named scope).  Python: see the pointer expressions above."""
	b, ptr = (scope, SCOPE_PTR[key(pb)]) if scope else BEGIN_AT[key(pb)]
	addr = ACC[key(px)][0]
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
	shown, given = pretty(addr), pretty(ptr)
	if constant_address(addr):
		finding(px, 'ERROR', 'range',
			'%s, the address of %s(), is an integer constant: it is not '
			'based on %s given to %s' % (shown, f, given, begun))
	elif ok is None:
		finding(px, 'WARNING', 'range',
			'cannot tell whether %s, the address of %s(), lies within %s given to %s'
			% (shown, f, given, begun))
	elif unmasked and based_on(addr, unmasked):
		finding(px, 'ERROR', 'masked-pointer',
			'%s() uses the unmasked pointer in %s; the region begun with %s '
			'must use %s' % (f, shown, begun, given))
	elif scope and based_on(addr, base_paths(func, ptr)):
		finding(px, 'ERROR', 'masked-pointer',
			'%s() uses %s, derived from %s outside the scope %s: it '
			'bypasses the masked pointer' % (f, shown, given, begun))
	else:
		finding(px, 'ERROR', 'range',
			'%s, the address of %s(), is not based on %s given to %s'
			% (shown, f, given, begun))

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

// The path rules bind positions only and look the begin up here: binding
// its pointer in a path rule makes spatch 1.1.1 enumerate the paths once
// per binding (signal_32.c: 32 s instead of 4 s).
@begin depends on api@
identifier b;
expression ptr;
position pb : script:python(b) { b in BEGINS };
@@
b@pb(ptr, ...)

@script:python@
b << begin.b;
ptr << begin.ptr;
pb << begin.pb;
@@
BEGIN_AT[key(pb[0])] = (b, ptr)

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

@alias depends on api@
identifier q;
expression e;
type T;
position pq;
@@
(
T q@pq = e;
|
q@pq = e
)

@script:python@
q << alias.q;
e << alias.e;
pq << alias.pq;
@@
ALIASES.setdefault(pq[0].current_element, []).append((q, e))

@masked depends on api@
identifier M : script:python() { M in MASKED_BEGINS };
expression ptr, res;
position pm;
@@
res = M@pm(ptr)

@script:python@
pm << masked.pm;
ptr << masked.ptr;
res << masked.res;
@@
MASKED[key(pm[0])] = (res, ptr)

@masked_decl depends on api@
identifier M : script:python() { M in MASKED_BEGINS };
identifier res;
expression ptr;
type T;
position pm;
@@
T res = M@pm(ptr);

@script:python@
pm << masked_decl.pm;
ptr << masked_decl.ptr;
res << masked_decl.res;
@@
MASKED[key(pm[0])] = (res, ptr)

// Every spelling of throwing the result away: a bare call, a cast to void.
@masked_discarded depends on api@
identifier m;
expression ptr;
position pm : script:python(m) { m in MASKED_BEGINS };
@@
(
m@pm(ptr);
|
 (void)m@pm(ptr);
)

@script:python@
m << masked_discarded.m;
ptr << masked_discarded.ptr;
pm << masked_discarded.pm;
@@
MASKED[key(pm[0])] = (None, ptr)
finding(pm[0], 'ERROR', 'masked-pointer',
	'result of %s() discarded: the accesses use the unmasked %s' % (m, pretty(ptr)))

@scope_alias depends on api exists@
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
q << scope_alias.q;
pq << scope_alias.pq;
@@
for p in pq:
	SCOPE_ALIASES.add((p.current_element, q))

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
position px : script:python(f) { f in ACCESSORS };
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
SCOPE_PTR[key(ps[0])] = ptr
SCOPE_CALLS.append((it, ps[0], f, px[0]))

// The then branch of an unbraced scope's if-else: a rule of its own,
// a disjunction tries it only where the else branch does not match.
@scope_call_then depends on api exists@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
identifier f;
expression ptr;
position ps;
expression E;
statement S1;
position px : script:python(f) { f in ACCESSORS };
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
SCOPE_PTR[key(ps[0])] = ptr
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
	if k in ACC:
		region_access(ps, f, px, scope=it)

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
position pf : script:python(f) { f in ACCESSORS };
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
	if key(pf[0]) in ACC:
		region_access(pb, f, pf[0])

@script:python depends on api@
@@
# The result stored where no accessor of the region looks: discarded
# as surely as by a bare call.  Reported at the begin, besides the
# accessors that use the unmasked pointer.
for k in sorted(MASKED_USE):
	pb, used = MASKED_USE[k]
	if not used:
		res, arg = MASKED[k]
		finding(pb, 'ERROR', 'masked-pointer',
			'result of %s(%s) stored in %s, which no accessor of the '
			'region uses: the accesses bypass the mask'
			% (BEGIN_AT[k][0], pretty(arg), pretty(res)))

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
