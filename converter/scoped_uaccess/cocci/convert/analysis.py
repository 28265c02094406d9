# SPDX-License-Identifier: GPL-2.0
"""Which open-coded regions become scopes, with which transformations, and why not.

For every region begin of a file, from the facts of cocci/convert/facts.cocci
and the source text: either a skip reason, or the shape the scope takes
and the transformations (cocci/convert/*.cocci, one spatch pass each)
that bring the region into it first.  Every pass and the final scope
pass call analyse() on the file as it is then, so a transformation that
is done is no longer asked for.
"""

import re
from dataclasses import dataclass, field
from typing import Optional

from scoped_uaccess.cocci import api, inlines
from scoped_uaccess.cocci.convert import calls, source
from scoped_uaccess.cocci.convert.facts import Facts, Pos, Span
from scoped_uaccess.cocci.convert.source import (END_STMT, LABEL_LINE, flat, strip_comments,
						 text_of)

# The transformations, in the order of their passes.
TRANSFORMATIONS = ('invert-begin', 'local-pointer', 'tail-out', 'cursor', 'rederive',
		   'range-check', 'label')
SHAPES = ('fault-label', 'two-level', 'shared-exit', 'masked', 'no-fault')
# Regions a careful maintainer keeps open-coded: (function, why).
KEEP = {
	'record_steal_time': 'interleaved regions around a TLB flush and a tracepoint',
	'strncpy_from_user': 'hand-tuned word-at-a-time loop; the branches pass different limits',
	'strnlen_user': 'hand-tuned word-at-a-time loop; the branches pass different limits',
	'fault_in_writeable': 'the advanced pointer is the return value: the range check is the contract',
	'fault_in_readable': 'the advanced pointer is the return value: the range check is the contract',
}


@dataclass
class Context:
	"""A file as a pass sees it."""
	file: str
	lines: list[str]
	facts: Facts
	header_inlines: dict[str, str] = field(default_factory=dict)
	masked: bool = True		# compiled where can_do_masked_user_access() may be true


@dataclass
class Region:
	key: Pos
	function: str
	name: str			# the begin
	tag: str = 'skip:unknown-shape'
	text: str = 'not a recognised region'
	needs: list[str] = field(default_factory=list)	# transformations still to do
	kept_calls: dict[str, str] = field(default_factory=dict)	# call -> calls.KEPT_TEXT key
	# The region as it is now (filled as far as the analysis got).
	stmt: Optional[Span] = None	# the if statement of the begin
	body: list[Span] = field(default_factory=list)
	end: Optional[Span] = None	# the statement that ends it
	pointer: str = ''
	size: str = ''
	action: str = ''		# what the begin failure does: `return X;`, `goto L;`
	mode: str = ''
	label: str = ''			# the scope's label
	fault_labels: set[str] = field(default_factory=set)
	ends: set[Pos] = field(default_factory=set)	# end calls the scope makes redundant
	inner_ends: list[int] = field(default_factory=list)	# lines, inside the body
	tails: dict[int, int] = field(default_factory=dict)	# inner end line -> its return's line
	fn_range: tuple[int, int] = (0, 0)
	# Transformation data.
	foreign: dict[str, int] = field(default_factory=dict)	# pointer -> line assigned from the begin's
	cursor_after: bool = False	# the begin pointer is read after the region

	def skip(self, reason: str, text: str) -> 'Region':
		self.tag, self.text = 'skip:' + reason, text
		return self

	@property
	def converted(self) -> bool:
		return self.tag.startswith('converted')

	@property
	def lo(self) -> Pos:
		assert self.stmt is not None
		return self.stmt[2], self.stmt[3]

	@property
	def hi(self) -> Pos:
		assert self.end is not None
		return self.end[0], self.end[1]

	def inside(self, at: Pos) -> bool:
		return self.stmt is not None and self.end is not None and self.lo < at < self.hi

	def body_lines(self) -> range:
		assert self.stmt is not None and self.end is not None
		return range(self.stmt[2] + 1, self.end[0])


