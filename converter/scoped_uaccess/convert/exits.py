# SPDX-License-Identifier: GPL-2.0
"""The ways out of a converted function, as a reviewer would write them.

Open-coded regions route their exits through labels because each exit
had to end the region: `ret = -EINVAL; goto out;` with `out:
user_read_access_end(); return ret;`.  Once the scope ends the region
on every exit, what the labels did is only the return, and a reviewer
asks for it where the value is known:

- a result set only to jump to a label that returns it is returned
  where it is set (`ret = -EINVAL; goto uaccess_end;` becomes
  `return -EINVAL;`, and a label `Efault: ret = false; goto done;`,
  with `done: return ret;`, returns false);
- a fault label that returns a variable which holds the fault's value
  (-EFAULT) at every access that jumps there is replaced, for those
  accesses, by the label that returns that value;
- a label nothing jumps to any more goes (the code under it stays when
  the statement before falls into it);
- a label named for the region end it no longer makes (`ua_end`,
  `uaccess_end`) and that returns -EFAULT is named `efault`.

Only functions with a new scope are touched, and each clean-up adds a
Note for the changelog.  Leaving a scope by return ends the region as
falling out of it does, so a return inside a scope is no change.
"""

import re
from typing import Optional

from scoped_uaccess.convert.functions import (CONSTANT_TEXT, LABEL, SCOPE_HEAD, block_end,
					      functions, jumps_to, label_blocks, writes)
from scoped_uaccess.convert.notes import Note, Notes

_END_NAME = re.compile(r'(^|_)end($|_)')


def simplify(lines: list[str], before: str, notes: Notes) -> list[str]:
	"""All the clean-ups above, until none applies."""
	old = set(before.split('\n'))
	out = list(lines)
	for _ in range(20):
		changed = False
		for fn, lo, hi in list(functions(out)):
			if not any(SCOPE_HEAD.match(out[k]) and out[k] not in old for k in range(lo, hi)):
				continue
			for rule in (_return_where_set, _known_fault_value, _unused_label, _rename_end_label):
				new = rule(out, lo, hi, fn, notes)
				if new is not None:
					out, changed = new, True
					break
			if changed:
				break
		if not changed:
			return out
	return out


def _returning(blocks: dict[str, tuple[int, list[str]]], name: str) -> Optional[str]:
	"""The variable a label's block returns, when that is all it does."""
	code = blocks.get(name, (0, []))[1]
	m = re.match(r'^\treturn ([A-Za-z_]\w*);$', code[0]) if len(code) == 1 else None
	return m.group(1) if m else None


def _return_where_set(lines: list[str], lo: int, hi: int, fn: str, notes: Notes) -> Optional[list[str]]:
	"""`V = C; goto L;` where L only returns V: `return C;`; a block that
	is left holding that one statement loses its braces."""
	blocks = label_blocks(lines, lo, hi)
	for k in range(lo, hi - 1):
		m = re.match(rf'^(\t+)([A-Za-z_]\w*) = ({CONSTANT_TEXT});$', lines[k])
		g = re.match(r'^(\t+)goto (\w+);$', lines[k + 1])
		if not (m and g) or m.group(1) != g.group(1) or _returning(blocks, g.group(2)) != m.group(2):
			continue
		tabs, var, value = m.groups()
		label = g.group(2)
		out = lines[:k] + [f'{tabs}return {value};'] + lines[k + 2:]
		# `if (c) {` / the return / `}`: braces the kernel leaves out
		if k > 0 and re.match(r'^\t+(if|else if) \(.*\) \{$|^\t+else \{$', out[k - 1]) and \
		   out[k + 1] == tabs[:-1] + '}' and not out[k + 2].startswith(tabs[:-1] + 'else') and \
		   not out[k - 1].startswith(tabs[:-1] + '} else'):
			out[k - 1] = out[k - 1][:-2]
			del out[k + 1]
		notes.append(Note(fn, 'exits', f'Where {fn}() set {var} to {value} only to go to '
				  f'{label}, which returned it, {value} is returned directly.'))
		return out
	return None


