// SPDX-License-Identifier: GPL-2.0-only
/// Find user access regions whose begins and ends do not pair up, and what
/// runs in a region that does not fit it.  A region is begun by (masked_)
/// user_*access_begin() and ended by user_*access_end(), or is a scope;
/// an accessor unsafe_*(..., label) jumps to label on a fault.
///  [mode-mismatch]   (WARNING) region begun in one mode, ended in another
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
///  [accessor-mode]   put/copy-to in a read region, get/copy-from in a
///                    write region, read-modify-write outside a rw region
///  [call-in-region]  (WARNING) a call in a region to a function of the
///                    file that is not __always_inline
/// MODE=patch fixes the end of a mode mismatch that all its begins agree on.
///
// Confidence: High for ERROR, Moderate for WARNING
// Comments:
//  A mode mismatch is harmless where all regions end alike (x86).  Each
//  function is checked on its own: one that begins no region runs in the
//  caller region; a static __always_inline one that calls an end is an end.  A
//  positive begin, if (begin(...)) { }, is followed in its braces, a fault
//  label one label deep, not into if (0) from above.  masked_user_access_begin()
//  has no mode; the mode of a wrapper is read from its name (unsafe_get_*,
//  unsafe_put_*, unsafe_copy_*_{from,to}_user).  call-in-region judges the
//  own functions of the file (objtool judges the rest on x86), not in a return
//  statement, and places a call in a macro where the macro is used.  A scope
//  whose body is, without braces, a do-while or switch is not parsed as one.
// Options: --no-includes --include-headers
// Keywords: user_access_begin, user_access_end, scoped_user_read_access

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@
import re

def key(p):
	return (p.file, p.line, p.column, p.current_element)

def found(p, sev, cls, msg):
	FOUND.setdefault((key(p), cls), (p, '%s: [%s] %s(): %s' % (
		sev, cls, p.current_element, msg)))

def begun(pb):
	return '%s() on line %s' % (NAME[key(pb)], pb.line)

def reach(pb, pf, f, pr, via='', table=None):	# the call or return runs in the region of pb
	if pr and key(pr[0]) not in RET_END:
		found(pr[0], 'ERROR', 'missing-end', 'return%s leaves the region begun with '
		      '%s open' % (via, begun(pb)))
	elif pf and pb.current_element == pf[0].current_element:
		POS[key(pf[0])], CALL[key(pf[0])] = pf[0], f
		(REACHED if table is None else table).setdefault(key(pf[0]), {})[key(pb)] = (pb, via)

def regions(k):	# the regions the call at k runs in, the innermost last
	return sorted([*REACHED.get(k, {}).values(), *SCOPED.get(k, {}).values()],
		      key=lambda r: (int(r[0].line), int(r[0].column)))

def end_of(begin):
	return re.sub('^(masked_)?user_(rw_)?', 'user_', begin).replace('_begin', '_end')

// Only files that use the API are parsed: every rule depends on this one.
@gate@
iterator name scoped_user_read_access, scoped_user_read_access_size,
	scoped_user_write_access, scoped_user_write_access_size,
	scoped_user_rw_access, scoped_user_rw_access_size, scoped_guard,
	scoped_cond_guard;
position pr, pw, px, pn, pe;
statement S;
@@
(
\(scoped_user_read_access@pr(...) S\|scoped_user_read_access_size@pr(...) S\|
  scoped_user_write_access@pw(...) S\|scoped_user_write_access_size@pw(...) S\|
  scoped_user_rw_access@px(...) S\|scoped_user_rw_access_size@px(...) S\)
|
\(user_read_access_begin@pr\|masked_user_read_access_begin@pr\|
  user_write_access_begin@pw\|masked_user_write_access_begin@pw\|
  user_access_begin@px\|user_rw_access_begin@px\|masked_user_rw_access_begin@px\|
  masked_user_access_begin@pn\|user_read_access_end@pr@pe\|
  user_write_access_end@pw@pe\|user_access_end@px@pe\|user_rw_access_end@px@pe\)(...)
)

@script:python depends on gate@
@@
FOUND, NAME, MODE, POS, CALL, ACC, REACHED, SCOPED, COND, LABELS, FROM, END_AT, FNS, \
	ENDERS, ARG, CLOSED, FIX = [{} for i in range(17)]
