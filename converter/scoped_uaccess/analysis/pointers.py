# SPDX-License-Identifier: GPL-2.0
"""The begin's pointer inside the region: moved (cursor), derived from it
(rederive), and the addresses of the accessors (foreign pointers, the
masked range)."""

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
