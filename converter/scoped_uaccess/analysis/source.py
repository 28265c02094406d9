# SPDX-License-Identifier: GPL-2.0
"""Reading C source text around what spatch matched: spans, labels, calls, paths.

SmPL gives positions; these helpers answer what it cannot express
cheaply: what a jump to a label does when followed through labels and
gotos, the text of a statement with its comments, the arguments of a
call as the source spells them.
"""

import re
from typing import Optional

from scoped_uaccess.analysis.facts import Pos, Span

LABEL_LINE = re.compile(r'^\s*([A-Za-z_]\w*):\s*;?\s*(/\*.*\*/\s*)?$')
END_STMT = re.compile(r'^(?:[A-Za-z_]\w*:\s*)*(user_(?:read_|write_|rw_)?access_end)\(\);$')
END_CALL = re.compile(r'user_(?:read_|write_|rw_)?access_end\s*\(')
GOTO = re.compile(r'^goto ([A-Za-z_]\w*);$')
TYPE_WORDS = ('struct', 'union', 'enum', 'const', 'volatile', 'unsigned', 'signed', 'char',
	      'short', 'int', 'long', 'void', 'bool', '__user', '__force')


# A C token: an operator of two characters, a word, a number, or one character.
_TOKEN = re.compile(r'\s*(->|\+\+|--|[A-Za-z_]\w*|0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|.)')


def pretty(text: str) -> str:
	"""An expression as Coccinelle prints it (every token spaced), spaced
	as the kernel spells it: '& t -> a [ 2 ]' -> '&t->a[2]'."""
	out, operand, glue = '', False, True
	for t in (t for t in _TOKEN.findall(text) if t.strip()):
		if t in ('->', '.', '[', ']', ')', '++', '--', ',') or glue or \
		   (t == '(' and operand):
			out += t
		else:
			out += ' ' + t
		# what the next token sticks to
		glue = t in ('->', '.', '[', '(') or \
		       (t in ('&', '*', '!', '~', '-', '+') and not operand)
		operand = re.match(r'\w', t) is not None or t in (')', ']', '++', '--')
	return out.strip()


def text_of(lines: list[str], s: Span) -> str:
	l0, c0, l1, c1 = s
	if l0 == l1:
		return lines[l0 - 1][c0:c1]
	return '\n'.join([lines[l0 - 1][c0:]] + lines[l0:l1 - 1] + [lines[l1 - 1][:c1]])


def contains(a: Span, b: Span) -> bool:
	return (a[0], a[1]) <= (b[0], b[1]) and (b[2], b[3]) <= (a[2], a[3])


def containing_if(stmts: set[Span], lines: list[str], at: Pos) -> Optional[Span]:
	"""The innermost if statement around position at."""
	best = None
	for s in stmts:
		if contains(s, (*at, *at)) and text_of(lines, s).startswith('if'):
			if best is None or contains(best, s):
				best = s
	return best


def parent_of(stmts: set[Span], s: Span) -> Optional[Span]:
	best = None
	for t in stmts:
		if t != s and contains(t, s):
			if best is None or contains(best, t):
				best = t
	return best


def strip_comments(text: str) -> str:
	text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
	return re.sub(r'//[^\n]*', ' ', text)


def blank_comments(text: str) -> str:
	"""The text with its comments blanked, lines kept."""
	text = re.sub(r'/\*.*?\*/', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text, flags=re.S)
	return re.sub(r'//[^\n]*', lambda m: ' ' * len(m.group(0)), text)


def flat(text: str) -> str:
	"""Code without comments, whitespace collapsed."""
	return ' '.join(strip_comments(text).split())


def indent(line: str) -> int:
	return len(line) - len(line.lstrip('\t'))


def label_line(lines: list[str], lo: int, hi: int, name: str) -> Optional[int]:
	"""The line (1-based) of label name within lines lo..hi."""
	for i in range(lo, hi + 1):
		m = LABEL_LINE.match(lines[i - 1])
		if m and m.group(1) == name:
			return i
	return None


def all_labels(lines: list[str], lo: int, hi: int) -> list[str]:
	return [LABEL_LINE.match(lines[i - 1]).group(1) for i in range(lo, hi + 1)
		if LABEL_LINE.match(lines[i - 1])]


def code_after(lines: list[str], i: int, hi: int) -> list[tuple[int, str]]:
	"""The code lines after line i up to the next return or goto, as
	(line, text), falling through labels (as 'LABEL name')."""
	out = []
	j = i + 1
	while j <= hi:
		raw = lines[j - 1]
		t = flat(raw)
		j += 1
		if not t or raw.lstrip().startswith('#'):
			continue
		m = LABEL_LINE.match(raw)
		if m:
			out.append((j - 1, 'LABEL ' + m.group(1)))
			continue
		out.append((j - 1, t))
		if t.startswith('return') or t.startswith('goto ') or t == '}':
			break
	return out


