# SPDX-License-Identifier: GPL-2.0
"""Which KUnit suites and cases must report, and which skips are allowed."""

import enum
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from scoped_uaccess.kunit.ktap import Run, Status


@dataclass(frozen=True)
class ExpectedSuite:
	"""A suite whose every KUNIT_CASE*() in source must report in KTAP."""
	name: str
	source: str		# relative to KDIR
	min_cases: int


# The sources as 6.12 has them; since 6.14 the KUnit suites of lib/ live in
# lib/tests/, where _source() finds them.
EXPECTED_SUITES = (
	ExpectedSuite(name='scoped_uaccess', source='lib/scoped_uaccess_kunit.c', min_cases=20),
	ExpectedSuite(name='usercopy', source='lib/usercopy_kunit.c', min_cases=4),
)

# 'suite.case' -> why skipping it is acceptable. Every entry needs a reason.
# Empty: on the project's own boots (-cpu max, so with SMAP) every case
# must pass, the SMAP case included.
SKIP_ALLOWLIST: dict[str, str] = {}


@dataclass(frozen=True)
class Platform:
	"""What decides which cases cannot test anything: the kernel's
	architecture and the CPU it boots on."""
	x86: bool
	smap: bool			# the CPU has SMAP (x86)
	alternate_address_space: bool	# CONFIG_ALTERNATE_USER_ADDRESS_SPACE

	@staticmethod
	def of(config: str, smap: bool) -> 'Platform':
		"""From a .config's text, and whether the CPU has SMAP."""
		enabled = set(re.findall(r'^CONFIG_(\w+)=y$', config, re.MULTILINE))
		return Platform(x86='X86' in enabled, smap=smap and 'X86' in enabled,
				alternate_address_space='ALTERNATE_USER_ADDRESS_SPACE' in enabled)


@dataclass(frozen=True)
class SkipRule:
	"""Cases that must skip, with a reason, where the platform cannot show
	what they test (and would fail or pass trivially)."""
	tests: tuple[str, ...]		# 'suite.case'
	why: str
	applies: Callable[[Platform], bool]


SKIP_RULES = (
	SkipRule(('scoped_uaccess.scoped_uaccess_test_smap',),
		 'EFLAGS.AC shows the user access state on x86 with SMAP only',
		 lambda p: not (p.x86 and p.smap)),
	# usercopy_kunit.c skips its invalid case there for the same reason.
	SkipRule(('scoped_uaccess.scoped_uaccess_test_fault_kernel_read',
		  'scoped_uaccess.scoped_uaccess_test_fault_kernel_write',
		  'scoped_uaccess.scoped_uaccess_test_pointer_unchanged',
		  'usercopy.usercopy_test_invalid'),
		 'user space is an address space of its own: access_ok() accepts a kernel address',
		 lambda p: p.alternate_address_space),
)


def expected_skips(platform: Platform) -> dict[str, str]:
	"""'suite.case' -> why it must skip on platform."""
	return {test: rule.why for rule in SKIP_RULES if rule.applies(platform) for test in rule.tests}

_CASE = re.compile(r'\bKUNIT_CASE(?:_[A-Z_]+)?\s*\(\s*([A-Za-z_]\w*)')
_COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.DOTALL)
_IF0 = re.compile(r'^\s*#\s*if\s+0\b.*?^\s*#\s*endif\b', re.DOTALL | re.MULTILINE)


class FindingKind(enum.Enum):
	"""Why a KUnit run does not pass."""
	FAILED = 'failed'
	SKIPPED = 'skipped'
	NOT_SKIPPED = 'did not skip where it cannot test anything'
	INCOMPLETE = 'incomplete'
	MISSING_CASE = 'declared but did not report'
	MISSING_SUITE = 'suite did not report'
	MISSING_SOURCE = 'suite source missing'
	TOO_FEW_CASES = 'fewer cases than required'
	BAD_KTAP = 'KTAP incomplete'


@dataclass(frozen=True)
class Finding:
	kind: FindingKind
	test: str
	detail: str = ''

	def __str__(self) -> str:
		return f'{self.test}: {self.kind.value}' + (f' ({self.detail})' if self.detail else '')


def declared_cases(source: str) -> list[str]:
	"""The case functions named in KUNIT_CASE*() in C source, in order."""
	code = _IF0.sub('', _COMMENT.sub(' ', source))
	return _CASE.findall(code)


def check(run: Run, kdir: Path, suites: Sequence[ExpectedSuite],
	  allow_skips: Mapping[str, str] = SKIP_ALLOWLIST,
	  must_skip: Mapping[str, str] = {}) -> list[Finding]:
	"""Everything that makes this run a failure; empty means it passed.
	must_skip: the cases that must skip ('suite.case' -> why;
	expected_skips()): one that passes is a finding too."""
	findings = [Finding(FindingKind.BAD_KTAP, 'ktap', e) for e in run.errors]
	allowed = {**allow_skips, **must_skip}
	for path, test in run.root.walk():
		name = '.'.join(path)
		if test.status is Status.FAIL:
			findings.append(Finding(FindingKind.FAILED, name, _first_diagnostic(test.log)))
		elif test.status is Status.INCOMPLETE:
			findings.append(Finding(FindingKind.INCOMPLETE, name))
		elif test.status is Status.SKIP and not _allowed(path, allowed):
			findings.append(Finding(FindingKind.SKIPPED, name, test.reason))
		elif test.status is Status.SKIP and not test.reason:
			findings.append(Finding(FindingKind.SKIPPED, name, 'no reason given'))
		elif test.status is Status.PASS and name in must_skip:
			findings.append(Finding(FindingKind.NOT_SKIPPED, name, must_skip[name]))
	for suite in suites:
		findings += _check_suite(run, kdir, suite)
	return findings


def _allowed(path: Iterable[str], allow_skips: dict[str, str]) -> bool:
	parts = list(path)
	return any('.'.join(parts[:n]) in allow_skips for n in range(1, len(parts) + 1))


def _first_diagnostic(log: list[str]) -> str:
	for line in log:
		if 'EXPECTATION FAILED' in line or 'ASSERTION FAILED' in line or 'failed' in line:
			return line.lstrip('# ').strip()
	return ''


def _source(kdir: Path, source: str) -> Path:
	"""kdir/source, or the file of that name in lib/tests/ (v6.14 and later)."""
	path = kdir / source
	moved = kdir / 'lib' / 'tests' / path.name
	return moved if not path.is_file() and moved.is_file() else path


def _check_suite(run: Run, kdir: Path, suite: ExpectedSuite) -> list[Finding]:
	path = _source(kdir, suite.source)
	if not path.is_file():
		return [Finding(FindingKind.MISSING_SOURCE, suite.name, f'{suite.source} not in {kdir}')]
	cases = declared_cases(path.read_text(errors='replace'))
	findings = []
	if len(cases) < suite.min_cases:
		findings.append(Finding(FindingKind.TOO_FEW_CASES, suite.name,
					f'{suite.source} declares {len(cases)}, needs {suite.min_cases}'))
	reported = run.root.child(suite.name)
	if reported is None:
		return findings + [Finding(FindingKind.MISSING_SUITE, suite.name)]
	for case in cases:
		if reported.child(case) is None:
			findings.append(Finding(FindingKind.MISSING_CASE, f'{suite.name}.{case}',
						suite.source))
	return findings
