# SPDX-License-Identifier: GPL-2.0
"""Parses KTAP (KUnit's test output) from a kernel console log."""

import enum
import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional

# printk prefixes every console line with "[    1.234567] ".
_TIMESTAMP = re.compile(r'^\[\s*\d+\.\d+\] ?')
_VERSION = re.compile(r'^K?TAP version \d+\s*$')
_SUBTEST = re.compile(r'^# Subtest: (?P<name>.*\S)\s*$')
_PLAN = re.compile(r'^1\.\.(?P<count>\d+)\s*$')
# After the name, `# SKIP reason` is a directive; any other `# text` is a
# comment (the userspace tests put the errno they saw there).
_RESULT = re.compile(r'^(?P<not>not )?ok (?P<number>\d+)(?: -)?(?: (?P<name>[^#]*?))?\s*'
		     r'(?:#\s*(?:(?P<directive>SKIP|TODO|XFAIL)\b\s*(?P<reason>.*?)'
		     r'|(?P<comment>.*?)))?\s*$')
_DIAGNOSTIC = re.compile(r'^#')
# Console lines that mean the kernel died under the tests.
CRASH_MARKERS = ('Kernel panic', 'BUG: ', 'Oops: ', 'general protection fault')
INDENT = 4


class Status(enum.Enum):
	"""The outcome of one test, suite or parameter."""
	PASS = 'pass'
	FAIL = 'fail'
	SKIP = 'skip'
	INCOMPLETE = 'incomplete'	# started, never reported: crash or truncation


@dataclass
class Test:
	"""A node of the KTAP tree: the run, a suite, a case or a parameter."""
	name: str = ''
	status: Optional[Status] = None
	number: Optional[int] = None
	reason: str = ''		# the text after "# SKIP"
	comment: str = ''		# the text after "#" when it is no directive
	plan: Optional[int] = None
	children: list['Test'] = field(default_factory=list)
	log: list[str] = field(default_factory=list)	# diagnostics and stray lines

	def child(self, name: str) -> Optional['Test']:
		return next((c for c in self.children if c.name == name), None)

	def walk(self, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], 'Test']]:
		"""Every descendant with its path of names (suite, case, parameter)."""
		for c in self.children:
			yield (*path, c.name), c
			yield from c.walk((*path, c.name))

	def to_json(self) -> dict:
		data: dict = {'name': self.name,
			      'status': self.status.value if self.status else None}
		if self.reason:
			data['reason'] = self.reason
		if self.comment:
			data['comment'] = self.comment
		if self.plan is not None:
			data['plan'] = self.plan
		if self.log:
			data['log'] = self.log
		if self.children:
			data['children'] = [c.to_json() for c in self.children]
		return data


@dataclass
class Run:
	"""A parsed console log: the tree of results and what was wrong with it."""
	root: Test
	errors: list[str] = field(default_factory=list)
	crash_lines: list[str] = field(default_factory=list)

	@property
	def complete(self) -> bool:
		return not self.errors

	@property
	def suites(self) -> list[Test]:
		return self.root.children

	def to_json(self) -> dict:
		return {'complete': self.complete, 'errors': self.errors,
			'crash_lines': self.crash_lines,
			'suites': [s.to_json() for s in self.suites]}


def strip_console(lines: Iterable[str]) -> list[str]:
	"""Console lines without printk timestamps and line endings."""
	return [_TIMESTAMP.sub('', line.rstrip('\r\n').replace('\r', '')) for line in lines]


def _result_status(m: re.Match) -> Status:
	directive = m.group('directive')
	if directive == 'SKIP':
		return Status.SKIP
	if m.group('not') and directive not in ('TODO', 'XFAIL'):
		return Status.FAIL
	return Status.PASS


