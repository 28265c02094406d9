# SPDX-License-Identifier: GPL-2.0
"""The locals of a scope, declared in it: mainline's layout of a converted function.

The passes work statement by statement, so a cursor is declared with the
function's other locals and set first thing in the scope, and a pointer
computed again from the scope's pointer (rederive) keeps its assignment
before the scope, now dead.  After the scope pass, on the file's text:

- an assignment whose value the first statement of the next scope
  replaces, with no use of the variable between, goes;
- a local declared alone and without a value (`T *p;`) whose every use
  lies in one scope that assigns it first thing is declared there
  instead, with that value (`T *p = q;`), followed by a blank line as
  the kernel's style puts after declarations.

Nothing moves unless every other use of the variable is in that scope,
and no assignment goes whose value calls something.
"""

import re
from typing import Optional

_SCOPE = re.compile(r'^(\t+)scoped_user_(?:read|write|rw)_access(?:_size)?\(')
_ASSIGN = re.compile(r'^(\t+)(?P<name>[A-Za-z_]\w*) = (?P<value>[^;]+);$')
# A declared type as the passes write it: `struct foo __user *`, `unsigned long `.
_TYPE = r'(?:const |struct |unsigned |union |enum )*[A-Za-z_]\w*(?: __user)? ?\**'
_DECL = re.compile(rf'^\t(?P<type>{_TYPE})(?P<name>[A-Za-z_]\w*);$')
# Any declaration line inside a block (one blank line closes a group).
_DECL_LINE = re.compile(rf'^\t+{_TYPE}[A-Za-z_]\w*( = [^;]+)?;$')
# A declaration whose value is a constant no one reads before the scope
# sets the variable (`T *p = NULL;`): it stays, and is no use of p.
_DECL_INIT = re.compile(rf'^\t{_TYPE}(?P<name>[A-Za-z_]\w*) = (?:NULL|0);$')


def _uses(line: str, name: str) -> bool:
	return re.search(r'\b%s\b' % re.escape(name), line.split('//')[0]) is not None


def _block(lines: list[str], head: int) -> Optional[tuple[int, int]]:
	"""(first line after the scope's `{`, its closing `}`), 0-based."""
	depth, opened = 0, None
	for i in range(head, len(lines)):
		for c in lines[i]:
			if c == '{':
				depth += 1
				if opened is None:
					opened = i
			elif c == '}':
				depth -= 1
				if depth == 0 and opened is not None:
					return opened + 1, i
	return None


def _function(lines: list[str], at: int) -> tuple[int, int]:
	"""The function body around line at: from its `{` in column 0 to its `}`."""
	lo = next((i for i in range(at, -1, -1) if lines[i] == '{'), 0)
	hi = next((i for i in range(at, len(lines)) if lines[i] == '}'), len(lines) - 1)
	return lo, hi


def _calls(value: str) -> bool:
	"""Whether an expression calls something (sizeof and casts do not)."""
	return any(m.group(1) not in ('sizeof', 'typeof', 'offsetof')
		   for m in re.finditer(r'\b([A-Za-z_]\w*)\s*\(', value))


def _leading_assignments(lines: list[str], block: tuple[int, int]) -> list[tuple[int, bool]]:
	"""The assignments a scope starts with (rederive and the cursor put
	them there), each with whether a preprocessor conditional guards it:
	up to the first blank line or other statement."""
	found, depth = [], 0
	for j in range(block[0], block[1]):
		text = lines[j].strip()
		if re.match(r'#\s*if', text):
			depth += 1
		elif re.match(r'#\s*endif', text):
			depth -= 1
		elif _ASSIGN.match(lines[j]):
			found.append((j, depth > 0))
		else:
			break
	return found


def _dead_store(lines: list[str], j: int, name: str) -> list[int]:
	"""The lines of the store at j, an #if/#endif pair around it included
	when it is alone in it; [] when j is no store of name without side
	effects."""
	am = _ASSIGN.match(lines[j])
	if not am or am['name'] != name or _uses(am['value'], name) or _calls(am['value']):
		return []
	if j > 0 and re.match(r'#\s*if', lines[j - 1].strip()) and j + 1 < len(lines) and \
	   re.match(r'#\s*endif', lines[j + 1].strip()):
		return [j - 1, j, j + 1]
	return [j]


def scope_locals(text: str) -> str:
	"""For each assignment a scope starts with, of a local p that nothing
	outside the scope reads: p's earlier assignments without side effects
	go, and p, declared alone and without a value at the top, is declared
	in the scope instead (unless a conditional guards the assignment)."""
	out = text.split('\n')
	i = 0
	while i < len(out):
		block = _block(out, i) if _SCOPE.match(out[i]) else None
		changed = False
		for first, guarded in (_leading_assignments(out, block) if block else []):
			fm = _ASSIGN.match(out[first])
			assert fm is not None
			name = fm['name']
			lo, hi = _function(out, i)
			decls = [j for j in range(lo, i) if (d := _DECL.match(out[j])) and d['name'] == name]
			kept = [j for j in range(lo, i) if _DECL_INIT.match(out[j]) and
				_DECL_INIT.match(out[j])['name'] == name]
			outside = [j for j in range(lo, hi + 1) if _uses(out[j], name)
				   and not block[0] <= j < block[1] and j not in decls + kept]
			dead = [k for j in outside if j < i for k in _dead_store(out, j, name)]
			if not set(outside) <= set(dead):
				continue
			move = len(decls) == 1 and not guarded
			if move:
				# first in the block: no declaration after a statement
				d = _DECL.match(out[decls[0]])
				assert d is not None
				sep = '' if d['type'].endswith('*') else ' '
				del out[first]
				out.insert(block[0], f'{fm.group(1)}{d["type"].rstrip()}{sep}{name} = '
					   f'{fm["value"]};')
				if out[block[0] + 1].strip() and not _DECL_LINE.match(out[block[0] + 1]):
					out.insert(block[0] + 1, '')
			gone = sorted(set(dead + (decls if move else [])), reverse=True)
			if not gone and not move:
				continue
			for j in gone:
				del out[j]
				# no two blank lines where a line left, and no blank
				# line opening the function's body
				if j < len(out) and not out[j].strip() and (not out[j - 1].strip() or
									   out[j - 1] == '{'):
					del out[j]
			changed = True
			break
		if changed:
			i = 0
			continue
		i += 1
	return '\n'.join(out)
