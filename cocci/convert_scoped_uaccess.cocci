// SPDX-License-Identifier: GPL-2.0-only
/// Convert open-coded user access regions into scoped_user_*_access().
///
/// A region begun by if (!user_{read_,write_,rw_,}access_begin(p, n)) ...
/// (or the masked prologue if (can_do_masked_user_access()) p =
/// masked_user_access_begin(p); else if (!user_*_access_begin(p, n)) ...)
/// and ended by user_*_access_end() on every exit becomes
///
///	scoped_user_{read,write,rw}_access[_size](p, [n,] label) {
///		...
///	}
///
/// The scope ends the region on every exit, so the end calls of the
/// region, of its fault labels and before its early returns go.  The mode
/// is what the accessors do (the begin's where an access is out of
/// sight); the _size variant is used unless n is sizeof(*p); label is the
/// label the begin failure jumped to, or one that does what it did.
///
/// Regions that are not in that shape yet are brought into it by named
/// transformations, one pass each (-D <name>, in this order): invert_begin
/// (a begin tested positively becomes a region with a label),
/// local_pointer (a local for a pointer expression), tail_out (an early
/// exit that calls out after ending access jumps to a label after the
/// function instead), cursor (a cursor walks where the
/// const scope pointer cannot), rederive (a pointer computed from the
/// begin's pointer before the region is computed again inside it),
/// range_check (access_ok() of a variable range stays in front of a
/// masked scope), label (a label that does what the begin failure did).
/// Then -D patch alone writes the scopes.  -D report prints one line per
/// region begin:
///   file:line:col: REGION [converted-<shape>[+transformation...]|skip:<reason>] function(): text
/// Every pass analyses the file as it is then (the Python of
/// converter/scoped_uaccess/analysis/), so a done transformation is
/// not asked for again and report and patch mode cannot disagree.
///
// Confidence: High (a region is converted only if every check passes)
// Copyright: (C) 2026 Seed 856ff4c8 maintainers
// Comments:
//  The decisions (which region, which transformation, where) are made by
//  the Python package scoped_uaccess.analysis, imported with
//  PYTHONPATH=converter; the rules below match the facts it needs and
//  rewrite where it says.  SmPL cannot wrap existing statements into a
//  new block without reprinting them (and losing their comments), so the
//  scope rule emits the body's source text as one identifier (scope_pass.py).
//  Run with the options below and --macro-file cocci/kernel-macros.h;
//  --smpl-spacing keeps kernel spacing in the scope line.  The driver
//  (converter/scoped-uaccess convert) runs the passes and checks the result.
//  Deliberate exclusions: see the skip reasons in cocci/README.md.
// Options: --no-includes --include-headers --smpl-spacing

virtual patch
virtual report
virtual invert_begin
virtual local_pointer
virtual tail_out
virtual cursor
virtual rederive
virtual range_check
virtual label

@initialize:python@
@@
from scoped_uaccess.analysis import facts, hooks, plan
hooks.start()

// ---- facts --------------------------------------------------------------

@begins depends on patch || report@
identifier B =~ "^(masked_)?user_(read_|write_|rw_)?access_begin$";
position pb;
@@
B@pb(...)

@script:python@
b << begins.B;
pb << begins.pb;
@@
facts.record_begin(pb[0], b)

@ifplain depends on begins@
identifier B =~ "^user_(read_|write_|rw_)?access_begin$";
expression P, N;
statement S0;
position pb;
@@
(
if (!B@pb(P, N)) S0
|
if (unlikely(!B@pb(P, N))) S0
)

@script:python@
p << ifplain.P;
n << ifplain.N;
pb << ifplain.pb;
@@
facts.record_if(pb[0], 'plain', str(p), str(n))

@ifmasked depends on begins@
identifier MB =~ "^masked_user_(read_|write_|rw_)?access_begin$";
identifier B =~ "^user_(read_|write_|rw_)?access_begin$";
expression P, N;
statement S0;
position pm, pb;
@@
if (can_do_masked_user_access())
	P = MB@pm(P);
