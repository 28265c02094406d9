# SPDX-License-Identifier: GPL-2.0
"""Functions in kernel layout, read from a file's lines: their bodies, labels, jumps and scopes.

The clean-ups after a spatch pass (tidy.py, exits.py) work on the text
the passes wrote, which is in kernel layout: a function's `{` and `}` in
column 0, one statement per line, labels in column 0.
"""

import re
from typing import Iterator, Optional

LABEL = re.compile(r'^([A-Za-z_]\w*):$')
CONSTANT_TEXT = r'-E[A-Z0-9]+|-?\d+|NULL|true|false'
CONSTANT = rf'(?:{CONSTANT_TEXT})'
SCOPE_HEAD = re.compile(r'^\t*scoped_user_(?:read|write|rw)_access(?:_size)?\(.*\{$')


def label_blocks(lines: list[str], lo: int, hi: int) -> dict[str, tuple[int, list[str]]]:
	"""The labels of the function body lines[lo:hi]: name -> (line, the
	non-blank lines after it up to the next label or the closing brace)."""
	blocks: dict[str, tuple[int, list[str]]] = {}
	name = None
	for i in range(lo, hi):
		m = LABEL.match(lines[i])
		if m:
			name = m.group(1)
			blocks[name] = (i, [])
		elif name and lines[i].strip():
			blocks[name][1].append(lines[i])
	return blocks


def function_name(lines: list[str], brace: int) -> str:
	"""The name of the function whose body opens at lines[brace]."""
	for k in range(brace - 1, max(brace - 12, -1), -1):
		line = lines[k]
		if not line or line[0] in ' \t#':
			continue
		m = re.match(r'^(COMPAT_)?SYSCALL_DEFINE\d\((\w+)', line)
		if m:
			return ('compat_sys_' if m.group(1) else 'sys_') + m.group(2)
		m = re.search(r'(\w+)\s*\(', line)
		if m:
			return m.group(1)
	return ''


def functions(lines: list[str]) -> Iterator[tuple[str, int, int]]:
	"""(name, body start, closing brace) of each function in kernel
	layout: `{` and `}` in column 0, the name on the last line of the
	declaration that starts in column 0 (SYSCALL_DEFINEn(name, ...) is
	sys_name)."""
	for i, line in enumerate(lines):
		if line == '{' and i:
			end = next((k for k in range(i + 1, len(lines)) if lines[k] == '}'), None)
			if end is None:
				continue
			yield function_name(lines, i), i + 1, end


def jumps_to(label: str) -> re.Pattern:
	# `, L)` or, wrapped, the label alone at the start of a line
	return re.compile(rf'(goto\s+|,\s*|^\s+){re.escape(label)}(\s*[;)])')


def writes(var: str, line: str) -> bool:
	v = re.escape(var)
	return bool(re.search(rf'\b{v}\s*([-+*/%|&^]|<<|>>)?=(?!=)|\b{v}\s*(\+\+|--)|'
			      rf'(\+\+|--)\s*{v}\b|&\s*{v}\b', line))


def block_end(lines: list[str], head: int) -> Optional[int]:
	"""The line of the brace that closes the block opened at the end of
	lines[head], by indentation."""
	tabs = len(lines[head]) - len(lines[head].lstrip('\t'))
	for j in range(head + 1, len(lines)):
		if lines[j] == '\t' * tabs + '}':
			return j
	return None
