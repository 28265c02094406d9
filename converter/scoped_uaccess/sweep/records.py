# SPDX-License-Identifier: GPL-2.0
"""Fault sweep consoles: the `# sweep` records, the console's problems, the comparison.

testcases/faultsweep/faultsweep.c prints one record per position of its
walks (testcases/faultsweep/README.md):

  # sweep <path> <arch> pos=<walk>:<mapped> ret=<r> errno=<E> data=<map> state=<s>

and around them `# sweep-region`, `# sweep-skip`, `# sweep-count`,
`# sweep-done`; /init frames the programs with `# faultsweep-init` lines.
The argument sweep's records are the same lines with a position
`arg:<argument>=<value>`, framed per row (a path and one argument of its
syscall) by `# argsweep-row`, `# argsweep-skip` and `# argsweep-count`.
Two kernels of one configuration behave alike when every record is the
same in both; a difference is reported per field, as
`path arch, position, field: baseline X, converted Y`.
"""

import re
from dataclasses import dataclass, field
from typing import Iterable, Optional

from scoped_uaccess.kunit import ktap

# The fields of a record a converted kernel must reproduce, in print order.
FIELDS = ('ret', 'errno', 'data', 'state')
KUAP_ON = 'Activating Kernel Userspace Access Prevention'
# A console line with one of these is a kernel problem, whatever the
# records say: KUAP's "Bug: Read fault blocked by KUAP!" (a user access
# outside a region or in the wrong mode), a WARN() (KUAP debug checks
# among them), an oops, a BUG(), a panic.
PROBLEM_MARKERS = (*ktap.CRASH_MARKERS, 'blocked by KUAP', 'WARNING:', 'kernel BUG at',
		   'Unable to handle kernel', 'sweep-error')

_RECORD = re.compile(r'^# sweep (?P<path>\S+) (?P<arch>\S+) pos=(?P<pos>\S+) ret=(?P<ret>\S+) '
		     r'errno=(?P<errno>\S+) data=(?P<data>\S+) state=(?P<state>.*)$')
_REGION = re.compile(r'^# sweep-region (?P<path>\S+) (?P<arch>\S+) (?P<regions>.+)$')
_SKIP = re.compile(r'^# sweep-skip (?P<path>\S+) (?P<arch>\S+) reason=(?P<reason>\S+)$')
_COUNT = re.compile(r'^# sweep-count (?P<path>\S+) (?P<arch>\S+) size=(?P<size>\d+) '
		    r'step=(?P<step>\d+) positions=(?P<positions>\d+) top=(?P<top>\d+)$')
_DONE = re.compile(r'^# sweep-done (?P<arch>\S+) paths=(?P<paths>\d+) skipped=(?P<skipped>\d+) '
		   r'records=(?P<records>\d+)$')
_ARGROW = re.compile(r'^# argsweep-row (?P<path>\S+) (?P<arch>\S+) arg=(?P<arg>\S+) '
		     r'kind=(?P<kind>size|pointer) (?P<regions>.+)$')
_ARGSKIP = re.compile(r'^# argsweep-skip (?P<path>\S+) (?P<arch>\S+) arg=(?P<arg>\S+) '
		      r'kind=(?P<kind>size|pointer) reason=(?P<reason>\S+)$')
_ARGCOUNT = re.compile(r'^# argsweep-count (?P<path>\S+) (?P<arch>\S+) arg=(?P<arg>\S+) '
		       r'values=(?P<values>\d+)$')
_EXIT = re.compile(r'^# faultsweep-init (?P<arch>\S+) exit (?P<status>\d+)$')
_ANSI = re.compile(r'\x1b\[[0-9;?]*[A-Za-z]')


ARG_PREFIX = 'arg:'
# An argument sweep row: (path, arch, argument).
ArgKey = tuple[str, str, str]


def is_arg(pos: str) -> bool:
	"""Whether a position is the argument sweep's (arg:<argument>=<value>)."""
	return pos.startswith(ARG_PREFIX)


@dataclass(frozen=True)
class Record:
	"""One position of one path's walk on one arch, and what the call did."""
	path: str
	arch: str
	pos: str		# hole:24, top:8, kernel, noncanon, beyond
	ret: str
	errno: str
	data: str
	state: str

	@property
	def key(self) -> tuple[str, str, str]:
		return (self.path, self.arch, self.pos)

	@property
	def arg(self) -> Optional[tuple[str, str]]:
		"""The argument sweep's (argument, value) of pos=arg:<argument>=<value>;
		None for a record of the fault sweep's walks."""
		if not is_arg(self.pos):
			return None
		name, _, value = self.pos[len(ARG_PREFIX):].partition('=')
		return name, value


@dataclass(frozen=True)
class ArgRow:
	"""`# argsweep-row`: what the argument is, and the regions its path reaches."""
	kind: str		# size or pointer
	regions: tuple[str, ...]


@dataclass(frozen=True)
class PathCount:
	"""`# sweep-count`: the object and how many positions the walks had."""
	size: int
	step: int
	positions: int
	top: int


