# SPDX-License-Identifier: GPL-2.0
"""When a masked scope must keep its range check, and when one made earlier decides it.

Masking checks where a range starts, not where it ends.  The check of
the whole range stays in front of a scope of a file built where masking
exists when the result could depend on it: the region can leave early
with a result of its own (early_exit()), an index can jump past the
guard above user space (indexed_address(), unless the index walks the
range densely: dense_index()), or no access reaches the end of the range
the begin checked (size_only_checked(), with constant_extent() per
access).  It is not added when a check of the same range was made
earlier on every path to the begin (earlier_check()).
"""

import re
from typing import Optional

from scoped_uaccess.analysis import source
from scoped_uaccess.analysis.facts import Span
from scoped_uaccess.analysis.model import Context, Region
from scoped_uaccess.analysis.pointers import derived_inside
from scoped_uaccess.analysis.source import flat, pretty, strip_comments, text_of


def early_exit(lines: list[str], body: range, failure: str = '') -> str:
	"""The first statement that leaves the region early with a result of
	its own (a return, a goto that is not an accessor's fault jump), as
	text; '' when the region only falls off its end or faults.  An exit
	that does what the begin's failure does (failure, `return -EFAULT;`)
	ends as a refused range would and does not count.

	Masking checks no size: a range that runs past the top of user space
	faults only when an access reaches the guard, where the checked begin
	refused it at once.  With no early exit every such call still ends in
	the fault path, only after some of its accesses (the result is the
	same, as in mainline's conversions of poll and put_cmsg); with one,
	the loop can stop there first and return its value instead: that is
	when access_ok() of the range stays in front of the scope."""
	code = source.blank_comments('\n'.join(lines[body.start - 1:body.stop - 1])).split('\n')
	for text in code:
		m = re.search(r'\b(return\b[^;]*;|goto\s+\w+\s*;)', text)
		if m and ' '.join(m.group(1).split()) != ' '.join(failure.split()):
			return ' '.join(m.group(1).split())
	return ''


def size_only_checked(lines: list[str], body: range, size: str) -> str:
	"""`the size N` when the region's accesses cannot depend on the size
	its begin checks (the caller has found every access within a constant
	extent of the pointer, constant_extent()), and no variable
	the size is computed from (outside a sizeof()) is read in the region;
	'' otherwise.

	Then the begin's range check is all that refused a bad size (a
	negative one, one past the top of user space: powerpc's
	sys_swapcontext() writes a struct ucontext whatever ctx_size says,
	and returned -EFAULT for a ctx_size access_ok() refused).  Masking
	checks no size, so with nothing in the region reaching the end of the
	range the call would now succeed: access_ok() of the range stays in
	front of the scope, which keeps the result the checked begin gave."""
	expr = re.sub(r'\b(?:sizeof|typeof)\s*\((?:[^()]|\([^()]*\))*\)', ' ', strip_comments(size))
	# the variables: identifiers that are not members, casts' types or keywords
	expr = re.sub(r'\(\s*(?:const\s+|unsigned\s+|struct\s+|union\s+)*\w+[\s\*]*\)', ' ', expr)
	names = {n for n in re.findall(r'(?<![\w.>])([A-Za-z_]\w*)', expr)
		 if not re.fullmatch(r'[A-Z_][A-Z0-9_]*', n)}
	if not names:
		return ''
	code = source.blank_comments('\n'.join(lines[body.start - 1:body.stop - 1]))
	if any(source.uses(code, n) for n in names):
		return ''
	return f'the size {flat(size)}'


def indexed_address(ptr: str, args: list[str], idx: int) -> str:
	"""The accessor's address when it is an index or an offset from the
	region's pointer (`&p[i].x`, `p + n`), as `the access ADDRESS`; ''.
	Masking keeps a pointer out of the kernel for accesses that start at
	it and move up densely (the guard between user and kernel space is a
	page on x86-64, 128 KiB on 32-bit powerpc): an index can jump past it,
	so access_ok() of the range stays in front of such a scope."""
	if not ptr or idx >= len(args):
		return ''
	addr = flat(args[idx]).replace(' ', '')
	if re.search(r'\b%s\s*[-+](?![-+>=])' % re.escape(ptr), addr) or \
	   re.search(r'\b%s\[' % re.escape(ptr), addr):
		return f'the access {pretty(flat(args[idx]))}'
	return ''


def dense_index(lines: list[str], r: Region, line: int, addr: str) -> bool:
	"""Whether an access `&p[i]...` walks the range densely: i is the
	counter of a loop around it in the region, `for (i = 0; ...; i++)`,
	and no `continue` of that loop comes before the access, so every
	element from the first is accessed in turn (the first within the
	first page, each next one a step up: the walk meets the guard above
	user space before it could pass it)."""
	m = re.search(r'\b%s\s*\[\s*([A-Za-z_]\w*)\s*\]' % re.escape(r.pointer), flat(addr))
	if m is None:
		return False
	i = re.escape(m.group(1))
	head = re.compile(rf'\bfor\s*\(\s*{i}\s*=\s*0\s*;[^;]*;\s*({i}\s*\+\+|\+\+\s*{i}|{i}\s*\+=\s*1)\s*\)')
	code = source.blank_comments('\n'.join(lines)).split('\n')
	level = source.indent(lines[line - 1])
	for k in range(line - 1, r.stmt[2] if r.stmt else 0, -1):
		text = code[k - 1]
		if re.search(r'\bcontinue\s*;', text):
			return False
		if head.search(text) and source.indent(lines[k - 1]) < level:
			return True
	return False


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