BEGUN, RET_END = set(), set()

@script:python depends on gate@
pr << gate.pr = []; pw << gate.pw = []; px << gate.px = []; pn << gate.pn = []; pe << gate.pe = [];
@@
p = (pr + pw + px + pn)[0]
MODE[key(p)] = 'read' if pr else 'write' if pw else 'rw' if px else None
BEGUN.update([] if pe else [p.current_element])

@fn depends on gate@
attribute name __always_inline, nokprobe_inline, noinline;
identifier f, E =~ "^user_(read_|write_|rw_)?access_end$";
position pa, pn, pe;
type T;
@@
\(static __always_inline T f@pa(...) { ... when any
E@pe();
... when any
}\|static __always_inline T f@pa(...) { ... }\|
  static nokprobe_inline T f@pa(...) { ... }\|noinline T f@pn(...) { ... }\|T f(...) { ... }\)

@script:python depends on fn@
f << fn.f; pa << fn.pa = []; pn << fn.pn = []; pe << fn.pe = [];
@@
FNS[f] = 'inline' if pa else ' is out of line' if pn else ''
ENDERS.update({f: pe[0]} if pe else {})

// A call to a static __always_inline function that ends a region ends it.
@ender depends on gate@
identifier f;
position p : script:python(f) { f in ENDERS }, pr;
@@
\(return@pr <+... f@p(...) ...+>;\|f@p(...)\)

@script:python depends on ender@
f << ender.f; p << ender.p; pr << ender.pr = [];
@@
RET_END.update(key(r) for r in pr)
END_AT.update({} if pr else {key(p[0]): (p[0], f)})
MODE[key(p[0])] = MODE[key(ENDERS[f])]

// ---- What runs in a region -------------------------------------------
// Every accessor and end; the labels of accessors, failed begins and scopes.
@label depends on gate@
identifier A =~ "^unsafe_([^m]|m[^e])", B =~ "^user_(read_|write_|rw_)?access_begin$";
identifier E =~ "^user_(read_|write_|rw_)?access_end$", L;
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
expression ptr, n;
position pa, pb, pe;
statement S;
@@
(
\(if (!B@pb(ptr, n)) goto L;\|if (unlikely(!B@pb(ptr, n))) goto L;\)
|
\(it@pb(ptr, L) S\|it@pb(ptr, n, L) S\)
|
\(A@pa(..., L)\|E@pe()\)
)

@script:python depends on label@
A << label.A = ""; B << label.B = ""; it << label.it = ""; E << label.E = "";
L << label.L = ""; pa << label.pa = []; pb << label.pb = []; pe << label.pe = [];
@@
for p in pa + pb:
	LABELS.setdefault((p.current_element, L), []).extend(pb)
	ACC.update({key(p): (p, A, L)} if pa else {})
	NAME.update({} if pa else {key(p): B + it})
END_AT.update({key(p): (p, E) for p in pe})

// Every call or return a path from a begin or a label reaches before an end.
@open depends on gate disable neg_if exists@
identifier B =~ "^(masked_)?user_(read_|write_|rw_)?access_begin$";
identifier B2 =~ "^(masked_)?user_(read_|write_|rw_)?access_begin$";
identifier f, e, v, L;
expression ptr, n, res;
position pl : script:python(L) { (pl[0].current_element, L) in LABELS };
position pb, pf, pr, pe : script:python() { key(pe[0]) in END_AT };
statement S, S2;
type T;
@@
(
\(if (!B@pb(ptr, n)) S\|if (unlikely(!B@pb(ptr, n))) S\|res = B@pb(ptr);\|
  T v = B@pb(ptr);\|B@pb(ptr);\|(void)B@pb(ptr);\|L@pl:\)
... when != e@pe(...)
    when != B2(...)
    when any
(
return@pr ...;
|
f@pf(...)
)
|
if (B@pb(ptr, n)) {
... when != e@pe(...)
    when != B2(...)
    when any
(
return@pr ...;
|
f@pf(...)
)
... when any
} else S2
)

@script:python depends on open@
B << open.B = ""; pb << open.pb = []; L << open.L = ""; pl << open.pl = [];
pf << open.pf = []; f << open.f = ""; pr << open.pr = [];
@@
for p in pb:
	NAME[key(p)] = B
	reach(p, pf, f, pr)