@dataclass
class SweepConsole:
	"""What one boot printed: the records and everything around them."""
	records: dict[tuple[str, str, str], Record] = field(default_factory=dict)
	# (path, arch) in the order the program ran them, skipped ones included
	order: dict[tuple[str, str], None] = field(default_factory=dict)
	regions: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
	skips: dict[tuple[str, str], str] = field(default_factory=dict)
	counts: dict[tuple[str, str], PathCount] = field(default_factory=dict)
	done: dict[str, int] = field(default_factory=dict)		# arch: records
	exits: dict[str, int] = field(default_factory=dict)		# arch: exit status
	# The argument sweep, per (path, arch, argument), rows in program order.
	arg_rows: dict[ArgKey, ArgRow] = field(default_factory=dict)
	arg_skips: dict[ArgKey, str] = field(default_factory=dict)
	arg_kinds: dict[ArgKey, str] = field(default_factory=dict)	# size or pointer
	arg_counts: dict[ArgKey, int] = field(default_factory=dict)
	arg_order: dict[ArgKey, None] = field(default_factory=dict)
	kuap_on: bool = False
	kernel_lines: list[str] = field(default_factory=list)		# PROBLEM_MARKERS
	malformed: list[str] = field(default_factory=list)
	duplicates: list[str] = field(default_factory=list)

	def paths(self, arch: Optional[str] = None) -> list[tuple[str, str]]:
		"""(path, arch) in the order the program ran them, skipped ones included."""
		return [key for key in self.order if arch is None or key[1] == arch]

	def records_of(self, path: str, arch: str) -> list[Record]:
		"""The fault sweep's records of a path (its walks and bad pointers)."""
		return [r for r in self.records.values()
			if r.path == path and r.arch == arch and not is_arg(r.pos)]

	def walk_records(self, arch: str) -> int:
		"""How many records of arch are the fault sweep's."""
		return sum(1 for r in self.records.values() if r.arch == arch and not is_arg(r.pos))

	def arg_records(self, key: Optional[ArgKey] = None, arch: Optional[str] = None) -> list[Record]:
		"""The argument sweep's records: of one row, of one arch, or all."""
		return [r for r in self.records.values() if (a := r.arg) is not None and
			(key is None or (r.path, r.arch, a[0]) == key) and (arch is None or r.arch == arch)]

	def arg_keys(self, arch: Optional[str] = None) -> list[ArgKey]:
		"""The argument sweep's rows in program order, skipped ones included."""
		return [key for key in self.arg_order if arch is None or key[1] == arch]

	def problems(self, archs: Iterable[str], kuap: bool = False) -> list[str]:
		"""Why this console cannot be trusted on its own; empty when it can."""
		found = []
		for arch in archs:
			if arch not in self.exits:
				found.append(f'{arch}: the program never finished (no exit status from /init)')
			elif self.exits[arch] != 0:
				found.append(f'{arch}: the program exited with status {self.exits[arch]}')
			if arch not in self.done:
				found.append(f'{arch}: no `# sweep-done` line')
			elif self.done[arch] != sum(1 for r in self.records.values() if r.arch == arch):
				found.append(f'{arch}: `# sweep-done` says {self.done[arch]} records, '
					     f'the console has '
					     f'{sum(1 for r in self.records.values() if r.arch == arch)}')
		for key in self.arg_order:
			if key in self.arg_skips:
				continue
			got = len(self.arg_records(key))
			if key not in self.arg_counts:
				found.append(f'{" ".join(key)}: no `# argsweep-count` line (the row never '
					     'finished)')
			elif self.arg_counts[key] != got:
				found.append(f'{" ".join(key)}: `# argsweep-count` says '
					     f'{self.arg_counts[key]} values, the console has {got}')
		if kuap and not self.kuap_on:
			found.append(f'KUAP is not on: no "{KUAP_ON}" in the boot log')
		found += [f'console: {line}' for line in self.kernel_lines]
		found += [f'malformed sweep line: {line}' for line in self.malformed]
		found += [f'record printed twice: {line}' for line in self.duplicates]
		return found


def clean_lines(lines: Iterable[str]) -> list[str]:
	"""Console lines without timestamps, carriage returns and terminal escapes
	(the ppc64 firmware's)."""
	return [_ANSI.sub('', line) for line in ktap.strip_console(lines)]