else if (!B@pb(P, N)) S0

@script:python@
p << ifmasked.P;
n << ifmasked.N;
pm << ifmasked.pm;
pb << ifmasked.pb;
@@
facts.record_if(pm[0], 'masked', str(p), str(n))
facts.record_if(pb[0], 'inner', str(p), str(n), masked=pm[0])

@ifpositive depends on begins@
identifier B =~ "^user_(read_|write_|rw_)?access_begin$";
expression P, N;
statement S0, S1;
position pb;
@@
(
if (B@pb(P, N)) S0 else S1
|
if (likely(B@pb(P, N))) S0 else S1
)

@script:python@
pb << ifpositive.pb;
@@
facts.record_if(pb[0], 'positive', has_else=True)

@ifpositive1 depends on begins@
identifier B =~ "^user_(read_|write_|rw_)?access_begin$";
expression P, N;
statement S0;
position pb;
@@
(
if (B@pb(P, N)) S0
|
if (likely(B@pb(P, N))) S0
)

@script:python@
pb << ifpositive1.pb;
@@
facts.record_if(pb[0], 'positive')

@allst depends on begins@
statement S;
position ps;
@@
S@ps

@script:python@
ps << allst.ps;
@@
facts.record_stmt(ps[0])

@ends depends on begins@
identifier END =~ "^user_(read_|write_|rw_)?access_end$";
position pe;
@@
END@pe()

@script:python@
pe << ends.pe;
@@
facts.record_end(pe[0])

@calls depends on begins@
identifier f;
position pc;
@@
f@pc(...)

@script:python@
f << calls.f;
pc << calls.pc;
@@
facts.record_call(pc[0], f)

@accs depends on begins@
identifier A =~ "^unsafe_";
expression list ES;
identifier L;
position pa;
@@
A@pa(ES, L)

@script:python@
a << accs.A;
es << accs.ES;
l << accs.L;
pa << accs.pa;
@@
facts.record_accessor(pa[0], a, str(es), l)

@gotos depends on begins@
identifier L;
position pg;
@@
goto L@pg;

@script:python@
l << gotos.L;
pg << gotos.pg;
@@
facts.record_goto(pg[0], l)

@assigns depends on begins@
identifier X;
expression E;
assignment operator AOP;
position pa;
@@
(
X@pa AOP E
|
X@pa++
|
X@pa--
)

@script:python@
x << assigns.X;
pa << assigns.pa;
@@
facts.record_assign(pa[0], x)

@always_fn depends on begins@
attribute name __always_inline;
identifier fn;
type T;
position p;
@@
static __always_inline T fn@p(...) { ... }

@script:python@
fn << always_fn.fn;
p << always_fn.p;
@@
facts.record_function(fn, 'always', p[0].file)

@inline_fn depends on begins@
identifier fn;
type T;
position p;
@@
static inline T fn@p(...) { ... }

@script:python@
fn << inline_fn.fn;
p << inline_fn.p;
@@
facts.record_function(fn, 'inline', p[0].file)

@noinline_fn depends on begins@
attribute name noinline;
identifier fn;
type T;
position p;
@@
noinline T fn@p(...) { ... }

@script:python@
fn << noinline_fn.fn;
p << noinline_fn.p;
@@
facts.record_function(fn, 'noinline', p[0].file)

@local_fn depends on begins@
identifier fn;
position p;
@@
fn@p(...) { ... }

@script:python@
fn << local_fn.fn;
p << local_fn.p;
@@
facts.record_function(fn, 'plain', p[0].file)

// ---- report ------------------------------------------------------------------

@script:python depends on report && begins@
@@
hooks.REPORT = True

// ---- transformation: invert_begin --------------------------------------
// if (begin(p, n)) { A; end(); } else { B; } return v; becomes an
// open-coded region with a label that does B and returns v.

@ib depends on patch && invert_begin@
identifier B;
expression E, N;
statement list SL1, SL2;
expression V;
position pb : script:python() { hooks.at_invert(pb[0]) };
@@
if (B@pb(E, N)) { SL1 } else { SL2 }
return V;

