// SPDX-License-Identifier: GPL-2.0-only
/// Find user accesses whose address their region does not cover: not
/// checked by the begin, not masked by the masked pointer, or opened on a
/// stale copy of the checked pointer.  A region is begun by (masked_)
/// user_*access_begin(), or is a scoped_user_*_access*() scope; it covers
/// the user memory of the pointer given to it, and masks it if masked.
///  [range]           (WARNING) an accessor address not based on the begin
///                    pointer, or reached through the begin pointer after it
///                    got a new value inside the region (the begin checked
///                    the range of the old one)
///  [masked-pointer]  (WARNING) the result of masked_user_access_begin()
///                    discarded (a bare call, a cast to void, or stored in
///                    a variable no accessor of the region uses), or the
///                    unmasked pointer used inside the region
///  [stale-pointer]   the pointer a scope or begin opens on is a copy taken
///                    before the variable it was copied from was changed
///                    (truncated, aligned, advanced) and checked: the region
///                    covers the old value, which nobody checked
///
// Confidence: High for ERROR, Moderate for WARNING
// Comments:
//  An accessor belongs to the last region begun before it in its function;
//  its address is based on the region pointer when it names it or a
//  variable assigned from it or to it, two assignments deep (for a scope,
//  inside the scope).  A second user pointer accessed in a region has no
//  range check there and no speculation mask; whether that matters is an
//  argument the code does not show (the rseq code of mainline), so range
//  and masked-pointer are warnings.  False positives: a pointer derived
//  through a call or three assignments.  Only the accessors of the API are
//  judged.
// Options: --no-includes --include-headers
// Keywords: masked_user_access_begin, scoped_user_read_access, unsafe_get_user

virtual context
virtual org
virtual report

@initialize:python@
@@
import re

def key(p):
	return (p.file, p.line, p.column, p.current_element)

def line(p):
	return 'line %s' % p.line

def found(p, sev, cls, msg):
	FOUND.setdefault((key(p), cls), (p, '%s: [%s] %s(): %s' % (
		sev, cls, p.current_element, msg)))

def c(e):
	"""An expression as the kernel spells it: spatch spaces every token."""
	out, prev, glue, operand = '', '', True, False
	for t in str(e).split():
		if glue or t in ('->', '.', '[', ']', ')', '++', '--', ',') or \
		   (t == '(' and operand) or (prev == '*' and t == '*'):
			out += t
		else:
			out += ' ' + t
		glue = t in ('->', '.', '[', '(') or (t in '&*!~-+' and not operand) or \
		       (t == ')' and prev == '*')
		operand = (t[-1].isalnum() or t[-1] == '_' or t in (')', ']', '++', '--')) and \
			  not (t == ')' and prev == '*')
		prev = t
	return out.replace(') (', ')(')

def region_of(pa):
	"""The last region begun before the accessor at pa, in its function."""
	before = [r for r in REGION.values() if r[0].current_element == pa.current_element
		  and pa.current_element != 'something_else'
		  and (int(r[0].line), int(r[0].column)) < (int(pa.line), int(pa.column))]
	return max(before, key=lambda r: (int(r[0].line), int(r[0].column)), default=None)

def based(pb, pa, how):
	BASED.setdefault((key(pb[0]), key(pa[0])), []).append(how)

// Only files that use the API are parsed: every rule depends on this one.
@gate@
iterator name scoped_user_read_access, scoped_user_read_access_size,
	scoped_user_write_access, scoped_user_write_access_size,
	scoped_user_rw_access, scoped_user_rw_access_size, scoped_guard,
	scoped_cond_guard;
statement S;
@@
(
\(scoped_user_read_access(...) S\|scoped_user_read_access_size(...) S\|
  scoped_user_write_access(...) S\|scoped_user_write_access_size(...) S\|
  scoped_user_rw_access(...) S\|scoped_user_rw_access_size(...) S\)
|
\(user_access_begin\|user_read_access_begin\|user_write_access_begin\|
  user_rw_access_begin\|masked_user_access_begin\|masked_user_read_access_begin\|
  masked_user_write_access_begin\|masked_user_rw_access_begin\)(...)
)

@script:python depends on gate@
@@
FOUND, REGION, ADDR, BASED, SPLIT = {}, {}, {}, {}, {}

// ---- The regions, the accessors and their addresses ------------------
@region depends on gate@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
identifier B =~ "^(masked_)?user_(read_|write_|rw_)?access_begin$";
expression P;
position pb;
statement S;
type T;
@@
\(it@pb(\((T)P\|P\), ...) S\|B@pb(\((T)P\|P\), ...)\)

@script:python depends on region@
it << region.it = ""; B << region.B = ""; P << region.P; pb << region.pb;
@@
REGION[key(pb[0])] = (pb[0], it or B, P)

