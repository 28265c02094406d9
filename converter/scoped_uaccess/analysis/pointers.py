# SPDX-License-Identifier: GPL-2.0
"""The begin's pointer inside the region: moved (cursor), derived from it
(rederive), the addresses of the accessors (foreign pointers, the
masked range) and the range check in front of a masked scope."""

import re
from typing import Optional

from scoped_uaccess.analysis import source
from scoped_uaccess.analysis.facts import Span
from scoped_uaccess.analysis.model import Context, Region, constant_size
from scoped_uaccess.analysis.source import END_STMT, flat, strip_comments, text_of
from scoped_uaccess.analysis.status import Reason


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


def address_problem(ctx: Context, r: Region, a,
		    idx: Optional[int]) -> Optional[tuple[Reason, str]]:
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
	return Reason.FOREIGN_POINTER, f'{a.name}() address {flat(addr)} is not based on {ptr}'


def derived_pointer(ctx: Context, r: Region, addr: str) -> bool:
	"""Whether addr is based on a pointer assigned from the begin's pointer:
	inside the region (then it is derived from the scope's pointer), or
	just before it (then it is computed again inside: rederive)."""
	assert r.stmt is not None
	names = re.findall(r'\b([A-Za-z_]\w*)\b', strip_comments(addr))
	for name in names:
		if name == r.pointer:
			continue
		if derived_inside(ctx, r, name):
			return True
		# before the begin: the last assignment, within the same block
		line = rederive_source(ctx, r, name)
		if line:
			r.foreign[name] = line
			if 'rederive' not in r.needs:
				r.needs.append('rederive')
			return True
	return False


def derived_inside(ctx: Context, r: Region, name: str) -> bool:
	"""Whether the region sets name from the begin's pointer (`name = ...;`,
	or a declaration `T *name = ...;`, on one line or over several)."""
	lines = ctx.lines
	assign = re.compile(r'^\s*(?:[\w\s]*[\s\*])?%s\s*=\s*(?P<rhs>[^;]*);' % re.escape(name))
	texts = [lines[i - 1] for i in r.body_lines()] + [flat(text_of(lines, sp)) for sp in r.body]
	return any((m := assign.match(text)) and source.uses(m.group('rhs'), r.pointer)
		   for text in texts)


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


# A member of a struct, an element at a constant index: `->a.b[2]`, `.c[NR]`.
_MEMBER = r'(?:(?:->|\.)[A-Za-z_]\w*(?:\[(?:\d+|[A-Z_][A-Z0-9_]*)\])*)'
# Copies whose third argument is the length they copy.
_COPIES = ('unsafe_copy_to_user', 'unsafe_copy_from_user')


def constant_extent(ctx: Context, r: Region, name: str, args: list[str],
		    idx: Optional[int]) -> bool:
	"""Whether an accessor reaches only a constant extent from the begin's
	pointer: its address is the pointer, a member or constant element of
	it (`&uc->uc_sigmask`, `&sc->gp_regs[PT_MSR]`), or of a pointer set
	from it (before the region: rederive; or inside), and a copy's length
	is a constant
	(a sizeof(), a number, a macro).  A wrapper that names its address
	reaches the struct at it."""
	if idx is None or idx >= len(args) or 'cursor' in r.needs:
		return False
	addr = re.sub(r'^\([A-Za-z_]\w*\*+\)', '', flat(args[idx]).replace(' ', ''))
	m = re.fullmatch(rf'&?\(?(?P<base>[A-Za-z_]\w*)\)?{_MEMBER}*', addr)
	if m is None or not r.pointer:
		return False
	base = m['base']
	if base != r.pointer and base not in r.foreign and not derived_inside(ctx, r, base):
		return False
	# a cursor (the pointer, or one set from it, moved in the region)
	moved = re.compile(r'(\+\+|--)\s*%s\b|\b%s\s*(\+\+|--|[-+]=)' % ((re.escape(base),) * 2))
	if any(moved.search(strip_comments(ctx.lines[i - 1])) for i in r.body_lines()):
		return False
	if name in _COPIES:
		length = flat(args[2]) if len(args) > 2 else ''
		return re.fullmatch(r'sizeof\s*\(.*\)|\d+|[A-Z_][A-Z0-9_]*', length) is not None
	return name != 'unsafe_copy_dirent_name'