@script:python ib_name@
pb << ib.pb;
L;
@@
coccinelle.L = cocci.make_ident(hooks.edit(pb[0], plan.Invert).label)

@depends on patch && invert_begin@
identifier ib.B;
expression ib.E, ib.N, ib.V;
statement list ib.SL1, ib.SL2;
position ib.pb;
identifier ib_name.L;
@@
- if (B@pb(E, N)) { SL1 } else { SL2 }
+ if (!B(E, N))
+	goto L;
+ SL1
  return V;
+ L:
+ SL2
+ return V;

// The last branch of an else-if chain: the statement after the chain
// runs on both paths, so the label repeats it.

@ibe depends on patch && invert_begin@
identifier B;
expression C, E, N, V;
statement S1, S3;
statement list SL1, SL2;
position pb : script:python() { hooks.at_invert(pb[0]) };
@@
if (C) S1 else if (B@pb(E, N)) { SL1 } else { SL2 }
S3
return V;

@script:python ibe_name@
pb << ibe.pb;
L;
@@
coccinelle.L = cocci.make_ident(hooks.edit(pb[0], plan.Invert).label)

@depends on patch && invert_begin@
identifier ibe.B;
expression ibe.C, ibe.E, ibe.N, ibe.V;
statement ibe.S1, ibe.S3;
statement list ibe.SL1, ibe.SL2;
position ibe.pb;
identifier ibe_name.L;
@@
  if (C) S1 else
- if (B@pb(E, N)) { SL1 } else { SL2 }
+ {
+ if (!B(E, N))
+	goto L;
+ SL1
+ }
  S3
  return V;
+ L:
+ SL2
+ S3
+ return V;

// ---- transformation: local_pointer ---------------------------------------
// A local declared with the other locals stands for the pointer
// expression, in the begin and in the region.  Its type is the cast's,
// the member's in a struct of the file, or typeof() the expression.

@lp_begin depends on patch && local_pointer@
identifier B;
expression E;
position pb : script:python() { hooks.at_local_begin(pb[0]) };
@@
B@pb(E, ...)

// The type of the local, bound before anything changes.

@lp_cast depends on patch && local_pointer@
identifier B;
type T;
expression X;
position pb : script:python() { hooks.at_local_begin(pb[0]) };
@@
B@pb((T)X, ...)

@lp_field depends on patch && local_pointer@
identifier S;
identifier F : script:python() { hooks.local_member(F) };
type T;
@@
struct S { ... T F; ... };

@lp_use depends on patch && local_pointer@
expression lp_begin.E;
position p : script:python() { hooks.at_rename_expr(p[0]) };
@@
E@p

@script:python lp_name@
p << lp_use.p;
L;
@@
coccinelle.L = cocci.make_ident(hooks.edit(p[0], plan.RenameExpr).name)

@depends on patch && local_pointer@
expression lp_begin.E;
position lp_use.p;
identifier lp_name.L;
@@
- E@p
+ L

@lp_cast_use depends on patch && local_pointer@
identifier X;
position p : script:python() { hooks.at_rename_cast(p[0]) };
@@
X@p

@script:python lp_cast_name@
p << lp_cast_use.p;
V;
@@
coccinelle.V = cocci.make_expr(hooks.edit(p[0], plan.RenameCast).text)

@depends on patch && local_pointer@
identifier lp_cast_use.X;
position lp_cast_use.p;
expression lp_cast_name.V;
@@
- X@p
+ V

// A local set from something that changes before the begin is set right
// before the begin's if (first of the insertions: it is below the others).

@lp_late depends on patch && local_pointer@
statement S;
position p : script:python() { hooks.at_before_if(p[0]) };
@@
S@p

@script:python lp_late_text@
p << lp_late.p;
T;
@@
coccinelle.T = cocci.make_ident(hooks.edit(p[0], plan.BeforeIf).text)

@depends on patch && local_pointer@
statement lp_late.S;
position lp_late.p;
identifier lp_late_text.T;
@@
+ T;
  S@p

