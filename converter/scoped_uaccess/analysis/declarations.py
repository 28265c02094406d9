# SPDX-License-Identifier: GPL-2.0
"""The locals of a scope, declared in it: mainline's layout of a converted function.

The passes work statement by statement, so a cursor is declared with the
function's other locals and set first thing in the scope, and a pointer
computed again from the scope's pointer (rederive) keeps its assignment
before the scope, now dead.  After the scope pass, on the file's text:

- an assignment whose value the first statement of the next scope
  replaces, with no use of the variable between, goes, when nothing
  after the scope reads the variable, or when what reads it after the
  scope runs only when the scope ran (no label between, and no read at
  or after the labels the scope may jump to);
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
_ASSIGN_START = re.compile(r'^(\t+)(?P<name>[A-Za-z_]\w*) = (?P<value>.*)$')
_LABEL = re.compile(r'^[A-Za-z_]\w*:')
# A declared type as the passes write it: `struct foo __user *`, `unsigned long `.
_TYPE = r'(?:const |struct |unsigned |union |enum )*[A-Za-z_]\w*(?: __user)? ?\**'
_DECL = re.compile(rf'^\t(?P<type>{_TYPE})(?P<name>[A-Za-z_]\w*);$')
# Any declaration line inside a block (one blank line closes a group).
_DECL_LINE = re.compile(rf'^\t+{_TYPE}[A-Za-z_]\w*( = [^;]+)?;$')
# A declaration whose value is a constant no one reads before the scope
# sets the variable (`T *p = NULL;`): it stays, and is no use of p.
_DECL_INIT = re.compile(rf'^\t{_TYPE}(?P<name>[A-Za-z_]\w*) = (?:NULL|0);$')


def _uses(line: str, name: str) -> bool:
	"""Whether line names the variable name (a member of that name is not it)."""
	return re.search(r'(?<!->)(?<![\w.])%s\b' % re.escape(name), line.split('//')[0]) is not None


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


def _assignment(lines: list[str], j: int) -> Optional[tuple[str, str, int]]:
	"""(name, value, last line) of an assignment statement that starts on
	line j, written on one line or continued over a few."""
	m = _ASSIGN_START.match(lines[j])
	if m is None:
		return None
	value, last = m['value'], j
	while not value.rstrip().endswith(';'):
		last += 1
		if last >= len(lines) or last - j > 4 or not lines[last].strip():
			return None
		value += ' ' + lines[last].strip()
	value = value.rstrip()[:-1]
	if ';' in value or value.count('(') != value.count(')'):
		return None
	return m['name'], value, last


def _leading_assignments(lines: list[str], block: tuple[int, int]) -> list[tuple[int, bool]]:
	"""The assignments a scope starts with (rederive and the cursor put
	them there), each with whether a preprocessor conditional guards it:
	up to the first blank line or other statement."""
	found, depth = [], 0
	j = block[0]
	while j < block[1]:
		text = lines[j].strip()
		if re.match(r'#\s*if', text):
			depth += 1
		elif re.match(r'#\s*endif', text):
			depth -= 1
		elif (a := _assignment(lines, j)) is not None:
			found.append((j, depth > 0))
			j = a[2]
		else:
			break
		j += 1
	return found


def _dead_store(lines: list[str], j: int, name: str) -> list[int]:
	"""The lines of the store at j, an #if/#endif pair around it included
	when it is alone in it; [] when j is no store of name without side
	effects."""
	a = _assignment(lines, j)
	if a is None or a[0] != name or _uses(a[1], name) or _calls(a[1]):
		return []
	last = a[2]
	if j > 0 and re.match(r'#\s*if', lines[j - 1].strip()) and last + 1 < len(lines) and \
	   re.match(r'#\s*endif', lines[last + 1].strip()):
		return list(range(j - 1, last + 2))
	return list(range(j, last + 1))


def _overwritten_store(lines: list[str], head: int, block: tuple[int, int], name: str,
		       fn: tuple[int, int]) -> list[int]:
	"""The lines of the last store of name before the scope at line head,
	when the scope's first statements store name again and the old value
	can be read by no one: not between the store and the scope, and not
	after the scope on a path that can bypass it (no label between the
	store and the scope, and no read at or after the first label past
	the scope, where a refused begin jumps); [] otherwise."""
	stores = [j for j in range(fn[0], head) if (a := _assignment(lines, j)) and a[0] == name]
	if not stores:
		return []
	store = stores[-1]
	dead = _dead_store(lines, store, name)
	if not dead:
		return []
	between = range(max(dead) + 1, head)
	if any(_uses(lines[j], name) or _LABEL.match(lines[j]) for j in between):
		return []
	labels = [j for j in range(block[1] + 1, fn[1] + 1) if _LABEL.match(lines[j])]
	if labels and any(_uses(lines[j], name) for j in range(labels[0], fn[1] + 1)):
		return []
	return dead


def _comment_above(lines: list[str], j: int) -> list[int]:
	"""The lines of a block comment that ends right above line j, alone
	on its lines; [] when there is none."""
	k = j - 1
	if k < 0 or not lines[k].rstrip().endswith('*/'):
		return []
	while not lines[k].lstrip().startswith('/*'):
		if k == 0 or not lines[k].lstrip().startswith('*'):
			return []
		k -= 1
	return list(range(k, j))


def scope_locals(text: str) -> str:
	"""For each assignment a scope starts with, of a local p: when nothing
	outside the scope reads p, p's earlier assignments without side effects
	go, and p, declared alone and without a value at the top, is declared
	in the scope instead (unless a conditional guards the assignment);
	when p is read after the scope, its last assignment before the scope
	goes if no one can read that value (_overwritten_store())."""
	out = text.split('\n')
	i = 0
	while i < len(out):
		block = _block(out, i) if _SCOPE.match(out[i]) else None
		changed = False
		for first, guarded in (_leading_assignments(out, block) if block else []):
			assigned = _assignment(out, first)
			assert assigned is not None
			name, one_line = assigned[0], assigned[2] == first
			lo, hi = _function(out, i)
			decls = [j for j in range(lo, i) if (d := _DECL.match(out[j])) and d['name'] == name]
			kept = [j for j in range(lo, i) if _DECL_INIT.match(out[j]) and
				_DECL_INIT.match(out[j])['name'] == name]
			outside = [j for j in range(lo, hi + 1) if _uses(out[j], name)
				   and not block[0] <= j < block[1] and j not in decls + kept]
			dead = [k for j in outside if j < i for k in _dead_store(out, j, name)]
			read_after = not set(outside) <= set(dead)
			if read_after:
				# read after the scope: the store before it can still go
				dead = [] if guarded else _overwritten_store(out, i, block, name, (lo, hi))
				if not dead:
					continue
			fm = _ASSIGN.match(out[first])
			move = not read_after and len(decls) == 1 and not guarded and one_line and \
				fm is not None
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
			# A comment that explains a store the scope makes again goes
			# with it, above the scope's store (powerpc's swapcontext
			# says why mctx is rounded down).
			stores = [j for j in dead if _assignment(out, j)]
			above = _comment_above(out, min(dead)) if stores else []
			if above and _assignment(out, stores[0])[1:2] == _assignment(out, first)[1:2]:
				for k in reversed(above):
					out.insert(first, '\t' + out[k])
				gone = sorted(set(gone + above), reverse=True)
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
