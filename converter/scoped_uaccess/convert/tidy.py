# SPDX-License-Identifier: GPL-2.0
"""Kernel layout and a reviewer's clean-ups for what a spatch pass wrote.

A scope's body that does not end in a statement (a comment, #endif, a
block) leaves the `;` of the scope rule on a line of its own in the
block; drop_lone_semicolons() removes it (an SmPL rule removing it would
take the comment before it along).  tidy() puts the lines a pass added
into kernel layout where spatch's printer does not: a `{` it opens after
`else` on the same line as the first statement, blank lines it copies
with their indentation, or twice; it drops the #ifdef/#endif pair a
scope emptied (spatch moves statements, not directives); and it makes
the clean-ups a reviewer would ask for, each reported as a Note for
the changelog.
"""

import difflib
import os
import re
from pathlib import Path
from typing import Optional

from scoped_uaccess.analysis import source
from scoped_uaccess.convert.exits import simplify
from scoped_uaccess.convert.notes import Note, Notes
from scoped_uaccess.convert.functions import (CONSTANT, CONSTANT_TEXT, LABEL, SCOPE_HEAD, block_end,
					      functions, jumps_to, label_blocks, writes)

def drop_lone_semicolons(path: Path) -> None:
	"""Removes a line holding only `;` that closes a scope's block."""
	lines = path.read_text(errors='replace').split('\n')
	out = [line for i, line in enumerate(lines)
	       if not (line.strip() == ';' and i + 1 < len(lines)
		       and lines[i + 1].strip() == '}'
		       and len(lines[i + 1]) - len(lines[i + 1].lstrip('\t')) ==
		       len(line) - len(line.lstrip('\t')) - 1)]
	if len(out) != len(lines):
		path.write_text('\n'.join(out))