// One insertion rule per way of writing the type, each with its own
// position rule: a position cannot be inherited past a change.

@lp_decl_late depends on patch && local_pointer@
declaration D;
position p : script:python() { hooks.at_local_decl_cast_late(p[0]) };
@@
D@p

@script:python lp_late_parts@
p << lp_decl_late.p;
N;
@@
coccinelle.N = cocci.make_ident(hooks.edit(p[0], plan.LocalDecl).name)

@depends on patch && local_pointer@
declaration lp_decl_late.D;
position lp_decl_late.p;
type lp_cast.T;
identifier lp_late_parts.N;
@@
  D@p
+ T N;

@lp_decl_cast depends on patch && local_pointer@
declaration D;
position p : script:python() { hooks.at_local_decl_cast(p[0]) };
@@
D@p

@script:python lp_cast_parts@
p << lp_decl_cast.p;
N;
V;
@@
d = hooks.edit(p[0], plan.LocalDecl)
coccinelle.N = cocci.make_ident(d.name)
coccinelle.V = cocci.make_expr(d.expr)

@depends on patch && local_pointer@
declaration lp_decl_cast.D;
position lp_decl_cast.p;
type lp_cast.T;
expression lp_cast.X;
identifier lp_cast_parts.N;
@@
  D@p
+ T N = (T)X;

@lp_decl_field depends on patch && local_pointer@
declaration D;
position p : script:python() { hooks.at_local_decl_field(p[0]) };
@@
D@p

@script:python lp_field_parts@
p << lp_decl_field.p;
F << lp_field.F;
N;
V;
@@
d = hooks.edit(p[0], plan.LocalDecl)
if not d.expr.replace(' ', '').endswith(F):
	cocci.include_match(False)
else:
	coccinelle.N = cocci.make_ident(d.name)
	coccinelle.V = cocci.make_expr(d.expr)

@depends on patch && local_pointer@
declaration lp_decl_field.D;
position lp_decl_field.p;
type lp_field.T;
identifier lp_field_parts.N;
expression lp_field_parts.V;
@@
  D@p
+ T N = V;

@lp_decl_address depends on patch && local_pointer@
declaration D;
position p : script:python() { hooks.at_local_decl_address(p[0]) };
@@
D@p

@script:python lp_address_parts@
p << lp_decl_address.p;
F << lp_field.F;
N;
V;
@@
d = hooks.edit(p[0], plan.LocalDecl)
if not d.expr.replace(' ', '').endswith(F):
	cocci.include_match(False)
else:
	coccinelle.N = cocci.make_ident(d.name)
	coccinelle.V = cocci.make_expr(d.expr)

@depends on patch && local_pointer@
declaration lp_decl_address.D;
position lp_decl_address.p;
type lp_field.T;
identifier lp_address_parts.N;
expression lp_address_parts.V;
@@
  D@p
+ T *N = V;

@lp_decl_typeof depends on patch && local_pointer@
declaration D;
position p : script:python() { hooks.at_local_decl_typeof(p[0]) };
@@
D@p

@script:python lp_typeof_parts@
p << lp_decl_typeof.p;
N;
V;
@@
d = hooks.edit(p[0], plan.LocalDecl)
coccinelle.N = cocci.make_ident(d.name)
coccinelle.V = cocci.make_expr(d.expr)

@depends on patch && local_pointer@
declaration lp_decl_typeof.D;
position lp_decl_typeof.p;
identifier lp_typeof_parts.N;
expression lp_typeof_parts.V;
@@
  D@p
+ typeof(V) N = V;

// ---- transformation: cursor ------------------------------------------------
// Uses of the pointer in the region become uses of a cursor, declared
// with the other locals with the pointer's type and set from it first
// thing in the region; or the begin opens on the pointer the cursor was
// copied from, and the cursor is set from that one.

@cur_use depends on patch && cursor@
identifier P;
position p : script:python() { hooks.at_rename(p[0]) };
@@
P@p