def _known_fault_value(lines: list[str], lo: int, hi: int, fn: str,
		       notes: Notes) -> Optional[list[str]]:
	"""A label L that returns V, jumped to only by the accessors of new
	scopes where V holds the value another label M returns (its initial
	value, written before the scope only where a jump or return follows,
	and in the scope only after the last jump to L): the accessors go to
	M."""
	blocks = label_blocks(lines, lo, hi)
	for name in blocks:
		var = _returning(blocks, name)
		if var is None:
			continue
		jump = jumps_to(name)
		refs = [k for k in range(lo, hi) if k != blocks[name][0] and jump.search(lines[k])]
		decl = next((k for k in range(lo, hi) if re.match(
			rf'^\t[A-Za-z_][^=;(]*\b{re.escape(var)} = ({CONSTANT_TEXT});$', lines[k])), None)
		if not refs or decl is None:
			continue
		value = re.search(rf'= ({CONSTANT_TEXT});$', lines[decl]).group(1)
		target = next((n for n, (_, code) in blocks.items()
			       if code == [f'\treturn {value};']), None)
		if target is None:
			continue
		scopes = [(h, block_end(lines, h)) for h in range(lo, hi)
			  if SCOPE_HEAD.match(lines[h]) and lines[h].startswith('\t') and
			  not lines[h].startswith('\t\t')]
		if not all(any(c and h < k < c for h, c in scopes) for k in refs):
			continue
		if not all(_holds(lines, decl, h, c, var, refs) for h, c in scopes if c and
			   any(h < k < c for k in refs)):
			continue
		out = list(lines)
		for k in refs:
			out[k] = jump.sub(rf'\g<1>{target}\g<2>', out[k])
		notes.append(Note(fn, 'exits', f'{var} holds {value} wherever an access of {fn}() '
				  f'faults, so the accesses go to {target}, which returns it, instead '
				  f'of {name}.'))
		return out
	return None


def _holds(lines: list[str], decl: int, h: int, close: int, var: str, refs: list[int]) -> bool:
	"""Whether var keeps its initial value from decl to every jump in refs
	inside the scope lines[h..close]."""
	for k in range(decl + 1, h):
		if writes(var, lines[k]):
			nxt = next((j for j in range(k + 1, h) if lines[j].strip()), h)
			if not re.match(r'^\t+(return\b|goto )', lines[nxt]):
				return False
	last = max(k for k in refs if h < k < close)
	inner = len(lines[h]) - len(lines[h].lstrip('\t')) + 1
	for k in range(h + 1, close):
		if writes(var, lines[k]):
			depth = len(lines[k]) - len(lines[k].lstrip('\t'))
			# after the last jump, and not in a loop that could come back
			if k < last or depth != inner:
				return False
	return True


def _unused_label(lines: list[str], lo: int, hi: int, fn: str, notes: Notes) -> Optional[list[str]]:
	"""A label nothing jumps to: it goes, and so does its code when the
	statement before it does not fall into it."""
	blocks = label_blocks(lines, lo, hi)
	for name, (at, _) in blocks.items():
		jump = jumps_to(name)
		if any(jump.search(lines[k]) for k in range(lo, hi) if k != at):
			continue
		prev = next((k for k in range(at - 1, lo - 1, -1) if lines[k].strip()), None)
		out = list(lines)
		if prev is not None and re.match(r'^\t(return\b.*|goto \w+);$', lines[prev]):
			stop = next((k for k in range(at + 1, hi) if LABEL.match(lines[k])), hi)
			del out[at:stop]
			if not out[at - 1].strip():
				del out[at - 1]
		else:
			del out[at]
		notes.append(Note(fn, 'exits', f'Nothing in {fn}() goes to {name} any more: the label '
				  'goes.'))
		return out
	return None


def _rename_end_label(lines: list[str], lo: int, hi: int, fn: str,
		      notes: Notes) -> Optional[list[str]]:
	"""A label named for an end (ua_end, uaccess_end) whose code returns
	-EFAULT and ends nothing: named efault, unless the function has one."""
	blocks = label_blocks(lines, lo, hi)
	if 'efault' in blocks or 'Efault' in blocks:
		return None
	for name, (at, code) in blocks.items():
		if not _END_NAME.search(name) or code != ['\treturn -EFAULT;'] or \
		   any('access_end' in line for line in code):
			continue
		jump = jumps_to(name)
		out = list(lines)
		for k in range(lo, hi):
			out[k] = 'efault:' if k == at else jump.sub(r'\g<1>efault\g<2>', out[k])
		notes.append(Note(fn, 'exits', f'The label {name} of {fn}() ended the region before it '
				  'returned -EFAULT; the scope ends it now, and the label is named '
				  'for what it does, efault.'))
		return out
	return None