def masked_file(file: str, masking_arches: tuple[str, ...] = ('x86',)) -> bool:
	"""Whether the file is built for an architecture with masked user access
	(generic code is built for all of them; x86 masks on 64-bit only)."""
	name = file[2:] if file.startswith('./') else file
	m = re.match(r'arch/([^/]+)/', name)
	if m is None:
		return True
	return m.group(1) in masking_arches and not re.match(api.X86_32_ONLY, name)


def constant_size(size: str, pointer: str) -> bool:
	"""sizeof() of something: the compiler knows it, and the checked begin
	of x86 checks only the pointer for such a size."""
	s = flat(size).replace(' ', '')
	if re.fullmatch(r'[^?]+\?sizeof\([^()]*\):sizeof\([^()]*\)', s):
		return True
	return s.startswith('sizeof(') and s.endswith(')') and s.count('sizeof') == 1


def plain_scope_size(size: str, pointer: str) -> bool:
	return flat(size).replace(' ', '') in (f'sizeof(*{pointer})', f'sizeof(*({pointer}))')


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
		if not stmts:
			regions[key] = r.skip('unknown-shape', 'function not parsed')
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


def analyse(ctx: Context, r: Region, stmts: set[Span], end_lines: dict[int, int]) -> Optional[Region]:
	"""Fills r; None for the inner begin of a masked prologue (reported at
	the masked begin)."""
	lines, facts = ctx.lines, ctx.facts
	if r.function in KEEP:
		return r.skip('keep', KEEP[r.function])
	shape = facts.ifs.get(r.key)
	if shape is None:
		if r.name in api.MASKED_BEGINS:
			return r.skip('keep', 'an unconditional masked begin: no failure path, '
				      'nothing for a scope to add')
		return r.skip('unknown-shape', 'the begin is not the condition of an if')
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
		return r.skip('unknown-shape', 'no if statement around the begin')
	r.stmt = ifs
	iftext = text_of(lines, ifs)
	m = re.search(r'\)\s*\n?\s*\{?\s*((?:return[^;]*|goto\s+\w+);)\s*\}?\s*$', iftext)
	if m is None or (shape.kind == 'masked' and not re.search(r'else\s+if', iftext)):
		return r.skip('begin-failure', 'begin failure is not one return or goto')
	r.action = flat(m.group(1))
	if not source.identifier(r.pointer):
		if local_pointer_ok(r.pointer):
			r.needs.append('local-pointer')
		else:
			return r.skip('pointer-expression', f'pointer {r.pointer} is not a plain '
				      'identifier or a member, cast or address of one')
	if not body_and_end(ctx, r, stmts):
		return r
	return body_checks(ctx, r, end_lines)


