// SPDX-License-Identifier: GPL-2.0-only
/// Find user access regions left open, ended in the wrong mode or nested.
///
/// A user access region is begun by user_{read_,write_,}access_begin() or
/// masked_user_access_begin() and ended by user_{read_,write_,}access_end(),
/// or opened and closed by a scoped_user_{read,write,rw}_access{,_size}()
/// scope.  An accessor unsafe_*(..., label) jumps to label on a fault.
/// Messages:
///   file:line:col-col: ERROR|WARNING: [class] function(): what is wrong
///  [mode-mismatch]   region begun in one mode, ended in another
///  [missing-end]     a path from a successful begin leaves the function,
///                    or the fault path of an accessor does, with no end
///  [nesting]         a region or scope opened inside another one
///  [conditional-region] (WARNING) a begin that runs only under another
///                    condition, if (c && !begin(...)), with ends under
///                    conditions of their own: correct only if they agree
///                    on every path; the message names both conditions
///
/// MODE=patch replaces the end of a mode mismatch where every begin that
/// reaches that end agrees on the mode; everything else needs a human.
/// The other scoped_uaccess_*.cocci scripts check the rest of the API.
///
// Confidence: High for ERROR, Moderate for WARNING
// Copyright: (C) 2026 Seed 856ff4c8 maintainers
// Comments:
//  Deliberate limits, each a possible false negative, none a false
//  positive:
//  - The analysis is per function: a region begun in one function and
//    ended in another is reported as missing-end.
//  - A begin tested positively, if (user_read_access_begin(p, n)) { ... },
//    is checked inside the braces only.
//  - Fault paths are followed one label deep, and only from the accessors
//    of the API: a wrapper macro such as unsafe_put_sigmask() opens none.
//  - A return on a fault path is checked; a void function falling off its
//    end after a fault label is not.
//  - masked_user_access_begin() of 6.12 has no mode: any end fits it.
//  - A conditional region, if (c && !user_read_access_begin(p, n)) ...
//    if (c) user_read_access_end(), is reported as that and not checked
//    further: whether c holds at the end as it did at the begin is a
//    question of the values on each path.  Upstream splits such a
//    function (objtool: "redundant UACCESS disable").
//  - A scope whose body is, without braces, one do-while or switch
//    statement is not looked into (one call, if, if-else, for or
//    while is: the rules match the body by its kind).
//  Known false positives: none.
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@
# BEGIN API TABLES: OPEN_BEGINS MASKED_BEGINS ENDS END_FOR_MODE INLINE_SCOPES ACCESSORS
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
END_FOR_MODE = {
	'read': 'user_read_access_end',
	'rw': 'user_access_end',
	'write': 'user_write_access_end',
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
# END API TABLES

BEGINS = {**OPEN_BEGINS, **MASKED_BEGINS}
OPENERS = set(BEGINS) | set(INLINE_SCOPES)	# nesting when called in a region

def reset():
	"""Per-file state: Coccinelle runs the rules file by file."""
	global FINDINGS, BEGIN_AT, LABEL_AT, SCOPE_CALLS, OPEN_LABELS, END_MODES
	global ME_RET, COND_BEGINS
	FINDINGS = {}
	BEGIN_AT = {}		# begin position -> begin name
	LABEL_AT = {}		# accessor position -> its fault label
	SCOPE_CALLS = []	# (scope, its position, opener, position)
	OPEN_LABELS = {}	# label -> [(function, begin position, via)]
	END_MODES = {}		# end position -> modes of the begins reaching it
	ME_RET = set()		# begins with a missing end found at a return
	COND_BEGINS = {}	# conditional begin position -> (position,
				# begin, its condition, [(end, condition, position)])

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

def end_reached(b, pb, e, pe, through):
	"""The end e at pe reached with the region b began at pb open.
	Python: whether two calls agree is a table lookup, and MODE=patch
	needs every begin that reaches an end (END_MODES)."""
	mode = BEGINS[b]
	END_MODES.setdefault(key(pe), set()).add(mode)
	if mode is not None and ENDS[e] != mode:
		finding(pe, 'ERROR', 'mode-mismatch',
			'region begun with %s() on %s ended with %s()%s, not %s()'
			% (b, where(pb), e, through, END_FOR_MODE[mode]))

def end_fix(e, pe):
	"""The end MODE=patch puts at pe: that of the one mode of the begins
	reaching it, None where e fits or they disagree.  Masked begins fit
	any end and do not vote.  Python: SmPL can match the paths from each
	begin to an end, not count the modes of all of them."""
	modes = END_MODES.get(key(pe), set()) - {None}
	if len(modes) == 1 and ENDS[e] not in modes:
		return END_FOR_MODE[modes.pop()]
	return None

def region_call(b, pb, f, px, via=None):
	"""The call f at px, an end or an opener, runs with the region b began
	at pb open (via: the accessor whose fault path it is on).  Python:
	the verdict and its message read the tables."""
	if px.current_element != pb.current_element:
		return
	through = ' on the fault path of %s() on %s' % via if via else ''
	if f in ENDS:
		end_reached(b, pb, f, px, through)
	elif f in OPENERS:
		finding(px, 'ERROR', 'nesting', '%s() inside the region begun with %s() on %s%s'
			% (f, b, where(pb), through))

def cond(c):
	"""A condition as the kernel spells it: spatch prints ! kbuf."""
	return str(c).replace('! ', '!')

def open_call(pb, f, px):
	"""The call f at px runs with the open-coded region begun at pb open;
	an accessor's label starts a fault path of the region.  Python: a rule
	inheriting the label from the path rule would run once per accessor,
	the label rule below runs once and looks the begins up here."""
	if f in ACCESSORS:
		if key(px) in LABEL_AT:
			OPEN_LABELS.setdefault(LABEL_AT[key(px)], []).append(
				(px.current_element, pb, (f, where(px))))
	else:
		region_call(BEGIN_AT[key(pb)], pb, f, px)

// ---- Gate (all modes): only files naming the API are parsed -------------
// The names are literal tokens: spatch's prefilter skips a file without
// any of them.  Every other rule depends on this one.

@api@
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

// Ends, accessors and openers in a scope body, one match per call: a nest binding
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
position px : script:python(f) { f in ENDS or f in ACCESSORS or f in OPENERS };
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
if f in OPENERS:
	SCOPE_CALLS.append((it, ps[0], f, px[0]))

// The then branch of an unbraced scope's if-else: a rule of its own,
// a disjunction tries it only where the else branch does not match.
@scope_call_then depends on api exists@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
identifier f;
position ps;
expression E;
statement S1;
position px : script:python(f) { f in ENDS or f in ACCESSORS or f in OPENERS };
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
if f in OPENERS:
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

@scope_nest depends on api@
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
it << scope_nest.it;
it2 << scope_nest.it2;
ps << scope_nest.ps;
px << scope_nest.px;
@@
for p in px:
	finding(p, 'ERROR', 'nesting', '%s() inside the scope %s() on %s'
		% (it2, it, where(ps[0])))

// ---- Open-coded regions: what runs with the region open -----------------
// An end reached from a begin is checked against it and votes for
// MODE=patch, an opener nests, an accessor's label becomes a fault path
// of the region.  The forms after the | are begins tested positively,
// checked inside their braces.

@open_call depends on api disable neg_if exists@
identifier B : script:python() { B in BEGINS };
identifier OB : script:python() { OB in OPEN_BEGINS };
identifier ANY_B : script:python() { ANY_B in BEGINS };
identifier ANY_E : script:python() { ANY_E in ENDS };
identifier f, resid;
expression ptr, n, res;
position pb, px != {scope_call.px, scope_call_then.px};
position pf : script:python(f) { f in ENDS or f in ACCESSORS or f in OPENERS };
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

// Ends and openers on the fault path of an accessor, with the region still open.
@label_call depends on api exists@
identifier L, f;
identifier ANY_E : script:python() { ANY_E in ENDS };
position pl : script:python(L) { L in OPEN_LABELS };
position px != {scope_call.px, scope_call_then.px};
position pf : script:python(f) { f in ENDS or f in OPENERS };
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
for func, pb, via in OPEN_LABELS[L]:
	region_call(BEGIN_AT[key(pb)], pb, f, pf[0], via)

// A scope opened while an open-coded region is open.
@region_scope depends on api exists@
identifier B : script:python() { B in BEGINS };
identifier ANY_E : script:python() { ANY_E in ENDS };
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
res = B@pb(ptr);
|
T resid = B@pb(ptr);
|
B@pb(ptr);
)
... when != ANY_E()
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