@named depends on gate@
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
identifier B =~ "^(masked_)?user_(read_|write_|rw_)?access_begin$", P;
position pb;
statement S;
type T;
@@
\(it@pb(\((T)P\|P\), ...) S\|B@pb(\((T)P\|P\), ...)\)

@addr depends on gate@
identifier A1 =~ "^unsafe_(get_user|put_user|copy_from_user)$";
identifier A0 =~ "^unsafe_(copy_to_user|try_cmpxchg_user)$";
identifier A2 =~ "^unsafe_atomic_op(1|2)$";
expression X, E1, E2;
constant C;
type T;
position pa, pc;
@@
\(A1@pa(E1, \(C@pc\|(T)C@pc\|(T)(C@pc)\|X\), ...)\|A0@pa(X, ...)\|A2@pa(E1, E2, X, ...)\)

@script:python depends on addr@
A1 << addr.A1 = ""; A0 << addr.A0 = ""; A2 << addr.A2 = "";
X << addr.X = ""; C << addr.C = ""; pa << addr.pa; pc << addr.pc = [];
@@
ADDR[key(pa[0])] = (pa[0], A1 or A0 or A2, X or C, bool(pc))

// Addresses that name the pointer of the region, or a variable tied to it by
// an assignment either way, two deep.
@ok0@
expression region.P;
identifier A1 =~ "^unsafe_(get_user|put_user|copy_from_user)$";
identifier A0 =~ "^unsafe_(copy_to_user|try_cmpxchg_user)$";
identifier A2 =~ "^unsafe_atomic_op(1|2)$";
expression E1, E2;
position pa;
@@
\(A1@pa(E1, <+... P ...+>, ...)\|A0@pa(<+... P ...+>, ...)\|A2@pa(E1, E2, <+... P ...+>, ...)\)

@script:python depends on region && ok0@
pb << region.pb; pa << ok0.pa;
@@
based(pb, pa, None)

@tie1@
identifier named.P, q;
expression E;
position pq, pr;
type T, T2;
@@
(
T q@pq = <+... P ...+>;
|
T P = \(q@pr\|(T2)q@pr\|q@pr + E\|q@pr - E\|(T2)q@pr + E\|(T2)q@pr - E\);
|
P = \(q@pr\|(T2)q@pr\|q@pr + E\|q@pr - E\|(T2)q@pr + E\|(T2)q@pr - E\)
|
q@pq = <+... P ...+>
)

@ok1@
identifier tie1.q;
identifier A1 =~ "^unsafe_(get_user|put_user|copy_from_user)$";
identifier A0 =~ "^unsafe_(copy_to_user|try_cmpxchg_user)$";
identifier A2 =~ "^unsafe_atomic_op(1|2)$";
expression E1, E2;
position pa;
@@
\(A1@pa(E1, <+... q ...+>, ...)\|A0@pa(<+... q ...+>, ...)\|A2@pa(E1, E2, <+... q ...+>, ...)\)

@script:python depends on named && tie1 && ok1@
pb << named.pb; q << tie1.q; pq << tie1.pq = []; pr << tie1.pr = []; pa << ok1.pa;
@@
based(pb, pa, (q, (pq or pr)[0], bool(pq)))

@tie2@
identifier tie1.q, q2;
position pq;
type T;
@@
(
T q2@pq = <+... q ...+>;
|
q2@pq = <+... q ...+>
)

@ok2@
identifier tie2.q2;
identifier A1 =~ "^unsafe_(get_user|put_user|copy_from_user)$";
identifier A0 =~ "^unsafe_(copy_to_user|try_cmpxchg_user)$";
identifier A2 =~ "^unsafe_atomic_op(1|2)$";
expression E1, E2;
position pa;
@@
\(A1@pa(E1, <+... q2 ...+>, ...)\|A0@pa(<+... q2 ...+>, ...)\|A2@pa(E1, E2, <+... q2 ...+>, ...)\)

@script:python depends on named && tie2 && ok2@
pb << named.pb; q << tie2.q2; pq << tie2.pq; pa << ok2.pa;
@@
based(pb, pa, (q, pq[0], True))

// The result of masked_user_access_begin() thrown away, or kept in another
// variable than its argument.
@masked depends on gate@
identifier MB =~ "^masked_user_(read_|write_|rw_)?access_begin$";
expression P, R;
identifier v;
position pd, ps, pm;
type T;
@@
(
MB@pd(P);
|
 (void)MB@pd(P);
|
P = MB@pm(P);
|
R = MB@ps(P);
|
T v = MB@ps(P);
)