def local_pointer_ok(ptr: str) -> bool:
	"""A pointer expression a local can stand for: members, casts, address-of."""
	return re.fullmatch(r'(\([\w\s\*]+\)\s*)?&?[A-Za-z_]\w*((->|\.)[A-Za-z_]\w*)*', ptr) is not None


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
		r.skip('split-branches', 'no end in the block of the begin')
		return False
	if lines[r.stmt[2] - 1][r.stmt[3]:].strip() or lines[r.end[0] - 1][:r.end[1]].strip():
		r.skip('unknown-shape', 'region does not start and end on line boundaries')
		return False
	# The scope pass moves statements: a line spatch parsed past (a macro
	# it could not make sense of) would be left behind, twice.
	covered = {i for sp in r.body for i in range(sp[0], sp[2] + 1)}
	body = r.body_lines()
	code_lines = source.blank_comments('\n'.join(lines[body.start - 1:body.stop - 1])).split('\n')
	for i, text in zip(body, code_lines):
		code = ' '.join(text.split())
		if code and i not in covered and not code.startswith('#') and code not in ('{', '}'):
			r.skip('unknown-shape', f'spatch does not parse line {i} of the region as '
			       'part of a statement (a macro it passes over)')
			return False
	# A declaration directly in the region would stay outside of the scope.
	level = source.indent(lines[r.stmt[0] - 1])
	for i in r.body_lines():
		line = lines[i - 1]
		if source.indent(line) == level and DECLARATION.match(line):
			r.skip('unknown-shape', f'declaration at the top level of the region: {line.strip()}')
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
				return r.skip('pointer-modified', f'{ptr} is modified inside the region '
					      'and used after it')
			r.needs.append('cursor')
	for i in body:
		lm = LABEL_LINE.match(lines[i - 1])
		if lm and lm.group(1) != 'default':
			return r.skip('unknown-shape', f'label {lm.group(1)}: inside the region')
	if not loop_control_ok(lines, r, body):
		return r.skip('loop-control', 'break or continue would leave the scope')
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
			return r.skip('unknown-shape', f'unknown accessor {name}()')
		if kind == 'out-of-line':
			return r.skip('out-of-line-call', f'call to {name}() inside the region')
		r.kept_calls[name] = kind
		hidden |= calls.hides_accesses(kind)
	# accessors
	modes: set[str] = set()
	labels: set[str] = set()
	for a in facts.accessors:
		if a.function != r.function or not r.inside(a.pos):
			continue
		known = api.ACCESSORS.get(a.name) or api.WRAPPERS.get(a.name)
		if known is None:
			return r.skip('unknown-shape', f'unknown accessor {a.name}()')
		mode, idx = known
		modes.add(mode)
		labels.add(a.label)
		problem = address_problem(ctx, r, a, idx)
		if problem:
			return r.skip(*problem)
	asm = any(re.search(r'\b(asm|__asm__)\b', strip_comments(lines[i - 1])) for i in body)
	if not modes and not r.kept_calls and not asm:
		return r.skip('unknown-shape', 'no accessor inside the region')
	r.mode = scope_mode(r.name, modes, hidden or asm or not modes)
	if ctx.masked and not constant_size(r.size, r.pointer) and r.size:
		if not range_checked(ctx, r):
			r.needs.append('range-check')
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
			return r.skip('unknown-shape', f'fault label {label} does not end the region')
		r.ends.add(e)
		r.fault_labels.add(label)
	assert r.end is not None
	r.ends.add((r.end[2], source.end_col(lines, r.end)))
	if not scope_label(ctx, r):
		return r
	return finish(ctx, r, shape_of(ctx, r))


def cursor_ok(ctx: Context, r: Region, ptr: str) -> bool:
	"""A cursor stands in for the pointer inside the scope.  Where the
	pointer is read after the region, it must stay the cursor: only when
	it is a copy of another pointer, which the scope can open on."""
	assert r.end is not None
	after = [ctx.lines[i - 1] for i in range(r.end[2] + 1, r.fn_range[1] + 1)]
	r.cursor_after = any(source.uses(line, ptr) for line in after
			     if not END_STMT.match(flat(line)))
	return not r.cursor_after or reseed_source(ctx, r, ptr) is not None


def reseed_source(ctx: Context, r: Region, ptr: str) -> Optional[str]:
	"""The pointer ptr was declared as a copy of (`T *ptr = seed;`), when
	neither changes before the begin."""
	lo, _ = r.fn_range
	assert r.stmt is not None
	for i in range(lo, r.stmt[0]):
		m = re.match(r'^\s*[\w\s]+[\s\*]%s\s*=\s*([A-Za-z_]\w*);' % re.escape(ptr),
			     strip_comments(ctx.lines[i - 1]))
		if m:
			seed = m.group(1)
			between = '\n'.join(ctx.lines[i:r.stmt[0] - 1])
			if re.search(r'\b(%s|%s)\s*(=[^=]|\+\+|--|[-+]=)' % (re.escape(ptr), re.escape(seed)),
				     strip_comments(between)):
				return None
			return seed
	return None


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


def address_problem(ctx: Context, r: Region, a, idx: Optional[int]) -> Optional[tuple[str, str]]:
	"""Why the accessor's address does not do for a scope on the pointer, if it does not."""
	args = source.split_args(a.args)
	addr = args[idx] if idx is not None and idx < len(args) else a.args
	ptr = r.pointer
	if 'local-pointer' in r.needs:
		base = re.sub(r'^\([\w\s\*]+\)\s*', '', ptr).lstrip('&')
		if base in flat(addr).replace(' ', ''):
			return None
	if ptr and re.search(r'\b%s\b' % re.escape(ptr), addr):
		return masked_range(ctx, r, a.name, addr)
	derived = derived_pointer(ctx, r, addr)
	if derived:
		return None
	return 'foreign-pointer', f'{a.name}() address {flat(addr)} is not based on {ptr}'


