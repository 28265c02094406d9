# SPDX-License-Identifier: GPL-2.0
"""Which open-coded regions become scopes, with which transformations, and why not.

For every region begin of a file, from the facts the rules of
cocci/convert_scoped_uaccess.cocci record (facts.py) and the source text:
either a skip reason, or the shape the scope takes and the
transformations (one spatch pass each, `-D <transformation>`)
that bring the region into it first.  Every pass and the final scope
pass call analyse() on the file as it is then, so a transformation that
is done is no longer asked for.
"""

import re
from typing import Optional

from scoped_uaccess.cocci import api, inlines
from scoped_uaccess.analysis import calls, source
from scoped_uaccess.analysis.facts import Pos, Span
from scoped_uaccess.analysis.labels import (inner_ends, scope_label, shared_labels,
						 tail_exits)
from scoped_uaccess.analysis.model import (KEEP, Context, Region, constant_size,
						local_pointer_ok, plain_scope_size)
from scoped_uaccess.analysis.pointers import (address_problem, cursor_ok, derived_pointer, rederive_source)
from scoped_uaccess.analysis.ranges import (constant_extent, dense_index, earlier_check, early_exit,
					   indexed_address, range_checked, size_only_checked)
from scoped_uaccess.analysis.source import (END_STMT, LABEL_LINE, flat, strip_comments,
						 text_of)
from scoped_uaccess.analysis.status import Reason

# ---- the analysis ------------------------------------------------------------

def analyse_file(ctx: Context) -> dict[Pos, Region]:
	regions: dict[Pos, Region] = {}
	end_lines = {line: col for line, col in ctx.facts.ends}
	for name, kind in inlines.scan_text('\n'.join(ctx.lines)).items():
		if ctx.facts.functions.get(name) not in ('always', 'noinline'):
			ctx.facts.functions[name] = kind
	in_macro = macro_lines(ctx.lines)
	for function, spans in ctx.facts.stmts.items():
		# A macro of the file used in the function is expanded by spatch:
		# its statement then starts in the #define.
		ctx.facts.stmts[function] = {s for s in spans if s[0] not in in_macro}
	for key, begin in sorted(ctx.facts.begins.items()):
		r = Region(key, begin.function, begin.name)
		stmts = ctx.facts.stmts.get(begin.function, set())
		if key[0] in in_macro:
			r.function = macro_name(ctx.lines, key[0])
			regions[key] = r.skip(Reason.MACRO, 'in the body of a macro: the converter rewrites '
					      'functions; each expansion would get its own scope')
			continue
		if not stmts:
			regions[key] = r.skip(Reason.UNKNOWN_SHAPE, 'function not parsed')
			continue
		r.fn_range = source.function_range(ctx.lines, stmts)
		if analyse(ctx, r, stmts, end_lines) is not None:
			regions[key] = r
	# A label another region's scope frees of its end does what the begin
	# failure does: no need for a label of its own.
	closing = {line for r in regions.values() if r.converted and not r.needs for line, _ in r.ends}
	for r in regions.values():
		if r.converted and 'label' in r.needs:
			r.needs.remove('label')
			if scope_label(ctx, r, frozenset(closing)):
				finish(ctx, r, shape_of(ctx, r))
	shared_labels(ctx, regions)
	return regions


def macro_lines(lines: list[str]) -> set[int]:
	"""The lines (1-based) of #define directives and their continuations."""
	found, inside = set(), False
	for i, line in enumerate(lines, 1):
		if inside or line.lstrip().startswith('#define'):
			found.add(i)
			inside = line.rstrip().endswith('\\')
	return found


def macro_name(lines: list[str], line: int) -> str:
	"""The name of the #define whose body holds line (1-based)."""
	for i in range(line - 1, -1, -1):
		m = re.match(r'\s*#\s*define\s+(\w+)', lines[i])
		if m:
			return m.group(1)
	return ''


