// SPDX-License-Identifier: GPL-2.0-only
/// Find ends of user access regions and user accesses where no region
/// is open.
///
/// A user access region is begun by user_{read_,write_,}access_begin() or
/// masked_user_access_begin() and ended by user_{read_,write_,}access_end(),
/// or opened and closed by a scoped_user_{read,write,rw}_access{,_size}()
/// scope.  An accessor unsafe_*(..., label) jumps to label on a fault.
/// Messages:
///   file:line:col-col: ERROR: [class] function(): what is wrong
///  [end-without-begin] an end reachable with no region open: a failed
///                    begin, a second end, an end after or inside a scope
///  [access-outside-region] an accessor reachable with no region open
///
/// The other scoped_uaccess_*.cocci scripts check the rest of the API.
///
// Confidence: High
// Copyright: (C) 2026 Seed 856ff4c8 maintainers
// Comments:
//  Deliberate limits, each a possible false negative, none a false
//  positive:
//  - The analysis is per function.  A helper that only contains
//    accessors (e.g. __unsafe_setup_sigcontext()) is assumed to be called
//    inside its caller's region: only functions that begin, end or scope
//    a region are checked for accesses outside one.  objtool checks the
//    calls on x86.
//  - An end in a function that begins no region is taken for a helper
//    ending its caller's region (like the cleanup of a scope).
//  - A begin tested positively, if (user_read_access_begin(p, n)) { ... },
//    is checked inside the braces only.
//  - Code under if (0) is not followed.
//  Known false positives:
//  - access-outside-region on an accessor in a scope whose body is,
//    without braces, one do-while or switch statement: the rules match
//    a body by its kind, and know one call, if, if-else, for and while.
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@
# BEGIN API TABLES: OPEN_BEGINS MASKED_BEGINS ENDS ACCESSORS NOT_ACCESSORS
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
NOT_ACCESSORS = {
	'unsafe_memcpy',
	'unsafe_memset',
}
# END API TABLES

BEGINS = {**OPEN_BEGINS, **MASKED_BEGINS}

def reset():
	"""Per-file state: Coccinelle runs the rules file by file."""
	global FINDINGS, BEGIN_AT, LABEL_AT, MANAGED, BEGUN, SCOPE_CALLS
	global CLOSED_LABELS
	FINDINGS = {}
	BEGIN_AT = {}		# begin position -> begin name
	LABEL_AT = {}		# accessor position -> its fault label
	MANAGED = set()		# functions that begin, end or scope a region
	BEGUN = set()		# functions that begin or scope a region
	SCOPE_CALLS = []	# (scope, its position, call, call position)
	CLOSED_LABELS = {}	# label -> [(function, why no region is open)]

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

def closed(label, p, why):
	"""label is reached with no region open, when why.  Python: the labels
	come from three rules (failed begins, rejected scopes, faults in a
	scope), and a SmPL rule inherits a metavariable from one rule only."""
	CLOSED_LABELS.setdefault(label, []).append((p.current_element, why))

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

@managed depends on api@
identifier g;
position pg : script:python(g) { g in BEGINS or g in ENDS };
@@
g@pg(...)

@script:python@
g << managed.g;
pg << managed.pg;
@@
MANAGED.add(pg[0].current_element)
if g in BEGINS:
	BEGIN_AT[key(pg[0])] = g
	BEGUN.add(pg[0].current_element)

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

@scope depends on api@
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
ps << scope.ps;
L << scope.L;
@@
MANAGED.add(ps[0].current_element)
BEGUN.add(ps[0].current_element)
closed(L, ps[0], 'the scope on %s is rejected' % where(ps[0]))