def derived_pointer(ctx: Context, r: Region, addr: str) -> bool:
	"""Whether addr is based on a pointer assigned from the begin's pointer:
	inside the region (then it is derived from the scope's pointer), or
	just before it (then it is computed again inside: rederive)."""
	lines = ctx.lines
	assert r.stmt is not None
	names = re.findall(r'\b([A-Za-z_]\w*)\b', strip_comments(addr))
	for name in names:
		if name == r.pointer:
			continue
		# `name = ...;`, or a declaration `T *name = ...;`
		assign = re.compile(r'^\s*(?:[\w\s]*[\s\*])?%s\s*=\s*(?P<rhs>[^;]*);' % re.escape(name))
		for i in r.body_lines():
			m = assign.match(lines[i - 1])
			if m and source.uses(m.group('rhs'), r.pointer):
				return True
		# before the begin: the last assignment, within the same block
		line = rederive_source(ctx, r, name)
		if line:
			r.foreign[name] = line
			if 'rederive' not in r.needs:
				r.needs.append('rederive')
			return True
	return False


def previous_statements(ctx: Context, r: Region, limit: int = 8) -> list[Span]:
	"""The statements before the begin's if in its block, nearest first."""
	stmts = ctx.facts.stmts.get(r.function, set())
	assert r.stmt is not None
	parent = source.parent_of(stmts, r.stmt)
	before = [s for s in stmts if s != r.stmt and source.parent_of(stmts, s) == parent
		  and (s[2], s[3]) <= (r.stmt[0], r.stmt[1])]
	return sorted(before, reverse=True)[:limit]


def rederive_source(ctx: Context, r: Region, name: str) -> int:
	"""The line of the statement before the begin that sets name from the
	begin's pointer (name = f(ptr)), or that sets the pointer from name in
	a way that can be inverted (ptr = (void __user *)name - n); 0 when
	there is none (or name is set otherwise last)."""
	ptr = r.pointer
	for s in previous_statements(ctx, r):
		text = flat(text_of(ctx.lines, s))
		if re.match(r'^%s = ' % re.escape(name), text):
			return s[0] if source.uses(text.split('=', 1)[1], ptr) else 0
		if re.match(r'^%s = \((?:const )?void __user \*\) ?%s - [\w>-]+;$'
			    % (re.escape(ptr), re.escape(name)), text):
			return s[0]
	return 0


def masked_range(ctx: Context, r: Region, name: str, addr: str) -> Optional[tuple[str, str]]:
	"""Masking covers the first page past the pointer: with a size known
	to the compiler (a struct), members and element addresses lie within
	it; a variable size gets its range checked in front of the scope."""
	if not ctx.masked or not constant_size(r.size, r.pointer):
		return None
	a = flat(addr).replace(' ', '')
	ptr = re.escape(r.pointer)
	if re.search(r'\b%s\s*[-+](?!>)' % ptr, a) or re.search(r'\b%s\[' % ptr, a):
		return ('masked-range', f'{name}() address {flat(addr)} may lie beyond the first '
			'page of a region whose size is not checked')
	return None


def range_checked(ctx: Context, r: Region) -> bool:
	"""An access_ok() of the same range right before the begin, doing what
	its failure does."""
	assert r.stmt is not None
	prev = [i for i in range(r.fn_range[0], r.stmt[0]) if flat(ctx.lines[i - 1])]
	want = flat(f'if (!access_ok({r.pointer}, {r.size})) {r.action}')
	# The check may be wrapped over several lines (transforms.range_check).
	for count in range(2, min(len(prev), 8) + 1):
		if flat('\n'.join(ctx.lines[i - 1] for i in prev[-count:])) == want:
			return True
	return False


def scope_mode(begin: str, modes: set[str], hidden: bool) -> str:
	"""What the accessors do; the begin's mode where some access is out of
	sight (asm, helpers)."""
	if hidden:
		return api.begin_mode(begin) or 'rw'
	if 'rmw' in modes or modes == {'read', 'write'}:
		return 'rw'
	return next(iter(modes))


