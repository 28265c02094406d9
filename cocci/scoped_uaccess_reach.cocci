// SPDX-License-Identifier: GPL-2.0-only
/// Find user accesses that reach further than their region covers: past the
/// size a scope or begin was given, or beyond the first page of a masked
/// pointer.  A region is begun by (masked_)user_*access_begin(), or is a
/// scoped_user_*_access*() scope; a scope without _size covers sizeof(*P).
///  [scope-size]      an accessor at &P[C] or P + C, C >= C1, in a region of
///                    C1 objects of P (sizeof(*P), sizeof(T) for T *P, C1 *
///                    sizeof(T)): the access lies past the range it checked
///  [masked-range]    (WARNING) the first access of a masked region or
///                    scope may lie beyond PAGE_SIZE from the pointer
///
// Confidence: High for ERROR, Moderate for WARNING
// Comments:
//  An accessor belongs to the last region begun before it in its function.
//  scope-size compares integer constants only: a size or an index that is
//  not one (a variable, a macro, a size in bytes) is left alone, and so is
//  an address derived from the pointer through another variable or a cast;
//  sizeof(T) counts only when P is declared T *P.  False positives of
//  masked-range: an index that is not a counter from 0 is taken as large; it
//  judges the first accessor after the begin only.
// Options: --no-includes --include-headers
// Keywords: scoped_user_read_access_size, user_read_access_begin, masked_user_access_begin

virtual context
virtual org
virtual report

@initialize:python@
@@
import re

def key(p):
	return (p.file, p.line, p.column, p.current_element)

def at(p, end=''):
	return (int(getattr(p, 'line' + end)), int(getattr(p, 'column' + end)))

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

def num(s):
	"""A decimal or hexadecimal integer constant, else None."""
	m = re.match(r'^(0|[1-9][0-9]*|0[xX][0-9a-fA-F]+)[uUlL]*$', str(s).strip())
	return int(m.group(1), 0) if m else None

def region_of(pa):
	"""The last region begun before the accessor at pa, in its function."""
	before = [r for r in REGION.values() if r[0].current_element == pa.current_element
		  and at(r[0]) < at(pa)]
	return max(before, key=lambda r: at(r[0]), default=None)

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
FOUND, REGION, ADDR, SIZE, FAR = {}, {}, {}, {}, {}

// ---- The regions, their sizes and the accessors ----------------------
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

// A size of C1 objects of the pointer's type; a scope without _size: one.
@sized depends on gate@
iterator it =~ "^scoped_user_(read|write|rw)_access_size$";
iterator it1 =~ "^scoped_user_(read|write|rw)_access$";
identifier B =~ "^user_(read_|write_|rw_)?access_begin$";
type T;
{T *, const T *} P;
expression Q;
constant C1;
position pb;
statement S;
@@
\(it@pb(P, \(sizeof(T)\|C1 * sizeof(T)\|sizeof(T) * C1\), ...) S\|
  B@pb(P, \(sizeof(T)\|C1 * sizeof(T)\|sizeof(T) * C1\), ...)\|
  it@pb(Q, \(sizeof(*Q)\|C1 * sizeof(*Q)\|sizeof(*Q) * C1\), ...) S\|
  B@pb(Q, \(sizeof(*Q)\|C1 * sizeof(*Q)\|sizeof(*Q) * C1\), ...)\|it1@pb(Q, ...) S\)

@script:python depends on sized@
C1 << sized.C1 = "1"; pb << sized.pb;
@@
SIZE.update({key(pb[0]): num(C1)} if num(C1) else {})

@addr depends on gate@
identifier A1 =~ "^unsafe_(get_user|put_user|copy_from_user)$";
identifier A0 =~ "^unsafe_(copy_to_user|try_cmpxchg_user)$";
identifier A2 =~ "^unsafe_atomic_op(1|2)$";
expression X, E1, E2;
position pa, px;
@@
\(A1@pa(E1, X@px, ...)\|A0@pa(X@px, ...)\|A2@pa(E1, E2, X@px, ...)\)

@script:python depends on addr@
A1 << addr.A1 = ""; A0 << addr.A0 = ""; A2 << addr.A2 = ""; X << addr.X; pa << addr.pa;
px << addr.px;
@@
ADDR[key(pa[0])] = (pa[0], A1 or A0 or A2, X, px[0])

// ---- scope-size --------------------------------------------------------
// The address of an accessor C objects past the region's pointer.
@past@
expression region.P;
constant C;
position pc;
@@
\(P[C@pc]\|P + C@pc\)

@script:python depends on region && past@
pb << region.pb; pc << past.pc; C << past.C;
@@
n, i, p = SIZE.get(key(pb[0])), num(C), pc[0]
for pa, a, x, px in ADDR.values():
	r = region_of(pa)
	if r and key(r[0]) == key(pb[0]) and n and i is not None and i >= n and \
	   at(px) <= at(p) and at(p, '_end') <= at(px, '_end'):
		found(pa, 'ERROR', 'scope-size', '%s, the address of %s(), is past the range of %s() '
		      'on line %s, which covers %s[0]%s only' % (c(x), a, r[1], pb[0].line, c(r[2]),
		      ' to %s[%d]' % (c(r[2]), n - 1) if n > 1 else ''))

// ---- masked-range ----------------------------------------------------
// The first accessor after a masked begin or a scope, at an offset from its
// pointer that is neither a small constant nor a counter from 0: for (i = 0;
// ...), or i = 0 with no assignment to i on any path to it (a do-while).
@reset depends on gate exists@
identifier i, A =~ "^unsafe_([^m]|m[^e])";
expression E : script:python() { num(E) != 0 };
position pi;
type T;
@@
\(i = 0;\|T i = 0;\)
...
i = E
... when != i = 0
A(..., <+... i@pi ...+>, ...)

@loop0 depends on gate exists@
identifier i, A =~ "^unsafe_([^m]|m[^e])";
expression E;
position pi != reset.pi;
type T;
@@
(
for (i = 0; ...; ...) { <+... A(..., <+... i@pi ...+>, ...) ...+> }
|
\(i = 0;\|T i = 0;\)
... when != i = E
A(..., <+... i@pi ...+>, ...)
)

@far@
expression region.P;
identifier A =~ "^unsafe_([^m]|m[^e])", i;
constant C =~ "^(51[2-9]|5[2-9][0-9]|[6-9][0-9][0-9]|[1-9][0-9]{3,}|0[xX]0*([2-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3,}))[uUlL]*$";
position pa, pi != loop0.pi;
@@
A@pa(..., <+... \(P + C\|P[C]\|P + i@pi\|P[i@pi]\) ...+>, ...)

@script:python depends on region && far@
pb << region.pb; pa << far.pa;
@@
FAR.setdefault(key(pb[0]), set()).add(key(pa[0]))

@script:python depends on gate@
@@
for k, (pb, it, P) in REGION.items():
	later = [pa for pa, a, x, px in ADDR.values() if pa.current_element == pb.current_element
		 and at(pa) > at(pb)]
	first = min(later, key=at, default=None)
	if first and key(first) in FAR.get(k, ()) and it.startswith(('scoped', 'masked')):
		found(first, 'WARNING', 'masked-range', 'first access %s after %s() on line %s may '
		      'lie beyond PAGE_SIZE from %s; masking relies on the guard page'
		      % (c(ADDR[key(first)][2]), it, pb.line, c(P)))

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