for p in pl:
	FROM.setdefault((p.current_element, L), []).append((pf, f, pr))

// The paths from a label belong to the regions of the accessors jumping there.
@script:python depends on gate@
@@
for k, (pa, A, L) in ACC.items():
	for pb, via in list(REACHED.get(k, {}).values()):
		for pf, f, pr in FROM.get((pa.current_element, L), ()):
			reach(pb, pf, f, pr, ' on the fault path of %s() on line %s' % (A, pa.line))
for (fn, L), shut in LABELS.items():
	for pb, (pf, f, pr) in ((pb, r) for pb in shut for r in FROM.get((fn, L), ())):
		if pf and (key(pf[0]) in END_AT or key(pf[0]) in ACC):
			CLOSED[key(pf[0])] = '%s() reachable through label %s when %s %s: no region ' \
				'is open' % (f, L, begun(pb), 'fails' if MODE[key(pb)] else 'is rejected')

// Every call in a scope body, one at a time: a nest would cost time exponential
// in their number.  An unbraced body is a call, if, for, while or scope; a
// disjunction tries a branch only where those before fail: hence scope2.
@scope depends on gate exists@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
iterator it2 =~ "^scoped_user_(read|write|rw)_access(_size)?$";
identifier f;
expression E;
position ps, pf, pi;
statement S1;
@@
it@ps(...) \({ ... when any
f@pf(...)
... when any
}\|if (E) S1 else { ... when any
f@pf(...)
... when any
}\|if (E) { ... when any
f@pf(...)
... when any
}\|for (...;...;...) { ... when any
f@pf(...)
... when any
}\|while (E) { ... when any
f@pf(...)
... when any
}\|it2@pi(...) S1\)

@script:python depends on scope@
ps << scope.ps; pf << scope.pf = []; f << scope.f = ""; pi << scope.pi = [];
@@
reach(ps[0], pf, f, [], '', SCOPED)
for p in pi:
	found(p, 'ERROR', 'nesting', '%s() inside the scope %s' % (NAME[key(p)], begun(ps[0])))

@scope2 depends on gate exists@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
identifier f;
expression E;
position ps, pf;
statement S1;
@@
it@ps(...) if (E) { ... when any
f@pf(...)
... when any
} else S1

@script:python depends on scope2@
ps << scope2.ps; pf << scope2.pf; f << scope2.f;
@@
reach(ps[0], pf, f, [], '', SCOPED)

@cond depends on gate@
identifier B =~ "^user_(read_|write_|rw_)?access_begin$";
identifier E =~ "^user_(read_|write_|rw_)?access_end$";
expression C, C2, ptr, n;
position pb, pe;
statement S;
@@
\(if (\(C && !B@pb(ptr, n)\|C && unlikely(!B@pb(ptr, n))\)) S\|if (C2) E@pe();\)

@script:python depends on cond@
B << cond.B = ""; C << cond.C = ""; pb << cond.pb = [];
E << cond.E = ""; C2 << cond.C2 = ""; pe << cond.pe = [];
@@
for p in pb:
	COND[key(p)] = (p, B, str(C).replace('! ', '!'), {})
for (b, _, _, ends), p in ((c, p) for c in COND.values() for p in pe):
	if p.current_element == b.current_element and int(p.line) > int(b.line):
		ends[int(p.line)] = '%s() on line %s only when %s' % (E, p.line,
								      str(C2).replace('! ', '!'))

// ---- nesting, accessor-mode, mode-mismatch, call-in-region, outside ----
@opener depends on gate@
identifier O =~ "^((masked_)?user_(read_|write_|rw_)?access_begin|get_user_inline|put_user_inline)$";
identifier AR =~ "^unsafe_(get_|copy_[a-z_]*from_user$)";
identifier AW =~ "^unsafe_(put_|copy_[a-z_]*to_user$)";
identifier AX = {unsafe_try_cmpxchg_user, unsafe_atomic_op1, unsafe_atomic_op2};
position p : script:python() { key(p[0]) in POS }, pr, pw, px;
@@
\(O@p(...)\|AR@p@pr(...)\|AW@p@pw(...)\|AX@p@px(...)\)