def analyse(ctx: Context, r: Region, stmts: set[Span], end_lines: dict[int, int]) -> Optional[Region]:
	"""Fills r; None for the inner begin of a masked prologue (reported at
	the masked begin)."""
	lines, facts = ctx.lines, ctx.facts
	if r.function in KEEP:
		return r.skip(Reason.KEEP, KEEP[r.function])
	shape = facts.ifs.get(r.key)
	if shape is None:
		if r.name in api.MASKED_BEGINS:
			return r.skip(Reason.KEEP, 'an unconditional masked begin: no failure path, '
				      'nothing for a scope to add')
		return r.skip(Reason.UNKNOWN_SHAPE, 'the begin is not the condition of an if')
	if shape.kind == 'inner':
		return None
	if shape.kind == 'positive':
		return positive(ctx, r, shape, stmts)
	args = source.call_args(lines, *(shape.masked_at or r.key)) if shape.kind == 'masked' \
		else source.call_args(lines, *r.key)
	r.pointer, r.size = shape.pointer, shape.size
	if shape.kind == 'masked':
		inner = source.call_args(lines, *r.key)
		if inner and len(inner) == 1:
			r.pointer = flat(inner[0])
	elif args and len(args) == 2:
		r.pointer, r.size = flat(args[0]), args[1]
	ifs = source.containing_if(stmts, lines, r.key)
	if ifs is None:
		return r.skip(Reason.UNKNOWN_SHAPE, 'no if statement around the begin')
	r.stmt = ifs
	iftext = text_of(lines, ifs)
	m = re.search(r'\)\s*\n?\s*\{?\s*((?:return[^;]*|goto\s+\w+);)\s*\}?\s*$', iftext)
	if m is None or (shape.kind == 'masked' and not re.search(r'else\s+if', iftext)):
		return r.skip(Reason.BEGIN_FAILURE, 'begin failure is not one return or goto')
	r.action = flat(m.group(1))
	if not source.identifier(r.pointer):
		if local_pointer_ok(r.pointer):
			r.needs.append('local-pointer')
		else:
			return r.skip(Reason.POINTER_EXPRESSION, f'pointer {r.pointer} is not a plain '
				      'identifier or a member, cast or address of one')
	if not body_and_end(ctx, r, stmts):
		return r
	return body_checks(ctx, r, end_lines)


def body_and_end(ctx: Context, r: Region, stmts: set[Span]) -> bool:
	"""The statements after the begin in its block up to the end; False
	(r skipped) when the end is not in that block."""
	lines = ctx.lines
	assert r.stmt is not None
	parent = source.parent_of(stmts, r.stmt)
	sibs = sorted(s for s in stmts if s != r.stmt and source.parent_of(stmts, s) == parent
		      and (s[0], s[1]) > (r.stmt[2], r.stmt[3]))
	for s in sibs:
		if END_STMT.match(flat(text_of(lines, s))):
			r.end = s
			break
		r.body.append(s)
	if r.end is None:
		r.skip(Reason.SPLIT_BRANCHES, 'no end in the block of the begin')
		return False
	if lines[r.stmt[2] - 1][r.stmt[3]:].strip() or lines[r.end[0] - 1][:r.end[1]].strip():
		r.skip(Reason.UNKNOWN_SHAPE, 'region does not start and end on line boundaries')
		return False
	# The scope pass moves statements: a line spatch parsed past (a macro
	# it could not make sense of) would be left behind, twice.
	# Lines under a preprocessor conditional are not checked: the parse
	# variant spatch runs with may leave one side out.
	covered = {i for sp in r.body for i in range(sp[0], sp[2] + 1)}
	body = r.body_lines()
	code_lines = source.blank_comments('\n'.join(lines[body.start - 1:body.stop - 1])).split('\n')
	depth = 0
	for i, text in zip(body, code_lines):
		code = ' '.join(text.split())
		if re.match(r'^#\s*if', code):
			depth += 1
		elif re.match(r'^#\s*endif', code):
			depth -= 1
		if code and not depth and i not in covered and not code.startswith('#') \
		   and code not in ('{', '}'):
			r.skip(Reason.UNKNOWN_SHAPE, f'spatch does not parse line {i} of the region as '
			       'part of a statement (a macro it passes over)')
			return False
	# A declaration directly in the region would stay outside of the scope.
	level = source.indent(lines[r.stmt[0] - 1])
	for i in r.body_lines():
		line = lines[i - 1]
		if source.indent(line) == level and DECLARATION.match(line):
			r.skip(Reason.UNKNOWN_SHAPE, f'declaration at the top level of the region: {line.strip()}')
			return False
	return True