def masked_range(ctx: Context, r: Region, name: str, addr: str) -> Optional[tuple[Reason, str]]:
	"""Masking covers the first page past the pointer: with a size known
	to the compiler (a struct), members and element addresses lie within
	it; a variable size gets its range checked in front of the scope."""
	if not ctx.masked or not constant_size(r.size, r.pointer):
		return None
	a = flat(addr).replace(' ', '')
	ptr = re.escape(r.pointer)
	if re.search(r'\b%s\s*[-+](?!>)' % ptr, a) or re.search(r'\b%s\[' % ptr, a):
		return (Reason.MASKED_RANGE, f'{name}() address {flat(addr)} may lie beyond the first '
			'page of a region whose size is not checked')
	return None


def range_checked(ctx: Context, r: Region) -> bool:
	"""An access_ok() of the same range right before the begin, doing what
	its failure does, or one made earlier on every path to the begin."""
	assert r.stmt is not None
	prev = [i for i in range(r.fn_range[0], r.stmt[0]) if flat(ctx.lines[i - 1])]
	want = flat(f'if (!access_ok({r.pointer}, {r.size})) {r.action}')
	# The check may be wrapped over several lines (transforms.range_check).
	for count in range(2, min(len(prev), 8) + 1):
		if flat('\n'.join(ctx.lines[i - 1] for i in prev[-count:])) == want:
			return True
	return earlier_check(ctx, r) != 0


# `if (A || !access_ok(p, n) || B) return ...;` (or goto, or a block that
# ends in one): the check, one of the disjuncts of a condition whose branch
# leaves.
_LEAVING_IF = re.compile(r'^if \((?P<cond>.*)\) (?:\{ (?:[^{}]*; )?)?(?:return\b[^;]*|goto \w+);(?: \})?$')


def earlier_check(ctx: Context, r: Region) -> int:
	"""The line of an access_ok() of the begin's range that every path to
	the begin passes first, leaving the function when it fails: a
	statement before the begin's if in its block or in a block around it,
	`if (... || !access_ok(P, N) || ...) return/goto`, with neither P's
	nor N's variables assigned anywhere after it; 0 when there is
	none.  The begin's range check then always passes, and a scope in its
	place gives the same result without a check of its own (powerpc's
	sys_swapcontext() checks new_ctx, ctx_size twenty lines before it
	reads it)."""
	assert r.stmt is not None
	stmts = ctx.facts.stmts.get(r.function, set())
	want = f'!access_ok({flat(r.pointer)}, {flat(r.size)})'.replace(' ', '')
	names = set(re.findall(r'(?<![\w.>])([A-Za-z_]\w*)', strip_comments(f'{r.pointer} {r.size}')))
	node: Optional[Span] = r.stmt
	while node is not None:
		parent = source.parent_of(stmts, node)
		before = sorted((s for s in stmts if s != node and source.parent_of(stmts, s) == parent
				 and (s[2], s[3]) <= (node[0], node[1])), reverse=True)
		for s in before:
			m = _LEAVING_IF.match(flat(text_of(ctx.lines, s)))
			if m is None or not _checks_range(ctx, r, m['cond'], want):
				continue
			# anywhere after the check: a loop could bring a later one back
			# (a local declared with its one value is that value)
			moved = any(f == r.function and v in names and (s[2], s[3]) < at
				    and set_once(ctx, r, v) is None for f, v, at in ctx.facts.assigns)
			return 0 if moved else s[0]
		node = parent
	return 0


# copy_from_user(to, from, n) and copy_to_user(to, from, n) check their
# user range with access_ok() and fail when it is refused.
_COPIES_CHECKED = {'copy_from_user': 1, 'copy_to_user': 0}