@script:python depends on opener@
O << opener.O = ""; p << opener.p; pr << opener.pr = []; pw << opener.pw = [];
@@
k = key(p[0])
for pb, via in regions(k)[-1:]:
	m = MODE.get(key(pb))
	if O:
		found(p[0], 'ERROR', 'nesting', '%s() inside the region begun with %s%s'
		      % (O, begun(pb), via))
	elif m and m != 'rw' and not (pr and m == 'read' or pw and m == 'write'):
		found(p[0], 'ERROR', 'accessor-mode', '%s() %s user memory in the %s-only region '
		      'begun with %s' % (CALL[k], 'reads' if pr else 'writes' if pw else
		      'reads and writes', m, begun(pb)))

// A call in a macro of the file is placed at its first argument: the call site.
@site depends on gate@
identifier g;
expression E;
position pg : script:python() { key(pg[0]) in POS }, pa;
@@
g@pg(E@pa, ...)

@script:python depends on site@
pg << site.pg; pa << site.pa;
@@
ARG[key(pg[0])] = pa[0]

@script:python depends on gate@
@@
for k, pf in POS.items():
	inner = regions(k)
	for (outer, via), (ps, _) in zip(inner, inner[1:]):
		if key(ps) in SCOPED.get(k, ()):	# a scope in a region or a scope
			found(ps, 'ERROR', 'nesting', '%s() inside the region begun with %s%s'
			      % (NAME[key(ps)], begun(outer), via))
	for b, (pb, via) in REACHED.get(k, {}).items() if k in END_AT else ():
		if MODE[b] not in (None, MODE[k]):
			found(pf, 'WARNING', 'mode-mismatch', 'region begun with %s ended with %s()%s, '
			      'not %s()' % (begun(pb), END_AT[k][1], via, end_of(NAME[b])))
			if len({MODE[b] for b in REACHED[k]} - {None}) == 1 and END_AT[k][1][:5] == 'user_':
				FIX[k] = end_of(NAME[b])	# MODE=patch: every begin agrees
	why = FNS.get(CALL.get(k), 'inline')
	if inner and why != 'inline':
		pb, p = inner[-1][0], ARG.get(k, pf) if int(pf.line) < int(inner[-1][0].line) else pf
		found(p, 'WARNING', 'call-in-region', ('%s()%s; called inside the region begun '
		      'with %s' if why else 'call to %s()%s inside the region begun with %s: '
		      'defined in this file without __always_inline') % (CALL[k], why, begun(pb)))
conds = {c[0].current_element for c in COND.values()}
for k, (p, name, *_) in [*ACC.items(), *END_AT.items()]:
	if p.current_element not in BEGUN - conds - {'something_else'}:
		continue
	if k in END_AT and k in SCOPED:
		found(p, 'ERROR', 'end-without-begin', '%s() inside the scope %s, which ends the '
		      'region itself' % (name, begun(regions(k)[-1][0])))
	elif k not in SCOPED and (k not in REACHED or k in CLOSED):
		found(p, 'ERROR', 'end-without-begin' if k in END_AT else 'access-outside-region',
		      CLOSED.get(k, '%s() reachable with no region open' % name))
for pb, b, c, ends in COND.values():
	found(pb, 'WARNING', 'conditional-region', '%s() here runs only when %s, and %s: the '
	      'region is right only if %s; split the function' % (b, c, ', '.join(ends[n]
	      for n in sorted(ends)) if ends else 'no end depends on a condition', 'these '
	      'conditions agree on every path' if ends else 'every end runs when ' + c))

@script:python depends on gate && report@
@@
for k in sorted(FOUND):
	coccilib.report.print_report(*FOUND[k])

@script:python depends on gate && org@
@@
for k in sorted(FOUND):
	coccilib.org.print_safe_todo(*FOUND[k])

@depends on context && gate@
identifier f;
iterator it;
position p : script:python() { any(k[0] == key(p[0]) for k in FOUND) };
statement S;
@@
(
* return@p ...;
|
* it@p(...) S
|
* f@p(...)
)

@depends on patch && gate@
identifier E;
position p : script:python() { key(p[0]) in FIX };
fresh identifier N = script:python(p) { FIX[key(p[0])] };
@@
- E@p()
+ N()