def tidy(path: Path, before: str) -> Notes:
	"""Kernel layout for the lines a pass inserted (the others stay as
	they were), and the clean-ups a reviewer would ask for: twin labels
	merged, a label that only repeats what the scope's label does
	dropped, a result returned from the scope.  Returns what the
	clean-ups did, per function, for the changelog."""
	notes: Notes = []
	old = before.split('\n')
	new = path.read_text(errors='replace').split('\n')
	ops = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
	out: list[str] = []
	for op, _, _, j1, j2 in ops:
		if op == 'equal':
			out.extend(new[j1:j2])
			continue
		for line in new[j1:j2]:
			m = re.match(r'^(\t*)(\} else \{|else \{)(\S.*)$', line)
			if m:
				out.extend([m.group(1) + m.group(2), m.group(1) + '\t' + m.group(3)])
			elif not line.strip():
				if out and not out[-1].strip():
					continue
				out.append('')
			elif re.match(r'^\s+#\s*(?:if|ifdef|ifndef|elif|else|endif)\b', line) and \
			     not (out and out[-1].rstrip().endswith('\\')):
				# spatch indents a directive it moves like code: the
				# kernel keeps them in column 0.
				out.append(line.lstrip(' \t'))
			elif line.strip() == '{}' and _after_statement(out):
				# spatch leaves an empty block where it removed the
				# statements in front of a do-while that a scope took.
				continue
			else:
				# spatch indents what it adds like the statement before
				# it, spaces included: the kernel indents with tabs.
				m = re.match(r'^(\t*)((?: {8})+)(\S.*)$', line)
				out.append(m.group(1) + '\t' * (len(m.group(2)) // 8) + m.group(3) if m else line)
	out = _drop_orphans(out, before)
	out = _merge_twin_labels(out, before, notes)
	out = _merge_known_value_label(out, before, notes)
	out = _merge_tail_return(out, before)
	out = _fold_known_test(out, before)
	out = _fold_label_return(out, before)
	out = simplify(out, before, notes)
	out = _return_from_scope(out, before, notes)
	out = _no_blank_before_label(out, before)
	# A conditional block whose statements moved into a scope stays behind
	# empty (spatch moves statements, not directives).
	i = 0
	while i + 1 < len(out):
		pair = out[i] + '\n' + out[i + 1]
		if re.match(r'^\s*#\s*if', out[i]) and re.match(r'^\s*#\s*endif', out[i + 1]) \
		   and pair not in before:
			del out[i:i + 2]
		else:
			i += 1
	if out != new:
		path.write_text('\n'.join(out))
	return notes


def _no_blank_before_label(lines: list[str], before: str) -> list[str]:
	"""A blank line the passes left between a new scope's `}` and a label
	that had none before it (i915's `end:;` once `end_user:` went)."""
	old = before.split('\n')
	bare = {old[k] for k in range(1, len(old))
		if re.match(r'^[A-Za-z_]\w*:;?$', old[k]) and old[k - 1].strip()}
	out = list(lines)
	k = 1
	while k + 1 < len(out):
		if not out[k].strip() and re.match(r'^\t+\}$', out[k - 1]) and out[k + 1] in bare:
			head = next((h for h in range(k - 2, -1, -1) if SCOPE_HEAD.match(out[h]) and
				     block_end(out, h) == k - 1), None)
			if head is not None and out[head] not in old:
				del out[k]
				continue
		k += 1
	return out


def _added_label(line: str, before: str) -> bool:
	"""Whether line is a label (`name:`) that the file did not have before."""
	return bool(re.match(r'^[A-Za-z_]\w*:$', line)) and \
		not re.search(rf'^{re.escape(line)}', before, re.M)




def _under_added_label(line: str, before: str, inside: bool) -> bool:
	"""Whether line and those after it are under a label the conversion
	added (inside: whether the line before was); a function's `}` ends it."""
	if LABEL.match(line):
		return _added_label(line, before)
	return False if line.startswith('}') else inside
def _merge_twin_labels(lines: list[str], before: str, notes: Notes) -> list[str]:
	"""Two fault labels of a function that the conversion left doing the
	same thing, ending in a return (Efault_read: and Efault_write: of
	emulate_spe() once their ends went): the second one's jumps go to the
	first, named for both, and the second goes.  Only labels whose code
	differed before the conversion: twins the author wrote stay."""
	old = before.split('\n')
	old_blocks = {}
	for head, lo, hi in functions(old):
		old_blocks[head] = label_blocks(old, lo, hi)
	out = list(lines)
	for head, lo, hi in list(functions(out)):
		was = old_blocks.get(head, {})
		blocks = label_blocks(out, lo, hi)
		names = list(blocks)
		for a_i, a in enumerate(names):
			for b in names[a_i + 1:]:
				code = blocks[a][1]
				if not code or code != blocks[b][1] or a not in was or b not in was or \
				   was[a][1] == was[b][1] or not re.match(r'^\t+return\b', code[-1]):
					continue
				common = os.path.commonprefix([a, b]).rstrip('_')
				used = any(re.search(rf'\b{common}\b', line) for line in out[lo:hi])
				name = common if common and not used else a
				notes.append(Note(head, 'labels', f'{head}() had two fault labels, {a} and {b}, that ended '
					      'their own regions and then both returned '
					      f'{code[-1].strip()[len("return "):-1]}; with the regions ended '
					      f'by the scopes they would do the same, so {name} serves '
					      'both.'))
				return _merge_twin_labels(_merge_label(out, lo, hi, blocks, a, b, name), before,
							  notes)
	return out


def _value_at(lines: list[str], lo: int, h: int, close: int, var: str, value: str,
	      labels: dict[str, tuple[int, list[str]]]) -> bool:
	"""Whether var holds value on every path into the function-level scope
	lines[h..close]: declared with it as initializer, every other write
	before the scope followed by a jump past the scope or a return, no
	jump after the scope back before it, no write inside it."""
	v = re.escape(var)
	decl = next((k for k in range(lo, h) if re.match(rf'^\t[A-Za-z_][^=;(]*\b{v} = '
							 rf'{re.escape(value)}[,;]', lines[k])), None)
	if decl is None:
		return False
	for k in range(decl + 1, h):
		if not writes(var, lines[k]):
			continue
		nxt = next((j for j in range(k + 1, h) if lines[j].strip()), None)
		if nxt is None:
			return False
		m = re.match(r'^\t+goto (\w+);$', lines[nxt])
		if not (re.match(r'^\t+return\b', lines[nxt]) or
			(m and m.group(1) in labels and labels[m.group(1)][0] > close)):
			return False
	for k in range(close, len(lines)):
		if lines[k] == '}':
			break
		m = re.search(r'\bgoto (\w+);', lines[k])
		if m and m.group(1) in labels and labels[m.group(1)][0] < h:
			return False
	return not any(writes(var, lines[k]) for k in range(h, close))


def _merge_known_value_label(lines: list[str], before: str, notes: Notes) -> list[str]:
	"""A fault label whose code is now `V = C; goto M;`, jumped to only
	from new function-level scopes that fail to M, where V already holds C
	(do_sys_poll(): `int err = -EFAULT`, and only `err = -ENOMEM; goto
	out_fds;` before the scope): the jumps go to M and the label goes."""
	old = before.split('\n')
	old_set = set(old)
	was = {head: label_blocks(old, lo, hi) for head, lo, hi in functions(old)}
	out = list(lines)
	for head, lo, hi in list(functions(out)):
		labels = label_blocks(out, lo, hi)
		for name, (at, code) in labels.items():
			m1 = re.match(rf'^\t([A-Za-z_]\w*) = ({CONSTANT_TEXT});$', code[0]) if code else None
			m2 = re.match(r'^\tgoto (\w+);$', code[1]) if len(code) == 2 else None
			if not (m1 and m2) or m2.group(1) not in labels or \
			   was.get(head, {}).get(name, (0, code))[1] == code:
				continue
			var, value = m1.groups()
			target = m2.group(1)
			refs = [k for k in range(lo, hi) if k != at and jumps_to(name).search(out[k])]
			scopes = []
			for h in range(lo, hi):
				if SCOPE_HEAD.match(out[h]) and out[h] not in old_set and \
				   not out[h].startswith('\t\t') and out[h].endswith(f', {target}) {{'):
					close = block_end(out, h)
					if close is not None:
						scopes.append((h, close))
			inside = [k for k in refs if any(h < k < c for h, c in scopes)]
			if not refs or inside != refs or not all(
					_value_at(out, lo, h, c, var, value, labels) for h, c in scopes
					if any(h < k < c for k in refs)):
				continue
			jump = jumps_to(name)
			for k in refs:
				out[k] = jump.sub(rf'\g<1>{target}\g<2>', out[k])
			del out[at:at + 1 + len(code)]
			if not out[at - 1].strip() and out[at] == '}':
				del out[at - 1]
			notes.append(Note(head, 'labels', f'The fault label {name} of {head}() ended the region, set '
				      f'{var} to {value} and went to {target}.  In the scope {var} holds '
				      f'{value} already (its initial value; the only writes before the '
				      f'scope leave past it), so the accesses go to {target} directly, '
				      'as a refused begin does, and the label goes.'))
			return _merge_known_value_label(out, before, notes)
	return out


def _merge_label(lines: list[str], lo: int, hi: int, blocks: dict[str, tuple[int, list[str]]],
		 keep: str, drop: str, name: str) -> list[str]:
	"""Label drop's block removed, jumps to keep or drop go to name."""
	start = blocks[drop][0]
	stop = next((i for i in range(start + 1, hi) if LABEL.match(lines[i])), hi)
	out = lines[:start] + lines[stop:]
	if not out[start - 1].strip() and (out[start] == '}' or not out[start].strip()):
		del out[start - 1]
	jump = re.compile(rf'(goto\s+|,\s*)({re.escape(keep)}|{re.escape(drop)})(\s*[;)])')
	i = lo
	while out[i] != '}':
		if out[i] == f'{keep}:':
			out[i] = f'{name}:'
		else:
			out[i] = jump.sub(rf'\g<1>{name}\g<3>', out[i])
		i += 1
	return out


def _merge_tail_return(lines: list[str], before: str) -> list[str]:
	"""`return E;` then a fault label the conversion added whose code is
	the same `return E;`: the scope falls through into the label instead
	(the same statement runs on both paths)."""
	out = list(lines)
	i = 0
	while i + 2 < len(out):
		ret, label, tail = out[i:i + 3]
		if re.match(r'^\t+return\b[^;]*;$', ret) and ret == tail and \
		   _added_label(label, before):
			del out[i]
		else:
			i += 1
	return out


def _fold_known_test(lines: list[str], before: str) -> list[str]:
	"""Under a fault label the conversion added, `err = -EFOO;` then
	`if (err) S;` (the function's tail, copied behind the label): the test
	is always true there, so S stays and the test goes."""
	out = list(lines)
	label_added = False
	i = 0
	while i + 2 < len(out):
		line = out[i]
		label_added = _under_added_label(line, before, label_added)
		m = re.match(r'^(\t+)([A-Za-z_]\w*) = -E[A-Z0-9]+;$', line)
		if label_added and m:
			ind, var = m.groups()
			body = out[i + 2]
			rest = out[i + 3] if i + 3 < len(out) else ''
			if out[i + 1] == f'{ind}if ({var})' and re.match(rf'^{ind}\t\S.*;$', body) \
			   and not rest.startswith(ind + '\t') and not rest.startswith(ind + 'else'):
				out[i + 1:i + 3] = [ind + body[len(ind) + 1:]]
		i += 1
	return out


def _fold_label_return(lines: list[str], before: str) -> list[str]:
	"""Under a label the conversion added, `V = C;` with C a constant,
	statements that neither use V nor jump, then `return V;`: the label
	returns C.  (The begin failure's tail copied behind the label set V
	only to return it: `err = -EFAULT; regs->dar = ea; return err;`.)"""
	out = list(lines)
	label_added = False
	i = 0
	while i < len(out):
		line = out[i]
		label_added = _under_added_label(line, before, label_added)
		m = re.match(rf'^\t([A-Za-z_]\w*) = ({CONSTANT});$', line)
		if label_added and m:
			var, value = m.groups()
			j = i + 1
			while j < len(out) and not LABEL.match(out[j]) and out[j] != '}' and \
			      not re.search(rf'\b({re.escape(var)}|goto|return)\b', out[j]):
				j += 1
			if j < len(out) and out[j] == f'\treturn {var};':
				out[j] = f'\treturn {value};'
				del out[i]
				continue
		i += 1
	return out


def _return_from_scope(lines: list[str], before: str, notes: Notes) -> list[str]:
	"""A new scope at function level whose last statement is `V = E;`,
	followed by `return V;`, where V is a local the function uses nowhere
	else: the scope returns E, as mainline's hand conversions do
	(`scoped_user_read_access_size(uea, nb, efault) return ...`), and V
	goes.  Leaving the scope by return ends the region as falling out of
	it does."""
	old = set(before.split('\n'))
	out = list(lines)
	for fn, lo, hi in functions(out):
		for h in range(lo, hi):
			if not SCOPE_HEAD.match(out[h]) or out[h] in old or out[h].startswith('\t\t'):
				continue
			close = block_end(out, h)
			if close is None or close + 1 >= hi:
				continue
			m = re.match(r'^\t\t([A-Za-z_]\w*) = (.+);$', out[close - 1])
			prev = next((out[k] for k in range(close - 2, h - 1, -1) if out[k].strip()), '')
			if not m or not re.search(r'[;{]$', prev):
				continue
			var, value = m.groups()
			ret = next((k for k in range(close + 1, hi) if out[k].strip()), None)
			if ret is None or out[ret] != f'\treturn {var};':
				continue
			uses = [k for k in range(lo, hi) if re.search(rf'\b{re.escape(var)}\b', out[k])]
			decls = [k for k in uses if re.match(rf'^\t(?!return\b)[A-Za-z_][\w ]*[\w*] ?\*?'
							      rf'{re.escape(var)}(?: = {CONSTANT})?;$', out[k])]
			if len(decls) != 1 or sorted(uses) != sorted([decls[0], close - 1, ret]):
				continue
			out[close - 1] = f'\t\treturn {value};'
			del out[ret]
			if not out[ret - 1].strip() and (not out[ret].strip() or LABEL.match(out[ret])
							 and not out[ret - 2] == '\t}'):
				del out[ret - 1]
			d = decls[0]
			del out[d]
			if out[d - 1] == '{' and not out[d].strip():
				del out[d]
			notes.append(Note(fn, 'return', var))
			return _return_from_scope(out, before, notes)
	return out


def _after_statement(out: list[str]) -> bool:
	"""Whether the last non-blank line of out ends a statement or opens or
	closes a block (so a `{}` after it is a statement of its own, not the
	body of an if or a loop)."""
	last = next((line for line in reversed(out) if line.strip()), '')
	return bool(re.search(r"[;{}]\s*$", source.strip_comments(last)))


def _drop_orphans(lines: list[str], before: str) -> list[str]:
	"""Comments and directives of a region that spatch left in front of
	the scope that now holds them: spatch removes statements, and what
	lay between them stays.  Above each new scope, the run of comment,
	directive and blank lines whose text the scope's block repeats goes,
	if its conditionals balance."""
	old = set(before.split('\n'))
	code = source.blank_comments('\n'.join(lines)).split('\n')
	drop: set[int] = set()
	for h, line in enumerate(lines):
		if not SCOPE_HEAD.match(line) or line in old:
			continue
		close = block_end(lines, h)
		if close is None:
			continue
		inside = {x.strip() for x in lines[h + 1:close]}
		run: list[int] = []
		i = h - 1
		while i >= 0:
			if not lines[i].strip():
				run.append(i)
				i -= 1
				continue
			if code[i].lstrip().startswith('#') and lines[i].strip() in inside:
				run.append(i)
				i -= 1
				continue
			# a comment goes whole or not at all
			start = _comment_start(lines, code, i)
			if start is None or any(lines[j].strip() not in inside for j in range(start, i + 1)):
				break
			run.extend(range(i, start - 1, -1))
			i = start - 1
		while run and not lines[run[-1]].strip():
			run.pop()
		text = [lines[j] for j in run]
		opened = sum(bool(re.match(r'^\s*#\s*if', t)) for t in text)
		closed = sum(bool(re.match(r'^\s*#\s*endif', t)) for t in text)
		if any(t.strip() for t in text) and opened == closed:
			drop.update(run)
	return [line for j, line in enumerate(lines) if j not in drop]


def _comment_start(lines: list[str], code: list[str], end: int) -> Optional[int]:
	"""The first line of the comment that ends on line end and holds
	nothing but comment from its start; None if line end is not that."""
	if code[end].strip() or not lines[end].rstrip().endswith('*/'):
		return None
	for j in range(end, max(end - 50, -1), -1):
		if code[j].strip():
			return None
		if lines[j].lstrip().startswith('/*'):
			return j
	return None


# ---- syscall headers ---------------------------------------------------------
# spatch parses a function under SYSCALL_DEFINEn() only in its recovery
# passes, which also expand the file's own statement macros: a region
# using one (powerpc's unsafe_setup_sigcontext()) has a statement spatch
# places in the #define and cannot move.  For the passes, the header is
# written as the function it declares, line for line, and put back after.