def inner_ends(ctx: Context, r: Region, end_lines: dict[int, int]) -> bool:
	"""Ends inside the body must come right before a return or goto."""
	lines = ctx.lines
	for (line, col) in sorted(ctx.facts.ends):
		if not r.inside((line, col)):
			continue
		if not END_STMT.match(flat(lines[line - 1])):
			r.skip('unknown-shape', 'end inside the region shares its line')
			return False
		prev = [lines[i - 1] for i in r.body_lines() if i < line and flat(lines[i - 1])]
		nxt = [flat(lines[i - 1]) for i in r.body_lines() if i > line and flat(lines[i - 1])]
		if not nxt or not re.match(r'^(return\b|goto )', nxt[0]) or \
		   (prev and flat(prev[-1]).endswith(')')):
			if line in r.tails:
				if 'tail-out' not in r.needs:
					r.needs.append('tail-out')
				r.inner_ends.append(line)
				continue
			r.skip('unknown-shape', 'end inside the region not right before a return or goto')
			return False
		r.inner_ends.append(line)
		r.ends.add((line, col))
	return True


def tail_exits(ctx: Context, r: Region, end_lines: dict[int, int]) -> dict[int, int]:
	"""Early exits whose tail must run with user access closed:
	`if (c) { end(); calls...; return x; }` inside the region.  The tail
	moves behind a label after the function's last statement, the if
	jumps there, and the scope ends access on the way (tail-out).
	Inner end line -> the line of its return."""
	lines = ctx.lines
	found: dict[int, int] = {}
	body = r.body_lines()
	for line in sorted(end_lines):
		if line not in body:
			continue
		before = [i for i in body if i < line and flat(lines[i - 1])]
		if not before or not re.match(r'^if \(.*\) \{$', flat(lines[before[-1] - 1])):
			continue
		tail = [i for i in body if i > line and flat(lines[i - 1])]
		ret = next((i for i in tail if re.match(r'^return\b.*;$', flat(lines[i - 1]))), None)
		if ret is None or ret - line > 8:
			continue
		rest = [i for i in tail if i > ret]
		if not rest or flat(lines[rest[0] - 1]) != '}' or ret == tail[0]:
			continue
		stmts = [flat(lines[i - 1]) for i in tail if i < ret]
		if any(LABEL_LINE.match(lines[i - 1]) or END_STMT.match(t) or
		       re.match(r'^(goto|break|continue|if|for|while|do|switch)\b', t) or
		       re.search(r'\bunsafe_|__user\b', t)
		       for i, t in zip([i for i in tail if i < ret], stmts)):
			continue
		found[line] = ret
	return found


def scope_label(ctx: Context, r: Region, closing: frozenset[int] = frozenset()) -> bool:
	"""The label the scope jumps to when the begin is rejected; closing:
	the lines of ends other scopes remove."""
	lines = ctx.lines
	fnlo, fnhi = r.fn_range
	gm = source.GOTO.match(r.action)
	if gm:
		r.label = gm.group(1)
		return True
	removed = {line for line, _ in r.ends} | set(closing)
	assert r.end is not None
	cands = sorted(r.fault_labels) + [n for n in source.all_labels(lines, r.end[2], fnhi)
					  if n not in r.fault_labels]
	for n in cands:
		if source.same_action(lines, fnlo, fnhi, [r.action],
				      source.effective(lines, fnlo, fnhi, n, removed)):
			r.label = n
			return True
	if re.match(r'^return\b', r.action):
		r.label = fresh_label(lines, fnlo, fnhi)
		r.needs.append('label')
		return True
	r.skip('begin-failure', f'no label does what the begin failure does ({r.action})')
	return False