DECLARATION = re.compile(r'^\s*(?:const\s+|static\s+|struct\s+|unsigned\s+|union\s+)*'
			 r'[A-Za-z_]\w*(?:\s+__user)?[\s\*]+[A-Za-z_]\w*\s*(?:\[[^\]]*\])?\s*[=;,]')


def body_checks(ctx: Context, r: Region, end_lines: dict[int, int]) -> Region:
	lines, facts = ctx.lines, ctx.facts
	fnlo, fnhi = r.fn_range
	body = r.body_lines()
	ptr = r.pointer if source.identifier(r.pointer) else ''
	# the pointer moved inside the region: a cursor
	if ptr:
		pre = re.compile(r'(\+\+|--)\s*%s\b|\b%s\s*(\+\+|--|[-+]=)' % ((re.escape(ptr),) * 2))
		moved = any(v == ptr and r.inside(at) for (f, v, at) in facts.assigns if f == r.function) \
			or any(pre.search(strip_comments(lines[i - 1])) for i in body)
		if moved:
			if not cursor_ok(ctx, r, ptr):
				return r.skip(Reason.POINTER_MODIFIED, f'{ptr} is modified inside the region '
					      'and used after it')
			r.needs.append('cursor')
	for i in body:
		lm = LABEL_LINE.match(lines[i - 1])
		if lm and lm.group(1) != 'default':
			return r.skip(Reason.UNKNOWN_SHAPE, f'label {lm.group(1)}: inside the region')
	if not loop_control_ok(lines, r, body):
		return r.skip(Reason.LOOP_CONTROL, 'break or continue would leave the scope')
	# calls (those of an early exit's tail run after the end: tail-out)
	r.tails = tail_exits(ctx, r, end_lines)
	acc_at = {a.pos for a in facts.accessors if a.function == r.function and r.inside(a.pos)}
	hidden = False
	for (f, name, at) in facts.calls:
		if f != r.function or not r.inside(at) or at in acc_at:
			continue
		if any(e < at[0] <= ret for e, ret in r.tails.items()):
			continue
		kind = calls.classify(name, ctx.file, facts.functions, ctx.header_inlines)
		if kind is None:
			continue
		if name.startswith('unsafe_') and name not in facts.functions:
			return r.skip(Reason.UNKNOWN_SHAPE, f'unknown accessor {name}()')
		if kind == 'out-of-line':
			return r.skip(Reason.OUT_OF_LINE_CALL, f'call to {name}() inside the region')
		r.kept_calls[name] = kind
		hidden |= calls.hides_accesses(kind)
	# accessors
	modes: set[str] = set()
	labels: set[str] = set()
	sparse = ''
	bounded = True		# every access within a constant extent of the pointer
	for a in facts.accessors:
		if a.function != r.function or not r.inside(a.pos):
			continue
		known = api.ACCESSORS.get(a.name) or api.WRAPPERS.get(a.name)
		if known is None:
			return r.skip(Reason.UNKNOWN_SHAPE, f'unknown accessor {a.name}()')
		mode, idx = known
		modes.add(mode)
		labels.add(a.label)
		problem = address_problem(ctx, r, a, idx)
		if problem:
			return r.skip(*problem)
		if not sparse and idx is not None:
			sparse = indexed_address(r.pointer, source.split_args(a.args), idx)
			if sparse and dense_index(lines, r, a.pos[0], source.split_args(a.args)[idx]):
				sparse = ''
		bounded = bounded and constant_extent(ctx, r, a.name, source.split_args(a.args), idx)
		# A wrapper may access through more than its first pointer
		# (unsafe_save_tm_user_regs(regs, mctx, tm_mctx, ...)): every
		# argument computed from the begin's pointer before the region
		# is computed again in it.
		if a.name in api.WRAPPERS:
			for arg in source.split_args(a.args):
				if source.identifier(flat(arg)) and rederive_source(ctx, r, flat(arg)):
					derived_pointer(ctx, r, flat(arg))
	asm = any(re.search(r'\b(asm|__asm__)\b', strip_comments(lines[i - 1])) for i in body)
	if not modes and not r.kept_calls and not asm:
		return r.skip(Reason.UNKNOWN_SHAPE, 'no accessor inside the region')
	r.mode = scope_mode(r.name, modes, hidden or asm or not modes, r.function)
	if ctx.masked and not constant_size(r.size, r.pointer) and r.size:
		r.range_exit = early_exit(lines, body, r.action) or sparse or \
			(size_only_checked(lines, body, r.size)
			 if bounded and modes and not (hidden or asm) else '')
		r.checked_before = earlier_check(ctx, r)
		if r.range_exit and not r.checked_before and not range_checked(ctx, r):
			r.needs.append('range-check')
		elif not r.range_exit and not r.checked_before:
			r.unchecked_size = flat(r.size)
	if not inner_ends(ctx, r, end_lines):
		return r
	# gotos out of the body are fault paths too, unless an inner end precedes them
	for (f, label, at) in facts.gotos:
		if f == r.function and r.inside(at):
			prevs = [i for i in body if i < at[0] and flat(lines[i - 1])]
			if not (prevs and prevs[-1] in r.inner_ends):
				labels.add(label)
	for label in sorted(labels):
		e = source.first_end_at(lines, fnlo, fnhi, label, end_lines)
		if e is None:
			return r.skip(Reason.UNKNOWN_SHAPE, f'fault label {label} does not end the region')
		r.ends.add(e)
		r.fault_labels.add(label)
	assert r.end is not None
	r.ends.add((r.end[2], source.end_col(lines, r.end)))
	if not scope_label(ctx, r):
		return r
	return finish(ctx, r, shape_of(ctx, r))


