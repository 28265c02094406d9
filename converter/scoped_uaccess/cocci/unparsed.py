# SPDX-License-Identifier: GPL-2.0
"""What a check could not cover: blocks spatch could not parse, files it did not check.

spatch skips what it cannot parse and says so on stderr (with
--verbose-parsing): the line of the error, `badcount: N`, the N+1 lines it
gave up on (the one it blames marked `BAD:!!!!!`), and `ALREADY AT END`
when the block reaches the end of the file.  It counts lines at line feeds
only, and prints them as they are: form feeds, carriage returns and U+2028
are part of a line.  So the source is split at line feeds here too, the
block is found in it by its text (not trusted to lie where the error line
says), and a block that cannot be found makes the whole file unparsed: a
block is never dropped because it could not be placed.

A block matters when it uses the API outside comments, string and
character literals and preprocessor lines: then it is a ParseFailure,
reported as not checked.
"""

import hashlib
import re
from dataclasses import dataclass

from scoped_uaccess.cocci import api

# Uses of the API that a parse failure would hide, accessors included.
API_USE = re.compile(r'\b(' + '|'.join(api.words()) +
		     r'|get_user_inline|put_user_inline|unsafe_[a-z0-9_]+)\s*\(')


def digest(text: str) -> str:
	"""A short stable hash for ids."""
	return hashlib.sha1(text.encode(errors='surrogateescape')).hexdigest()[:12]


def uses_api(text: str) -> bool:
	"""Whether C text calls the API: a begin, end, scope or accessor."""
	return API_USE.search(text) is not None


@dataclass(frozen=True, order=True)
class ParseFailure:
	"""Lines spatch could not parse that use the API: they were not checked."""
	file: str
	line: int		# first line that uses the API
	first: int		# the lines spatch gave up on
	last: int
	uses: tuple[str, ...]	# the API names used there
	function: str = ''	# the function the block starts in, when it names one
	covers: str = ''	# a digest of the code of its lines that use the API

	@property
	def id(self) -> str:
		"""Where it is (file, function) and what it covers: two blocks of
		one file are two ids, and a block keeps its id when code moves."""
		return 'parse-' + digest(f'{self.file}\0{self.function}\0{self.covers}\0'
					 f'{" ".join(self.uses)}')

	def text(self) -> str:
		return (f'{self.file}:{self.line}:0-0: ERROR: [parse-error] spatch cannot parse '
			f'lines {self.first}-{self.last}, which use {", ".join(self.uses)}: '
			'not checked')

	def as_dict(self) -> dict:
		return {'id': self.id, 'file': self.file, 'line': self.line, 'first': self.first,
			'last': self.last, 'uses': list(self.uses), 'function': self.function}


@dataclass(frozen=True, order=True)
class NotChecked:
	"""A file the check did not cover, and why: it is never silently clean."""
	file: str
	reason: str		# unreadable: ..., timed out after N s, interrupted, ...

	def text(self) -> str:
		return f'{self.file}:1:0-0: ERROR: [not-checked] {self.reason}: not checked'

	def as_dict(self) -> dict:
		return {'file': self.file, 'reason': self.reason}


def source_lines(text: str) -> list[str]:
	"""A file's lines as spatch counts them: split at line feeds only."""
	lines = text.split('\n')
	return lines[:-1] if lines and lines[-1] == '' else lines


def code_lines(text: str) -> list[str]:
	"""source_lines(text) with everything that is not code blanked:
	comments (a // comment continues over a backslash-newline), the inside
	of string and character literals (ended by their quote or, unterminated,
	by the end of the line), and preprocessor directives with their
	continuation lines."""
	out = []
	state = 'code'		# code, block, line, string, char, directive
	back = 'code'		# where a block comment returns to
	at_line_start = True
	i, n = 0, len(text)
	while i < n:
		c = text[i]
		nxt = text[i + 1] if i + 1 < n else ''
		if c == '\n':
			before = text[max(0, i - 2):i].removesuffix('\r')
			escaped = before.endswith('\\')
			if state in ('line', 'directive', 'string', 'char') and not escaped:
				state = 'code'
			out.append('\n')
			at_line_start = True
			i += 1
			continue
		if state == 'code':
			if at_line_start and c == '#':
				state = 'directive'
				out.append(' ')
			elif c == '/' and nxt == '*':
				state, back = 'block', 'code'
				out.append('  ')
				i += 2
				at_line_start = False
				continue
			elif c == '/' and nxt == '/':
				state = 'line'
				out.append(' ')
			elif c == '"':
				state = 'string'
				out.append(' ')
			elif c == "'":
				state = 'char'
				out.append(' ')
			else:
				out.append(c)
			if not c.isspace():
				at_line_start = False
			i += 1
			continue
		if state == 'block':
			if c == '*' and nxt == '/':
				state = back
				out.append('  ')
				i += 2
				continue
		elif state == 'directive':
			if c == '/' and nxt == '*':
				state, back = 'block', 'directive'
				out.append('  ')
				i += 2
				continue
		elif state in ('string', 'char'):
			if c == '\\' and nxt and nxt != '\n':
				out.append('  ')
				i += 2
				continue
			if c == ('"' if state == 'string' else "'"):
				state = 'code'
		out.append(' ')
		i += 1
	return source_lines(''.join(out))