def _checks_range(ctx: Context, r: Region, cond: str, want: str) -> bool:
	"""Whether cond fails when the begin's range is refused: one of its
	disjuncts is !access_ok() of that range, or the whole condition is a
	copy_from_user()/copy_to_user() of it (by value: locals set once from
	an expression stand for it, factors of a product in any order,
	sizeof(*p) as the type p points to: i915's execbuffer ioctl copies
	count * sizeof(*exec2_list) from u64_to_user_ptr(args->buffers_ptr)
	before it writes back through user_exec_list, set from the same)."""
	if want in (d.replace(' ', '') for d in _disjuncts(cond)):
		return True
	m = re.fullmatch(r'(\w+)\s*\((.*)\)', cond.strip())
	if m is None or m.group(1) not in _COPIES_CHECKED:
		return False
	args = source.split_args(m.group(2))
	if len(args) != 3:
		return False
	return (_value(ctx, r, args[_COPIES_CHECKED[m.group(1)]]) == _value(ctx, r, r.pointer) and
		_value(ctx, r, args[2]) == _value(ctx, r, r.size))


def _value(ctx: Context, r: Region, expr: str) -> str:
	"""expr as a value, for comparing two spellings of it in r's function."""
	lo, hi = r.fn_range
	# from the declaration of the function (its parameters) to its end
	head = next((k for k in range(lo - 1, 0, -1) if re.match(r'^[A-Za-z_]', ctx.lines[k - 1])), lo)
	body = '\n'.join(ctx.lines[head - 1:hi])

	def local(name: str) -> Optional[str]:
		return set_once(ctx, r, name)

	def pointee(name: str) -> Optional[str]:
		m = re.search(rf'(?:^\s*|[(,]\s*)(?:const\s+)?((?:struct\s+|union\s+)?\w+)(?:\s+__user)?'
			      rf'\s*\*\s*{re.escape(name)}\b', body, re.M)
		return ' '.join(m.group(1).split()) if m else None

	text = flat(expr)
	if re.fullmatch(r'[A-Za-z_]\w*', text) and (init := local(text)):
		text = init
	text = re.sub(r'\bsizeof\s*\(\s*\*\s*([A-Za-z_]\w*)\s*\)',
		      lambda m: f'sizeof({pointee(m.group(1)) or "*" + m.group(1)})', text)
	text = re.sub(r'\(\s*&\s*([^()]+?)\s*\)\s*->', r'\1.', text)
	factors = _factors(text.replace(' ', ''))
	return '*'.join(sorted(factors))


def set_once(ctx: Context, r: Region, name: str) -> Optional[str]:
	"""The value a local of r's function is declared with, when that is
	its only assignment (`const size_t count = args->buffer_count;`)."""
	sets = [at for f, v, at in ctx.facts.assigns if f == r.function and v == name]
	if len(sets) != 1:
		return None
	line = ctx.lines[sets[0][0] - 1]
	m = re.match(rf'^\s*(?:const\s+)?[A-Za-z_][\w\s]*?[\s\*]{re.escape(name)}\s*=\s*(.*)$', line)
	if m is None:
		return None
	value, k = m.group(1), sets[0][0]
	while not value.rstrip().endswith(';') and k < len(ctx.lines) and k - sets[0][0] < 4:
		value += ' ' + ctx.lines[k].strip()
		k += 1
	return flat(value.rstrip().rstrip(';')) if value.rstrip().endswith(';') else None


def _factors(expr: str) -> list[str]:
	"""The operands of a top-level product (a lone expression is one)."""
	parts, depth, last = [], 0, 0
	for i, c in enumerate(expr):
		depth += {'(': 1, ')': -1}.get(c, 0)
		if depth == 0 and c == '*' and i > last:
			parts.append(expr[last:i])
			last = i + 1
	return parts + [expr[last:]]


def _disjuncts(cond: str) -> list[str]:
	"""The operands of the top-level || of a condition."""
	parts, depth, last = [], 0, 0
	for i, c in enumerate(cond):
		depth += {'(': 1, ')': -1}.get(c, 0)
		if depth == 0 and cond.startswith('||', i):
			parts.append(cond[last:i].strip())
			last = i + 2
	return parts + [cond[last:].strip()]
