# SPDX-License-Identifier: GPL-2.0
"""Ends and labels: the ends inside a region, the early exits whose tail
moves out (tail-out), the label the scope jumps to, and the labels shared
with code outside the converted regions."""

import re

from scoped_uaccess.analysis import source
from scoped_uaccess.analysis.facts import Pos
from scoped_uaccess.analysis.model import Context, Region
from scoped_uaccess.analysis.source import END_STMT, LABEL_LINE, flat
from scoped_uaccess.analysis.status import Reason


def inner_ends(ctx: Context, r: Region, end_lines: dict[int, int]) -> bool:
	"""Ends inside the body must come right before a return or goto."""
	lines = ctx.lines
	for (line, col) in sorted(ctx.facts.ends):
		if not r.inside((line, col)):
			continue
		if not END_STMT.match(flat(lines[line - 1])):
			r.skip(Reason.UNKNOWN_SHAPE, 'end inside the region shares its line')
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
			r.skip(Reason.UNKNOWN_SHAPE, 'end inside the region not right before a return or goto')
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
	r.skip(Reason.BEGIN_FAILURE, f'no label does what the begin failure does ({r.action})')
	return False


def fresh_label(lines: list[str], lo: int, hi: int) -> str:
	taken = set(source.all_labels(lines, lo, hi))
	for name in ('efault', 'Efault', 'efault_scope'):
		if name not in taken:
			return name
	return 'efault_' + str(lo)


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
					r.skip(Reason.SHARED_LABEL, f'label {label} is also reached from outside '
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