def loop_control_ok(lines: list[str], r: Region, body: range) -> bool:
	"""break and continue must belong to a loop or switch inside the region."""
	assert r.stmt is not None
	base = source.indent(lines[r.stmt[0] - 1])
	for i in body:
		if not re.search(r'\b(break|continue)\s*;', strip_comments(lines[i - 1])):
			continue
		ind = source.indent(lines[i - 1])
		inside = False
		for j in range(i - 1, r.stmt[2], -1):
			lj = lines[j - 1]
			ij = source.indent(lj)
			if lj.strip() and ij < ind and not lj.lstrip().startswith(('case ', 'default:')):
				if re.match(r'\s*(for|while|do|switch)\b', lj):
					inside = True
					break
				if ij <= base:
					break
				ind = ij
		if not inside:
			return False
	return True


def scope_mode(begin: str, modes: set[str], hidden: bool, function: str = '') -> str:
	"""What the accessors do; where some access is out of sight (asm,
	helpers), what the function's name says it does to user memory
	(`*_from_user` reads it, `*_to_user` writes it: powerpc's
	csum_and_copy_from_user() opens a read scope around the copy), else
	the begin's mode."""
	if hidden:
		named = 'read' if re.search(r'(^|_)from_user(_|$)', function) else \
			'write' if re.search(r'(^|_)to_user(_|$)', function) else ''
		if named and modes <= {named}:
			return named
		return api.begin_mode(begin) or 'rw'
	if 'rmw' in modes or modes == {'read', 'write'}:
		return 'rw'
	return next(iter(modes))


def shape_of(ctx: Context, r: Region) -> str:
	shape = ctx.facts.ifs.get(r.key)
	assert r.end is not None
	if shape is not None and shape.kind == 'masked':
		return 'masked'
	if source.GOTO.match(r.action) and r.label not in r.fault_labels:
		return 'two-level'
	if re.match(r'^[A-Za-z_]\w*:', flat(text_of(ctx.lines, r.end))):
		return 'shared-exit'
	if not r.fault_labels:
		return 'no-fault'
	return 'fault-label'


def finish(ctx: Context, r: Region, shape: str) -> Region:
	r.convert(shape)
	iterator = api.SCOPE_FOR_MODE[r.mode]
	if not plain_scope_size(r.size, r.pointer) or not source.identifier(r.pointer):
		iterator += '_size'
	r.text = f'{r.name}() region becomes {iterator}()' + (
		f' after {", ".join(r.needs)}' if r.needs else '')
	return r