_ERROR_AT = re.compile(r'^\s*=\s*File "(?P<file>.*)", line (?P<line>\d+)')
_HANDLING = re.compile(r'^HANDLING: (?P<file>.*)$')
_BADCOUNT = re.compile(r'^badcount: (\d+)$')
_BAD = ('bad: ', 'BAD:!!!!! ')
# A line in column 0 that names a function: an optional return type, the
# name, its parenthesis (static int *f(, SYSCALL_DEFINE3().
_FUNCTION = re.compile(r'^(?:[A-Za-z_][\w\s*]*?\s)?\**([A-Za-z_]\w*)\s*\(')


def _block(lines: list[str], i: int) -> tuple[list[str], int, int]:
	"""The lines printed after `badcount:` at i: their text, the index of
	the one marked BAD (-1: none), and the index after them."""
	block, marked = [], -1
	j = i + 1
	while j < len(lines):
		line = lines[j]
		if line.startswith('BAD:!!!!!'):
			marked = len(block)
			block.append(line[len(_BAD[1]):])
		elif line.startswith('bad:'):
			block.append(line[len(_BAD[0]):])
		else:
			break
		j += 1
	return block, marked, j


def _same(a: str, b: str) -> bool:
	return a.rstrip() == b.rstrip()


def _locate(block: list[str], marked: int, error_line: int,
	    source: list[str]) -> tuple[int, int] | None:
	"""The 1-based span of source that the printed block is; where the
	error line says when the text agrees, else the nearest place whose
	text is the block's; None when there is none."""
	size = len(block)

	def fits(first: int) -> bool:
		return first >= 1 and first + size - 1 <= len(source) and \
			all(_same(block[k], source[first - 1 + k]) for k in range(size))

	if not size:
		return None
	guess = error_line - (marked if marked >= 0 else size - 1)
	if fits(guess):
		return guess, guess + size - 1
	places = [f for f in range(1, len(source) - size + 2) if fits(f)]
	if not places:
		return None
	first = min(places, key=lambda f: abs(f - guess))
	return first, first + size - 1


def _function(code: list[str], first: int, last: int) -> str:
	"""The function a block starts in: the name before the first `(` of
	its first line that starts in column 0."""
	for n in range(first, last + 1):
		m = _FUNCTION.match(code[n - 1])
		if m:
			return m.group(1)
	return ''


def _failure(file: str, first: int, last: int, code: list[str]) -> ParseFailure | None:
	uses: list[str] = []
	api_lines = []
	for n in range(first, last + 1):
		found = API_USE.findall(code[n - 1])
		if found:
			api_lines.append(n)
			uses += [u for u in found if u not in uses]
	if not uses:
		return None
	covers = digest('\n'.join(''.join(code[n - 1].split()) for n in api_lines))
	return ParseFailure(file, api_lines[0], first, last, tuple(sorted(uses)),
			    _function(code, first, last), covers)


def parse_failures(stderr: str, file: str, text: str) -> list[ParseFailure]:
	"""The blocks of file (its text) that spatch gave up on and that use the
	API outside comments, literals and macro bodies.  stderr must keep its
	line ends as spatch wrote them (no universal newlines)."""
	lines = stderr.split('\n')
	source = source_lines(text)
	code = code_lines(text)
	spans: list[tuple[int, int]] = []
	errors = 0
	error_line = None
	handling = None
	i = 0
	while i < len(lines):
		line = lines[i]
		if line.startswith(('parse error', 'semantic error')):
			errors += 1
		m = _HANDLING.match(line)
		if m:
			handling = m['file']
		m = _ERROR_AT.match(line)
		if m:
			# An error inside a macro of spatch's own standard.h names that
			# file's line: it says nothing of where the block lies.
			error_line = int(m['line']) if handling in (None, m['file']) else None
		m = _BADCOUNT.match(line)
		if m:
			block, marked, i = _block(lines, i)
			at_end = i < len(lines) and lines[i].startswith('ALREADY AT END')
			span = _locate(block, marked, error_line or 1, source)
			if span is None:
				span = (1, len(source))
			elif at_end or (error_line or 0) > span[1]:
				# The block runs into the end of the file: so does what
				# spatch skipped.
				span = (span[0], len(source))
			spans.append(span)
			error_line = None
			continue
		i += 1
	if errors > len(spans):
		# An error whose block spatch did not print: nothing says what it
		# skipped, so all of the file is in doubt.
		spans.append((1, len(source)))
	failures = {f for f in (_failure(file, a, b, code) for a, b in spans if b >= a) if f}
	return sorted(failures)
