# SPDX-License-Identifier: GPL-2.0
"""Braces around the scope bodies spatch cannot parse as scope bodies.

spatch 1.1.1 parses `scoped_user_write_access(p, L) stmt` as an iterator
with its body when stmt is a call, an if, a for, a while or a block, but
not when it is a do-while or a switch statement: the scope is then not a
scope to the checker, and its accessors look as if no region were open.
The checker runs such files from a copy in which those bodies are
wrapped in braces, `scoped_...(p, L) { do { ... } while (c); }`: the
braces go on the lines the body begins and ends on, so every line and
every column before them stay where they were, and the findings name the
original file.
"""

import re

_SCOPE = re.compile(r'\bscoped_user_(?:read|write|rw)_access(?:_size)?\s*\(')
_WORD = re.compile(r'(do|switch|while)\b')
_PAIRS = {'(': ')', '{': '}', '[': ']'}


def _skip(text: str, i: int) -> int:
	"""The index of the first character at or after i that is not white
	space, a comment or a line continuation."""
	while i < len(text):
		if text[i].isspace() or text.startswith('\\\n', i):
			i += 1
		elif text.startswith('/*', i):
			end = text.find('*/', i + 2)
			i = len(text) if end < 0 else end + 2
		elif text.startswith('//', i):
			end = text.find('\n', i)
			i = len(text) if end < 0 else end
		else:
			break
	return i


def _close(text: str, i: int) -> int:
	"""The index after the bracket matching the one at i (len(text) when
	there is none), past strings, character constants and comments."""
	stack = []
	while i < len(text):
		c = text[i]
		if c in '"\'':
			i += 1
			while i < len(text) and text[i] != c:
				i += 2 if text[i] == '\\' else 1
			i += 1
			continue
		if text.startswith('/*', i) or text.startswith('//', i):
			i = _skip(text, i)
			continue
		if c in _PAIRS:
			stack.append(_PAIRS[c])
		elif stack and c == stack[-1]:
			stack.pop()
			if not stack:
				return i + 1
		i += 1
	return len(text)


def _body_end(text: str, i: int) -> int:
	"""The end of the do-while or switch statement at i, -1 if it is not
	one this module wraps."""
	word = _WORD.match(text, i)
	if not word or word.group(1) == 'while':
		return -1
	k = _skip(text, word.end())
	if word.group(1) == 'switch':
		if not text.startswith('(', k):
			return -1
		k = _skip(text, _close(text, k))
		return _close(text, k) if text.startswith('{', k) else -1
	if not text.startswith('{', k):
		return -1
	k = _skip(text, _close(text, k))
	w = _WORD.match(text, k)
	if not w or w.group(1) != 'while':
		return -1
	k = _skip(text, w.end())
	if not text.startswith('(', k):
		return -1
	k = _skip(text, _close(text, k))
	return k + 1 if text.startswith(';', k) else -1


def brace_scopes(text: str) -> str:
	"""text with the do-while and switch bodies of scopes in braces; text
	itself when there is none."""
	out, last = [], 0
	for m in _SCOPE.finditer(text):
		if m.start() < last:
			continue
		args_end = _close(text, m.end() - 1)
		body = _skip(text, args_end)
		end = _body_end(text, body)
		if end < 0:
			continue
		out += [text[last:args_end], ' {', text[args_end:end], ' }']
		last = end
	return ''.join(out) + text[last:] if out else text