@script:python depends on masked@
MB << masked.MB; P << masked.P; pd << masked.pd = []; ps << masked.ps = [];
@@
if pd:
	found(pd[0], 'WARNING', 'masked-pointer', 'result of %s() discarded: the accesses '
	      'use the unmasked %s' % (MB, c(P)))
for p in ps:
	SPLIT[key(p)] = [p, MB, P, False]

@script:python depends on gate@
@@
for pa, a, x, const in ADDR.values():
	r = region_of(pa)
	if r is None:
		continue
	pb, it, P = r
	how = BASED.get((key(pb), key(pa)), [])
	begun, scope = '%s() on %s' % (it, line(pb)), it.startswith('scoped')
	inside = [h for h in how if h is None or not scope or
		  int(pb.line) < int(h[1].line) <= int(pa.line)]
	if key(pb) in SPLIT:
		SPLIT[key(pb)][3] |= any(h is not None for h in how)
		if None in how:
			found(pa, 'WARNING', 'masked-pointer', '%s() uses the unmasked pointer in %s; '
			      'the region begun with %s must use its result' % (a, c(x), begun))
	elif how and not inside:
		q, pq, derived = how[0]
		found(pa, 'WARNING', 'masked-pointer', '%s() uses %s, %s outside the scope %s: it '
		      'bypasses the masked pointer' % (a, q, 'derived from ' + c(P) if derived
		      else 'from which %s was derived' % c(P), begun))
	elif const or not (how or any(None in h for (kb, ka), h in BASED.items() if ka == key(pa))):
		found(pa, 'WARNING', 'range', '%s, the address of %s(), %s based on %s given to %s%s'
		      % (c(x), a, 'is an integer constant: it is not' if const else 'is not', c(P),
			 begun, ': the access is not covered by the scope, which checks and masks %s '
			 'only' % c(P) if scope and not const else ''))
for pb, mb, P, used in SPLIT.values():
	if not used:
		found(pb, 'WARNING', 'masked-pointer', 'result of %s(%s) stored where no accessor '
		      'of the region uses it: the accesses bypass the mask' % (mb, c(P)))

// The begin pointer given a new value inside the region, then used.
@self depends on gate@
expression P;
position pq;
@@
P@pq = <+... P ...+>

@moved depends on gate exists@
identifier B =~ "^user_(read_|write_|rw_)?access_begin$";
identifier E =~ "^user_(read_|write_|rw_)?access_end$";
identifier A =~ "^unsafe_(get_user|put_user|copy_from_user)$";
expression P, n, V, X;
position pb, pq != self.pq, pa;
statement S;
@@
if (!B@pb(P, n)) S
... when != E()
P@pq = V
... when != E()
A@pa(X, <+... P ...+>, ...)

@script:python depends on moved@
B << moved.B; P << moved.P; V << moved.V; pb << moved.pb; pq << moved.pq; pa << moved.pa;
@@
found(pa[0], 'WARNING', 'range', '%s, the address of %s(), goes through %s, set to %s on %s '
      'inside the region begun with %s(%s) on %s: the begin checked the range of the old '
      'value' % (c(ADDR[key(pa[0])][2]), ADDR[key(pa[0])][1], P, c(V), line(pq[0]), B,
		 c(P), line(pb[0])))

// ---- stale-pointer ---------------------------------------------------
// P = V, then V changed and tested, with P not set again: the code checked
// the new value of V, the region covers the old one of P (emulate_dcbz() took uea
// before aligning ea).  A change not tested afterwards leaves a copy the
// code may want (a cursor advanced past what the region covers).
@stale depends on gate exists@
identifier P, V;
identifier B =~ "^(masked_)?user_(read_|write_|rw_)?access_begin$";
iterator it =~ "^scoped_user_(read|write|rw)_access(_size)?$";
expression E, E2;
assignment operator aop;
type T, T2;
statement S, S2;
position pc, pv, pk, pb;
@@
\(T P@pc = V;\|T P@pc = (T2)V;\|P@pc = V;\|P@pc = (T2)V;\)
... when != P = E2
    when any
\(V@pv aop E;\|V@pv++;\|V@pv--;\)
... when != P = E2
    when any
if (<+... V@pk ...+>) S
... when != P = E2
    when any
\(it@pb(P, ...) S2\|B@pb(P, ...)\)

@script:python depends on stale@
P << stale.P; V << stale.V; pc << stale.pc; pv << stale.pv; pk << stale.pk; pb << stale.pb;
@@
found(pb[0], 'ERROR', 'stale-pointer', 'the region opens on %s, copied from %s on %s; %s was '
      'changed on %s and tested on %s: the region covers the value from before the change, '
      'which the code did not check' % (P, V, line(pc[0]), V, line(pv[0]), line(pk[0])))

// ---- Output ----------------------------------------------------------
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
* it@p(...) S
|
* f@p(...)
)