@label_ret depends on api exists@
identifier L;
identifier ANY_E : script:python() { ANY_E in ENDS };
position pl : script:python(L) { L in OPEN_LABELS };
position pr;
@@
L@pl:
... when != ANY_E()
return@pr ...;

@script:python@
L << label_ret.L;
pr << label_ret.pr;
@@
for func, pb, via in OPEN_LABELS[L]:
	if func == pr[0].current_element:
		ME_RET.add(key(pb))
		finding(pr[0], 'ERROR', 'missing-end',
			'return on the fault path of %s() on %s leaves the region begun '
			'with %s() on %s open' % (via[0], via[1], BEGIN_AT[key(pb)], where(pb)))

@ret_open depends on api exists@
identifier B : script:python() { B in BEGINS };
identifier ANY_E : script:python() { ANY_E in ENDS };
identifier resid;
expression ptr, n, res;
position pb, pr;
statement S;
type T;
@@
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
return@pr ...;

@script:python@
pb << ret_open.pb;
pr << ret_open.pr;
@@
ME_RET.add(key(pb[0]))
finding(pr[0], 'ERROR', 'missing-end', 'return leaves the region begun with %s() on %s open'
	% (BEGIN_AT[key(pb[0])], where(pb[0])))

@fall_open depends on api exists@
identifier B : script:python() { B in BEGINS };
identifier ANY_E : script:python() { ANY_E in ENDS };
identifier fn, resid;
expression ptr, n, res;
position pb;
statement S;
type T;
@@
fn(...) {
... when any
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
}