# ---- positive begins ---------------------------------------------------------

def positive(ctx: Context, r: Region, shape, stmts: set[Span]) -> Region:
	"""if (begin(p, n)) { ...; end(); } else { ... } return v;: invert-begin
	turns it into if (!begin(p, n)) goto L; ...; end(); return v; L: ...
	return v;, a region the later passes see."""
	lines = ctx.lines
	ifs = source.containing_if(stmts, lines, r.key)
	if ifs is None or not shape.has_else:
		return r.skip(Reason.POSITIVE_BEGIN, 'begin tested positively without an else branch')
	text = text_of(lines, ifs)
	if not text.startswith(('if (user_', 'if (likely(user_')):
		return r.skip(Reason.POSITIVE_BEGIN, 'begin tested positively inside a larger condition '
			      'or an else-if chain')
	m = re.match(r'^if \((?:likely\()?\w+\((?P<args>.*?)\)\)?\) \{\n(?P<then>.*?)\n\t*\} else \{\n'
		     r'(?P<else>.*?)\n\t*\}$', text, re.S)
	if m is None:
		return r.skip(Reason.POSITIVE_BEGIN, 'begin tested positively, branches not two blocks')
	then = [flat(x) for x in m.group('then').split('\n') if flat(x)]
	if not then or not END_STMT.match(then[-1]) or any(END_STMT.match(x) for x in then[:-1]):
		return r.skip(Reason.POSITIVE_BEGIN, 'the then branch does not end with the end of the region')
	if any(re.match(r'^(return|goto|break|continue)\b', x) for x in then):
		return r.skip(Reason.POSITIVE_BEGIN, 'the then branch leaves early')
	# The last branch of an else-if chain: the work after the chain is
	# done on both paths (invert-begin repeats it after the label).
	outer = ifs
	parent = source.parent_of(stmts, ifs)
	if parent is not None and (parent[2], parent[3]) == (ifs[2], ifs[3]) and \
	   re.search(r'\belse\s+$', text_of(lines, (parent[0], parent[1], ifs[0], ifs[1]))):
		outer = parent
	following = sorted(s for s in stmts if (s[0], s[1]) > (outer[2], outer[3])
			   and source.parent_of(stmts, s) == source.parent_of(stmts, outer))
	want = 2 if outer != ifs else 1
	if len(following) != want or not re.match(r'^return\b', flat(text_of(lines, following[-1]))):
		return r.skip(Reason.POSITIVE_BEGIN, 'the if is not followed by the return of the function'
			      + (' and one statement' if outer != ifs else ''))
	if outer != ifs:
		tail = flat(text_of(lines, following[0]))
		if re.search(r'\b(return|goto|break|continue)\b|^[A-Za-z_]\w*:', tail) or \
		   any(LABEL_LINE.match(lines[i - 1]) for i in range(following[0][0], following[0][2] + 1)):
			return r.skip(Reason.POSITIVE_BEGIN, 'the statement after the else-if chain leaves early')
	for (f, name, at) in ctx.facts.calls:
		if f == r.function and source.contains(ifs, (*at, *at)) and name not in api.OPEN_BEGINS \
		   and calls.classify(name, ctx.file, ctx.facts.functions, ctx.header_inlines) == 'out-of-line':
			return r.skip(Reason.OUT_OF_LINE_CALL, f'call to {name}() inside the region')
	args = source.split_args(m.group('args'))
	r.pointer = flat(args[0]) if args else ''
	r.needs.append('invert-begin')
	if not source.identifier(r.pointer):
		if not local_pointer_ok(r.pointer):
			return r.skip(Reason.POINTER_EXPRESSION, f'pointer {r.pointer} is not a plain identifier')
		r.needs.append('local-pointer')
	r.size = args[1] if len(args) > 1 else ''
	# No range check in front: the then branch has no early exit (it is
	# skipped above if it has one), so a range past the top of user space
	# ends in the fault path with masking too (early_exit()).
	r.stmt = ifs
	r.convert('no-fault')
	r.text = f'{r.name}() tested positively becomes a scope after {", ".join(r.needs)}'
	return r