@script:python cur_name@
p << cur_use.p;
C;
@@
coccinelle.C = cocci.make_ident(hooks.edit(p[0], plan.Rename).name)

@depends on patch && cursor@
identifier cur_use.P;
position cur_use.p;
identifier cur_name.C;
@@
- P@p
+ C

@cur_seed depends on patch && cursor@
identifier B;
expression P, N;
position p : script:python() { hooks.at_begin_arg(p[0]) };
@@
B(P@p, N)

@script:python cur_seed_name@
p << cur_seed.p;
Q;
@@
coccinelle.Q = cocci.make_ident(hooks.edit(p[0], plan.BeginArg).expr)

@depends on patch && cursor@
identifier cur_seed.B;
expression cur_seed.P, cur_seed.N;
position cur_seed.p;
identifier cur_seed_name.Q;
@@
  B(
- P@p
+ Q
  , N)

// ---- statements inserted after the begin (cursor, rederive) -----------------

@after_if depends on patch && (cursor || rederive)@
statement S;
position p : script:python() { hooks.at_after_if(p[0]) };
@@
S@p

@script:python after_if_text@
p << after_if.p;
T;
@@
coccinelle.T = cocci.make_ident(hooks.edit(p[0], plan.AfterIf).text)

@depends on patch && (cursor || rederive)@
statement after_if.S;
position after_if.p;
identifier after_if_text.T;
@@
  S@p
+ T;

// The cursor's declaration, after the statements inserted in the region:
// it adds a line above them.

@cur_type_param depends on patch && cursor@
identifier fn;
identifier P : script:python() { hooks.cursor_pointer(P) };
type T;
@@
fn(..., T P, ...) { ... }

@cur_type_local depends on patch && cursor@
identifier P : script:python() { hooks.cursor_pointer(P) };
type T;
position pt;
@@
(
T P@pt;
|
T P@pt = ...;
)

@cur_decl_param depends on patch && cursor@
declaration D;
position pd : script:python() { hooks.at_cursor_decl(pd[0]) };
@@
D@pd

@script:python cur_pair_param@
pd << cur_decl_param.pd;
P << cur_type_param.P;
fn << cur_type_param.fn;
N;
@@
d = hooks.edit(pd[0], plan.CursorDecl)
if d.pointer != P or fn != pd[0].current_element:
	cocci.include_match(False)
else:
	coccinelle.N = cocci.make_ident(d.name)

@depends on patch && cursor@
declaration cur_decl_param.D;
position cur_decl_param.pd;
type cur_type_param.T;
identifier cur_pair_param.N;
@@
  D@pd
+ T N;

// A cursor for a local pointer: when a cursor for a parameter was
// declared above in the same pass, its line moved this one and the
// region is converted again without it.

@cur_decl_local depends on patch && cursor@
declaration D;
position pd : script:python() { hooks.at_cursor_decl(pd[0]) };
@@
D@pd

@script:python cur_pair_local@
pd << cur_decl_local.pd;
P << cur_type_local.P;
pt << cur_type_local.pt;
N;
@@
d = hooks.edit(pd[0], plan.CursorDecl)
if d.pointer != P or pt[0].current_element != pd[0].current_element:
	cocci.include_match(False)
else:
	coccinelle.N = cocci.make_ident(d.name)

@depends on patch && cursor@
declaration cur_decl_local.D;
position cur_decl_local.pd;
type cur_type_local.T;
identifier cur_pair_local.N;
@@
  D@pd
+ T N;

// ---- transformation: tail_out ---------------------------------------------
// if (c) { end(); f(); return x; } inside a region: the block moves
// behind a label after the function's last statement (first, so that the
// if's position is still that of the file) and the if jumps there.

@to_last depends on patch && tail_out@
statement S;
position p : script:python() { hooks.at_tail_label(p[0]) };
@@
S@p

@script:python to_parts@
p << to_last.p;
L;
T;
@@
t = hooks.edit(p[0], plan.TailLabel)
coccinelle.L = cocci.make_ident(t.label)
coccinelle.T = cocci.make_ident(t.text)

