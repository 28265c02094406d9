# SPDX-License-Identifier: GPL-2.0
"""What makes two findings of two versions of the code the same finding.

A review (check --diff, --patch) reports the findings of the new version
that the old one does not have.  Their identity is the class, the function
and the statement the finding points at, normalised: a begin or scope by
its pointer (a conversion turns `if (!user_read_access_begin(p, n))` into
`scoped_user_read_access(p, Efault) {`), an accessor without its label,
any other statement without its spacing and the braces around it.  Not
the path (a file renamed or moved keeps its findings), not the line (code
moves), not the message text (it names the begin, which a conversion
changes).  Identities are compared as multisets: a second copy of a
mistake is new.
"""

import collections
import re
from typing import Callable, Iterable, TypeVar

from scoped_uaccess.cocci import api, unparsed
from scoped_uaccess.checker.findings import Finding, function_of
from scoped_uaccess.cocci.unparsed import ParseFailure, digest

_BEGIN = re.compile(r'\b(?:' + '|'.join(sorted((*api.OPEN_BEGINS, *api.MASKED_BEGINS,
						 *api.SCOPES), key=len, reverse=True))
		    + r')\s*\(')
_BRACES = re.compile(r'^(?:\}|else)+|\{$')
_ACCESSOR = re.compile(r'\b(unsafe_\w+|get_user_inline|put_user_inline)\s*\(')

T = TypeVar('T')


def _arguments(text: str, start: int) -> list[str]:
	"""The top-level arguments of the call whose parenthesis opens at
	text[start - 1], as far as the text goes."""
	args, depth, current = [], 0, ''
	for c in text[start:]:
		if c in '([{':
			depth += 1
		elif c in ')]}':
			if depth == 0:
				break
			depth -= 1
		elif c == ',' and depth == 0:
			args.append(current)
			current = ''
			continue
		current += c
	args.append(current)
	return [''.join(a.split()) for a in args]


def statement(line: str) -> str:
	"""The normalised statement of a source line."""
	code = unparsed.code_lines(line)[0] if line else ''
	m = _BEGIN.search(code)
	if m:
		return 'begin:' + _arguments(code, m.end())[0]
	m = _ACCESSOR.search(code)
	if m:
		args = _arguments(code, m.end())
		return f'{m.group(1)}:' + ','.join(args[:-1] if len(args) > 1 else args)
	# Without the braces a conversion adds or drops around the statement.
	return _BRACES.sub('', ''.join(code.split()))


def of_finding(f: Finding, line: str) -> str:
	"""A finding's identity; line is the source line it points at."""
	return 'finding-' + digest(f'{f.cls}\0{function_of(f.message)}\0{statement(line)}')


def of_failure(p: ParseFailure) -> str:
	"""A block spatch cannot parse: the function it starts in and the code
	of its lines that use the API."""
	return 'parse-' + digest(f'{p.function}\0{p.covers}\0{" ".join(p.uses)}')


def new_ones(old: Iterable[str], new: Iterable[T], key: Callable[[T], str]) -> list[T]:
	"""The items of new whose identity old does not have, as many times as
	old does not have it."""
	left = collections.Counter(old)
	out = []
	for item in new:
		k = key(item)
		if left[k]:
			left[k] -= 1
		else:
			out.append(item)
	return out