def effective(lines: list[str], lo: int, hi: int, name: str, removed_lines: set[int],
	      depth: int = 0) -> Optional[list[str]]:
	"""What jumping to label name does, as a list of simple statements, with
	the lines in removed_lines dropped and gotos followed; None if it is not
	a straight sequence ending in return or goto."""
	if depth > 3:
		return None
	i = label_line(lines, lo, hi, name)
	if i is None:
		return None
	out: list[str] = []
	for ln, t in code_after(lines, i, hi):
		if t.startswith('LABEL ') or ln in removed_lines:
			continue
		m = GOTO.match(t)
		if m:
			rest = effective(lines, lo, hi, m.group(1), removed_lines, depth + 1)
			return None if rest is None else out + rest
		if not t.endswith(';') or t == '}':
			return None
		out.append(t)
	return out or None


def is_local(lines: list[str], lo: int, hi: int, var: str) -> bool:
	decl = re.compile(r'^\s*(?:const\s+)?(?:struct\s+)?[A-Za-z_]\w*[\s\*]+' +
			  re.escape(var) + r'\s*(?:=[^;]*)?;')
	return any(decl.match(lines[i - 1]) for i in range(lo, hi + 1))


def same_action(lines: list[str], lo: int, hi: int, action: list[str],
		eff: Optional[list[str]]) -> bool:
	"""Whether a label whose jump does eff does what action does: the same
	statements, or `x = V; return x;` for `return V;` with x a local."""
	if eff is None:
		return False
	if eff == action:
		return True
	if len(action) == 1 and len(eff) == 2:
		m = re.match(r'^return (.+);$', action[0])
		a = re.match(r'^([A-Za-z_]\w*) = (.+);$', eff[0])
		if m and a and eff[1] == f'return {a.group(1)};' and a.group(2) == m.group(1) \
		   and is_local(lines, lo, hi, a.group(1)):
			return True
	return False


def first_end_at(lines: list[str], lo: int, hi: int, name: str, end_lines: dict[int, int],
		 depth: int = 0) -> Optional[Pos]:
	"""The end call a jump to label name reaches first, through simple
	assignments, labels and gotos; None if something else comes first."""
	if depth > 3:
		return None
	i = label_line(lines, lo, hi, name)
	if i is None:
		return None
	for ln, t in code_after(lines, i, hi):
		if t.startswith('LABEL '):
			continue
		if END_STMT.match(t) and ln in end_lines:
			return ln, end_lines[ln]
		m = GOTO.match(t)
		if m:
			return first_end_at(lines, lo, hi, m.group(1), end_lines, depth + 1)
		if not re.match(r'^[A-Za-z_][\w\.>-]* = [^;()]*;$', t):
			return None
	return None


def split_args(args: str) -> list[str]:
	out, depth, cur = [], 0, ''
	for ch in args:
		if ch in '([{':
			depth += 1
		elif ch in ')]}':
			depth -= 1
		if ch == ',' and depth == 0:
			out.append(cur)
			cur = ''
		else:
			cur += ch
	out.append(cur)
	return [a.strip() for a in out]


def call_args(lines: list[str], line: int, col: int) -> Optional[list[str]]:
	"""The arguments of the call whose name starts at line, col, as the
	source spells them (comments dropped)."""
	text = '\n'.join(lines[line - 1:line + 5])[col:]
	i = text.find('(')
	if i < 0:
		return None
	depth = 0
	for j in range(i, len(text)):
		if text[j] == '(':
			depth += 1
		elif text[j] == ')':
			depth -= 1
			if depth == 0:
				return split_args(strip_comments(text[i + 1:j]))
	return None


def end_col(lines: list[str], s: Span) -> int:
	"""The column of the end call in statement s (which may carry labels)."""
	m = END_CALL.search(lines[s[2] - 1])
	return m.start() if m else s[1]


def function_range(lines: list[str], stmts: set[Span]) -> tuple[int, int]:
	"""The lines of the function whose statements are stmts, from its header."""
	lo = min(s[0] for s in stmts)
	hi = max(s[2] for s in stmts)
	while lo > 1 and not re.match(r'^[A-Za-z_]', lines[lo - 1]):
		lo -= 1
	return lo, hi


def identifier(text: str) -> bool:
	return re.fullmatch(r'[A-Za-z_]\w*', text) is not None


def uses(text: str, name: str) -> bool:
	"""Whether name appears in text as an identifier (not a member name)."""
	return re.search(r'(?<![\w.>])' + re.escape(name) + r'\b', strip_comments(text)) is not None


def enclosing_conditional(lines: list[str], line: int, lo: int) -> Optional[str]:
	"""The `#if...` line of the innermost preprocessor conditional that
	line (1-based) lies in, looking back to line lo; '' when none, None
	in an #else or #elif branch (no one line repeats that condition)."""
	depth = 0
	for i in range(line - 1, lo - 1, -1):
		text = lines[i - 1].strip()
		if re.match(r'#\s*endif\b', text):
			depth += 1
		elif re.match(r'#\s*if', text):
			if depth == 0:
				return text
			depth -= 1
		elif re.match(r'#\s*(else|elif)\b', text) and depth == 0:
			return None
	return ''