def parse_console(lines: Iterable[str]) -> SweepConsole:
	console = SweepConsole()
	for line in clean_lines(lines):
		text = line.strip()
		if KUAP_ON in text:
			console.kuap_on = True
		if any(marker in text for marker in PROBLEM_MARKERS):
			console.kernel_lines.append(text)
			continue
		if not text.startswith(('# sweep', '# argsweep', '# faultsweep-init')):
			continue
		if m := _RECORD.match(text):
			record = Record(**m.groupdict())
			if record.key in console.records:
				console.duplicates.append(text)
			console.records[record.key] = record
		elif m := _REGION.match(text):
			regions = m.group('regions')
			console.order[(m.group('path'), m.group('arch'))] = None
			console.regions[(m.group('path'), m.group('arch'))] = (
				() if regions == '-' else tuple(regions.split()))
		elif m := _SKIP.match(text):
			console.order[(m.group('path'), m.group('arch'))] = None
			console.skips[(m.group('path'), m.group('arch'))] = m.group('reason')
		elif m := _COUNT.match(text):
			console.counts[(m.group('path'), m.group('arch'))] = PathCount(
				int(m.group('size')), int(m.group('step')), int(m.group('positions')),
				int(m.group('top')))
		elif m := _ARGROW.match(text):
			key = (m.group('path'), m.group('arch'), m.group('arg'))
			regions = m.group('regions')
			console.arg_order[key] = None
			console.arg_kinds[key] = m.group('kind')
			console.arg_rows[key] = ArgRow(m.group('kind'),
						       () if regions == '-' else tuple(regions.split()))
		elif m := _ARGSKIP.match(text):
			key = (m.group('path'), m.group('arch'), m.group('arg'))
			console.arg_order[key] = None
			console.arg_skips[key] = m.group('reason')
			console.arg_kinds[key] = m.group('kind')
		elif m := _ARGCOUNT.match(text):
			key = (m.group('path'), m.group('arch'), m.group('arg'))
			console.arg_counts[key] = int(m.group('values'))
		elif m := _DONE.match(text):
			console.done[m.group('arch')] = int(m.group('records'))
		elif m := _EXIT.match(text):
			console.exits[m.group('arch')] = int(m.group('status'))
		elif not text.startswith(('# sweep-start', '# sweep-note', '# faultsweep-init begin',
					  '# faultsweep-init end')):
			console.malformed.append(text)
	return console


@dataclass(frozen=True, order=True)
class Difference:
	"""One field of one position that the two kernels gave differently."""
	path: str
	arch: str
	pos: str		# the position: how much of the object was mapped, and where
	field: str		# ret, errno, data, state; record (absent on one side), skip
	baseline: str
	converted: str

	def __str__(self) -> str:
		return (f'{self.path} {self.arch}, {self.pos}, {self.field}: '
			f'baseline {self.baseline}, converted {self.converted}')


ABSENT = '(absent)'


def top_as_hole(baseline: SweepConsole, converted: SweepConsole,
		archs: Iterable[str]) -> list[tuple[str, str, str]]:
	"""The top-walk positions (path, arch, pos) of archs where the converted
	kernel differs from the baseline and gives, field for field, the
	baseline's record of the hole walk at the same position.

	Where the kernel masks user pointers (archs: the binaries of such a
	kernel), a scope does not check the range: an object that starts below
	the top of user space and runs past it is no longer refused before the
	first access; the accesses below the top are made and the first one
	past it faults on the guard page there (x86-64: the page below
	TASK_SIZE_MAX, never mapped), exactly as at any unmapped page, which
	is what the hole walk records.  x86's access_ok() already checks only
	the start for a constant size up to a page, so only regions with a
	run-time size change.  Anything else a top position does stays a
	difference."""
	found = []
	for key in converted.records:
		path, arch, pos = key
		if arch not in archs or not pos.startswith('top:'):
			continue
		b, c = baseline.records.get(key), converted.records[key]
		hole = baseline.records.get((path, arch, 'hole:' + pos[len('top:'):]))
		if b is not None and hole is not None and b != c and \
		   all(getattr(c, name) == getattr(hole, name) for name in FIELDS):
			found.append(key)
	return found


def compare(baseline: SweepConsole, converted: SweepConsole,
	    archs: Optional[Iterable[str]] = None,
	    accepted: Iterable[tuple[str, str, str]] = ()) -> list[Difference]:
	"""Every field that differs, record by record, in the baseline's order
	(then records only the converted kernel printed); a path skipped on one
	side only is one difference.  accepted: positions not compared (those
	of top_as_hole())."""
	wanted = set(archs) if archs is not None else None
	skipped = set(accepted)
	diffs = []
	for key in dict.fromkeys((*baseline.skips, *converted.skips)):
		if wanted is not None and key[1] not in wanted:
			continue
		b, c = baseline.skips.get(key), converted.skips.get(key)
		if b != c:
			diffs.append(Difference(*key, '-', 'skip', b or 'run', c or 'run'))
	for path, arch, arg in dict.fromkeys((*baseline.arg_skips, *converted.arg_skips)):
		if wanted is not None and arch not in wanted:
			continue
		b, c = (side.arg_skips.get((path, arch, arg)) for side in (baseline, converted))
		if b != c:
			diffs.append(Difference(path, arch, f'{ARG_PREFIX}{arg}', 'skip', b or 'run',
						c or 'run'))
	for key in dict.fromkeys((*baseline.records, *converted.records)):
		if (wanted is not None and key[1] not in wanted) or key in skipped:
			continue
		b, c = baseline.records.get(key), converted.records.get(key)
		if b is None or c is None:
			diffs.append(Difference(*key, 'record', ABSENT if b is None else 'present',
						ABSENT if c is None else 'present'))
			continue
		diffs += [Difference(*key, name, getattr(b, name), getattr(c, name))
			  for name in FIELDS if getattr(b, name) != getattr(c, name)]
	return diffs