def fresh_label(lines: list[str], lo: int, hi: int) -> str:
	taken = set(source.all_labels(lines, lo, hi))
	for name in ('efault', 'Efault', 'efault_scope'):
		if name not in taken:
			return name
	return 'efault_' + str(lo)


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
	r.tag = 'converted-' + shape
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
		return r.skip('positive-begin', 'begin tested positively without an else branch')
	text = text_of(lines, ifs)
	if not text.startswith(('if (user_', 'if (likely(user_')):
		return r.skip('positive-begin', 'begin tested positively inside a larger condition '
			      'or an else-if chain')
	m = re.match(r'^if \((?:likely\()?\w+\((?P<args>.*?)\)\)?\) \{\n(?P<then>.*?)\n\t*\} else \{\n'
		     r'(?P<else>.*?)\n\t*\}$', text, re.S)
	if m is None:
		return r.skip('positive-begin', 'begin tested positively, branches not two blocks')
	then = [flat(x) for x in m.group('then').split('\n') if flat(x)]
	if not then or not END_STMT.match(then[-1]) or any(END_STMT.match(x) for x in then[:-1]):
		return r.skip('positive-begin', 'the then branch does not end with the end of the region')
	if any(re.match(r'^(return|goto|break|continue)\b', x) for x in then):
		return r.skip('positive-begin', 'the then branch leaves early')
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
		return r.skip('positive-begin', 'the if is not followed by the return of the function'
			      + (' and one statement' if outer != ifs else ''))
	if outer != ifs:
		tail = flat(text_of(lines, following[0]))
		if re.search(r'\b(return|goto|break|continue)\b|^[A-Za-z_]\w*:', tail) or \
		   any(LABEL_LINE.match(lines[i - 1]) for i in range(following[0][0], following[0][2] + 1)):
			return r.skip('positive-begin', 'the statement after the else-if chain leaves early')
	for (f, name, at) in ctx.facts.calls:
		if f == r.function and source.contains(ifs, (*at, *at)) and name not in api.OPEN_BEGINS \
		   and calls.classify(name, ctx.file, ctx.facts.functions, ctx.header_inlines) == 'out-of-line':
			return r.skip('out-of-line-call', f'call to {name}() inside the region')
	args = source.split_args(m.group('args'))
	r.pointer = flat(args[0]) if args else ''
	r.needs.append('invert-begin')
	if not source.identifier(r.pointer):
		if not local_pointer_ok(r.pointer):
			return r.skip('pointer-expression', f'pointer {r.pointer} is not a plain identifier')
		r.needs.append('local-pointer')
	r.size = args[1] if len(args) > 1 else ''
	if ctx.masked and r.size and not constant_size(r.size, r.pointer):
		r.needs.append('range-check')
	r.stmt = ifs
	r.tag = 'converted-no-fault'
	r.text = f'{r.name}() tested positively becomes a scope after {", ".join(r.needs)}'
	return r


# ---- labels shared with code outside the converted regions -------------------

def shared_labels(ctx: Context, regions: dict[Pos, Region]) -> None:
	"""Labels whose end a converted region removes must only be reached
	from converted regions: drop regions until that holds."""
	changed = True
	while changed:
		changed = False
		conv = [r for r in regions.values() if r.converted]
		for r in conv:
			for label in sorted(r.fault_labels):
				if not only_from(ctx, r, label, conv):
					r.skip('shared-label', f'label {label} is also reached from outside '
					       'the converted regions')
					changed = True
					break
			if changed:
				break


def only_from(ctx: Context, r: Region, label: str, conv: list[Region]) -> bool:
	lines, facts = ctx.lines, ctx.facts
	fnlo, fnhi = r.fn_range
	mine = [o for o in conv if o.function == r.function]

	def inside(at: Pos) -> bool:
		return any(o.inside(at) for o in mine)
	refs = [at for (f, lb, at) in facts.gotos if f == r.function and lb == label] + \
	       [a.pos for a in facts.accessors if a.function == r.function and a.label == label]
	for (line, col) in refs:
		if inside((line, col)):
			continue
		# a goto from the code of another label that only the regions reach
		src = None
		for i in range(line, fnlo - 1, -1):
			m = LABEL_LINE.match(lines[i - 1])
			if m:
				src = m.group(1)
				break
			if re.match(r'^\s*(return\b|goto )', lines[i - 1]) and i != line:
				break
		if src is None or src == label or not any(src in o.fault_labels for o in mine):
			return False
	i = source.label_line(lines, fnlo, fnhi, label)
	if i is None:
		return False
	j = i - 1
	while j > fnlo and (not flat(lines[j - 1]) or LABEL_LINE.match(lines[j - 1])):
		j -= 1
	prev = flat(lines[j - 1])
	if not re.match(r'^(return\b|goto )', prev):
		# only the own fall-through of a region, into its labelled main end
		if not any(o.end and o.end[0] > j and o.end[0] >= i for o in mine) \
		   or not any(o.end and j < o.end[0] <= i + 1 for o in mine):
			return False
	return True