@script:python@
pb << fall_open.pb;
@@
# A begin whose region a return leaves open is reported there.
if key(pb[0]) not in ME_RET:
	finding(pb[0], 'ERROR', 'missing-end',
		'the region begun with %s() here is not ended on some path out of '
		'the function' % BEGIN_AT[key(pb[0])])

@ret_pos depends on api disable neg_if exists@
identifier B : script:python() { B in OPEN_BEGINS };
identifier ANY_E : script:python() { ANY_E in ENDS };
expression ptr, n;
position pb, pr;
statement S2;
@@
if (\(B@pb(ptr, n)\|likely(B@pb(ptr, n))\)) {
... when != ANY_E()
    when exists
return@pr ...;
... when any
} else S2

@script:python@
pb << ret_pos.pb;
pr << ret_pos.pr;
@@
ME_RET.add(key(pb[0]))
finding(pr[0], 'ERROR', 'missing-end', 'return leaves the region begun with %s() on %s open'
	% (BEGIN_AT[key(pb[0])], where(pb[0])))

// A positive begin whose block has no end at all.
@pos_ended depends on api disable neg_if@
identifier B : script:python() { B in OPEN_BEGINS };
identifier E : script:python() { E in ENDS };
expression ptr, n;
position pb;
statement S2;
@@
if (\(B@pb(ptr, n)\|likely(B@pb(ptr, n))\)) { <+... E() ...+> } else S2

@pos_unended depends on api disable neg_if@
identifier B : script:python() { B in OPEN_BEGINS };
expression ptr, n;
position pb != pos_ended.pb;
statement S1, S2;
@@
if (\(B@pb(ptr, n)\|likely(B@pb(ptr, n))\)) S1 else S2

@script:python@
pb << pos_unended.pb;
@@
if key(pb[0]) not in ME_RET:
	finding(pb[0], 'ERROR', 'missing-end',
		'the region begun with %s() here is never ended' % BEGIN_AT[key(pb[0])])

// ---- conditional-region -------------------------------------------------
// A begin behind another condition of an &&: the region is open only
// when that condition holds, and its ends must run under the same one.

@cond_begin depends on api@
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
C << cond_begin.C;
pb << cond_begin.pb;
@@
COND_BEGINS[key(pb[0])] = (pb[0], BEGIN_AT[key(pb[0])], cond(C), [])

// The ends under a condition after a conditional begin, fault labels
// included: not a path rule, the label after an accessor is reached by
// no path spatch sees.
@cond_end depends on cond_begin@
expression C2;
identifier e;
position pe : script:python(e) { e in ENDS };
@@
if (C2) e@pe();

@script:python@
e << cond_end.e;
C2 << cond_end.C2;
pe << cond_end.pe;
@@
for pb, b, c, ends in COND_BEGINS.values():
	if pe[0].current_element == pb.current_element and \
	   int(pe[0].line) > int(pb.line):
		ends.append((e, cond(C2), pe[0]))

@script:python depends on cond_begin@
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

// ---- Output: report, org, context, patch ---------------------------------

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
@end_fix depends on patch && api@
identifier e;
position pe : script:python(e) { end_fix(e, pe[0]) is not None };
@@
e@pe()

@script:python end_new depends on patch@
e << end_fix.e;
pe << end_fix.pe;
new;
@@
coccinelle.new = end_fix(e, pe[0])

@depends on patch && api@
identifier end_fix.e, end_new.new;
position end_fix.pe;
@@
- e@pe();
+ new();