class _Parser:
	"""A stack of open tests; stack[d] holds the test whose lines are at depth d."""

	def __init__(self) -> None:
		self.run = Run(Test(name='(run)'))
		self.stack = [self.run.root]
		self.pending: dict[int, list[str]] = {}	# diagnostics before a result

	def close_below(self, depth: int) -> None:
		"""Marks open tests deeper than depth as never finished."""
		while len(self.stack) > depth + 1:
			test = self.stack.pop()
			test.status = Status.INCOMPLETE
			test.log += self.pending.pop(len(self.stack), [])
			self.run.errors.append(f'{self._path(test)} never reported a result')

	def _path(self, test: Test) -> str:
		names = [t.name for t in self.stack[1:]] + [test.name]
		return '.'.join(n or '?' for n in names)

	def open(self, depth: int) -> Test:
		self.close_below(depth - 1)
		test = Test()
		self.stack[depth - 1].children.append(test)
		self.stack.append(test)
		return test

	def feed(self, line: str) -> None:
		text = line.lstrip(' ')
		indent = len(line) - len(text)
		if any(marker in line for marker in CRASH_MARKERS):
			self.run.crash_lines.append(line.strip())
		if indent % INDENT or not text:
			return self.stray(line)
		depth = indent // INDENT
		if depth > len(self.stack):
			return self.stray(line)
		if _VERSION.match(text):
			if depth == 0:
				return
			self.open(depth)
		elif m := _SUBTEST.match(text):
			if depth == 0:
				return self.stray(line)
			top = self.stack[depth] if len(self.stack) > depth else None
			if top is None or top.name or top.children or len(self.stack) > depth + 1:
				top = self.open(depth)
			top.name = m.group('name')
		elif m := _PLAN.match(text):
			if len(self.stack) > depth:
				self.close_below(depth)
				self.stack[depth].plan = int(m.group('count'))
		elif m := _RESULT.match(text):
			self.result(depth, m)
		elif _DIAGNOSTIC.match(text) and len(self.stack) > depth:
			self.pending.setdefault(depth, []).append(text)
		else:
			self.stray(line)

	def result(self, depth: int, m: re.Match) -> None:
		if len(self.stack) <= depth:
			return
		name = (m.group('name') or '').strip()
		if len(self.stack) > depth + 1:
			# The result closes the open subtest one level down.
			self.close_below(depth + 1)
			test = self.stack.pop()
			test.log += self.pending.pop(depth + 1, [])
			if name and test.name and name != test.name:
				self.run.errors.append(f'result "{name}" closes subtest "{test.name}"')
			test.name = test.name or name
		else:
			test = Test(name=name)
			self.stack[depth].children.append(test)
		test.number = int(m.group('number'))
		test.status = _result_status(m)
		test.reason = (m.group('reason') or '').strip()
		test.comment = (m.group('comment') or '').strip()
		test.log += self.pending.pop(depth, [])

	def stray(self, line: str) -> None:
		"""A line that is not KTAP: an assertion's detail or a kernel message."""
		text = line.strip()
		if not text:
			return
		depth = (len(line) - len(line.lstrip(' '))) // INDENT
		# Indented text continues the diagnostic before it ("Expected ...").
		waiting = [d for d, lines in self.pending.items() if lines and d <= depth]
		if depth and waiting:
			self.pending[max(waiting)].append(text)
		else:
			self.stack[-1].log.append(text)

	def finish(self) -> Run:
		self.close_below(0)
		root = self.run.root
		if root.plan is None and not root.children:
			self.run.errors.append('no KTAP output in the log')
		for path, test in [(('(run)',), root), *root.walk()]:
			if test.plan is not None and len(test.children) < test.plan:
				self.run.errors.append(f'{".".join(p for p in path if p != "(run)") or "run"}: '
						       f'planned {test.plan} results, got {len(test.children)}')
		return self.run


def parse(lines: Iterable[str]) -> Run:
	"""Parses the KTAP in a console log, from its first top-level version line."""
	parser = _Parser()
	started = False
	for line in strip_console(lines):
		if not started:
			started = bool(_VERSION.match(line))
			continue
		parser.feed(line)
	return parser.finish()