// Ends and accessors in a scope body, one match per call: a nest binding
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
position px : script:python(f) { f in ENDS or is_accessor(f) };
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
position px : script:python(f) { f in ENDS or is_accessor(f) };
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
	if f in ENDS:
		finding(px, 'ERROR', 'end-without-begin',
			'%s() inside the scope %s() on %s: the scope ends the region itself'
			% (f, it, where(ps)))
	elif k in LABEL_AT:
		# the scope has ended the region when its fault jumps
		closed(LABEL_AT[k], px, '%s() on %s faults' % (f, where(px)))

// ---- end-without-begin --------------------------------------------------

@end_entry depends on api exists@
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
e << end_entry.e;
pe << end_entry.pe;
@@
# A function that never begins a region and only ends one is a helper
# ending the region of its caller, like the cleanup of a scope.
if pe[0].current_element in BEGUN:
	finding(pe[0], 'ERROR', 'end-without-begin',
		'%s() reachable from the start of the function with no region begun' % e)

@end_after_end depends on api exists@
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
e1 << end_after_end.e1;
e2 << end_after_end.e2;
p1 << end_after_end.p1;
p2 << end_after_end.p2;
@@
finding(p2[0], 'ERROR', 'end-without-begin',
	'%s() reachable after %s() on %s with no region begun in between'
	% (e2, e1, where(p1[0])))

@end_fail depends on api@
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
pb << end_fail.pb;
e << end_fail.e;
pe << end_fail.pe;
@@
for p in pe:
	finding(p, 'ERROR', 'end-without-begin', '%s() on the path where %s() on %s failed'
		% (e, BEGIN_AT[key(pb[0])], where(pb[0])))

@fail_goto depends on api@
identifier B : script:python() { B in OPEN_BEGINS };
expression ptr, n;
identifier L;
position pb;
@@
if (\(!B@pb(ptr, n)\|unlikely(!B@pb(ptr, n))\)) goto L;

@script:python@
pb << fail_goto.pb;
L << fail_goto.L;
@@
closed(L, pb[0], '%s() on %s fails' % (BEGIN_AT[key(pb[0])], where(pb[0])))

// Paths from the labels a failed begin, a rejected scope or a fault in a
// scope jumps to: no region is open there.
@closed_end depends on api exists@
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
L << closed_end.L;
e << closed_end.e;
pe << closed_end.pe;
@@
for func, why in CLOSED_LABELS[L]:
	if func == pe[0].current_element:
		finding(pe[0], 'ERROR', 'end-without-begin',
			'%s() reachable through label %s when %s: no region is open'
			% (e, L, why))

// ---- access-outside-region ----------------------------------------------
// The accessors of a scope body are in a region: scope_call vetoes them.

@closed_acc depends on api exists@
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
L << closed_acc.L;
a << closed_acc.a;
pa << closed_acc.pa;
@@
for func, why in CLOSED_LABELS[L]:
	if func == pa[0].current_element:
		finding(pa[0], 'ERROR', 'access-outside-region',
			'%s() reachable through label %s when %s: no region is open'
			% (a, L, why))

@acc_entry depends on api exists@
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
a << acc_entry.a;
pa << acc_entry.pa;
@@
# Only functions that manage a region: a helper made of accessors runs
# inside its caller's region.
if pa[0].current_element in MANAGED:
	finding(pa[0], 'ERROR', 'access-outside-region',
		'%s() reachable from the start of the function with no region begun' % a)

@acc_after_end depends on api exists@
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
e << acc_after_end.e;
a << acc_after_end.a;
pe << acc_after_end.pe;
pa << acc_after_end.pa;
@@
finding(pa[0], 'ERROR', 'access-outside-region',
	'%s() reachable after %s() on %s with no region begun' % (a, e, where(pe[0])))

@acc_fail depends on api@
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
pb << acc_fail.pb;
a << acc_fail.a;
pa << acc_fail.pa;
@@
for p in pa:
	finding(p, 'ERROR', 'access-outside-region', '%s() on the path where %s() on %s failed'
		% (a, BEGIN_AT[key(pb[0])], where(pb[0])))

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