@depends on patch && tail_out@
statement to_last.S;
position to_last.p;
identifier to_parts.L, to_parts.T;
@@
  S@p
+ L:
+ T;

@to_if depends on patch && tail_out@
expression E;
statement S1;
position p : script:python() { hooks.at_tail_out(p[0]) };
@@
if (E@p) S1

@script:python to_name@
p << to_if.p;
L;
@@
coccinelle.L = cocci.make_ident(hooks.edit(p[0], plan.TailOut).label)

@depends on patch && tail_out@
expression to_if.E;
statement to_if.S1;
position to_if.p;
identifier to_name.L;
@@
- if (E@p) S1
+ if (E)
+	goto L;

// ---- transformation: range_check ------------------------------------------

@rc depends on patch && range_check@
statement S;
position p : script:python() { hooks.at_before_if(p[0]) };
@@
S@p

@script:python rc_text@
p << rc.p;
T;
@@
coccinelle.T = cocci.make_ident(hooks.edit(p[0], plan.BeforeIf).text)

@depends on patch && range_check@
statement rc.S;
position rc.p;
identifier rc_text.T;
@@
+ T;
  S@p

// ---- transformation: label ---------------------------------------------------

@lb depends on patch && label@
statement S;
position p : script:python() { hooks.at_label(p[0]) };
@@
S@p

@script:python lb_parts@
p << lb.p;
L;
V;
@@
e = hooks.edit(p[0], plan.Label)
coccinelle.L = cocci.make_ident(e.label)
coccinelle.V = cocci.make_expr(e.value or '0')

@depends on patch && label@
statement lb.S;
position lb.p;
identifier lb_parts.L;
expression lb_parts.V;
@@
  S@p
+ L:
+ return V;

// ---- the scopes ------------------------------------------------------------
// One rule does every change of the pass: the statements of a region are
// removed, its end becomes the scope.

@script:python mk depends on patch && !invert_begin && !local_pointer && !tail_out && !cursor && !rederive && !range_check && !label && allst@
ps << allst.ps;
args;
block;
@@
parts = hooks.scope_edit(ps[0])
if parts is None:
	cocci.include_match(False)
else:
	coccinelle.args = cocci.make_ident(parts[0])
	coccinelle.block = cocci.make_ident(parts[1])

@depends on patch && !invert_begin && !local_pointer && !tail_out && !cursor && !rederive && !range_check && !label@
iterator name scoped_user_read_access;
iterator name scoped_user_read_access_size;
iterator name scoped_user_write_access;
iterator name scoped_user_write_access_size;
iterator name scoped_user_rw_access;
iterator name scoped_user_rw_access_size;
position allst.ps;
identifier mk.args, mk.block;
statement S;
position q0 : script:python() { hooks.scope_index(q0[0]) == 0 };
position q1 : script:python() { hooks.scope_index(q1[0]) == 1 };
position q2 : script:python() { hooks.scope_index(q2[0]) == 2 };
position q3 : script:python() { hooks.scope_index(q3[0]) == 3 };
position q4 : script:python() { hooks.scope_index(q4[0]) == 4 };
position q5 : script:python() { hooks.scope_index(q5[0]) == 5 };
position qr : script:python() { hooks.removed(qr[0]) };
@@
(
- S@ps@qr
|
- S@ps@q0
+ scoped_user_read_access(args) {
+ block;
+ }
|
- S@ps@q1
+ scoped_user_read_access_size(args) {
+ block;
+ }
|
- S@ps@q2
+ scoped_user_write_access(args) {
+ block;
+ }
|
- S@ps@q3
+ scoped_user_write_access_size(args) {
+ block;
+ }
|
- S@ps@q4
+ scoped_user_rw_access(args) {
+ block;
+ }
|
- S@ps@q5
+ scoped_user_rw_access_size(args) {
+ block;
+ }
)

@finalize:python@
@@
if hooks.REPORT:
	for line in hooks.report_lines():
		print(line)
hooks.reset()
