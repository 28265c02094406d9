# SPDX-License-Identifier: GPL-2.0
"""Compiles testcases/negative/*.c exactly as kbuild compiles a real object."""

import enum
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem, UsageError
from scoped_uaccess.core.outcome import Outcome, written
from scoped_uaccess.kernel.kbuild import cmd_file, parse_cmd_file, substitute

# The object whose recorded compiler command the test files borrow.
REFERENCE_OBJECT = 'lib/scoped_uaccess_kunit.o'
# `// EXPECT-ERROR: <regex>` must appear within the first lines of a file.
EXPECT_LINES = 20
_EXPECT = re.compile(r'^\s*//\s*EXPECT-ERROR:\s*(?P<regex>.*?)\s*$')
OK_SUFFIX = '-ok.c'


class Expectation(enum.Enum):
	COMPILES = 'compiles cleanly'
	FAILS = 'fails to compile'


class CaseStatus(enum.Enum):
	PASS = 'PASS'
	FAIL = 'FAIL'


@dataclass(frozen=True)
class NegativeCase:
	path: Path
	expectation: Expectation
	pattern: Optional[str] = None


@dataclass
class CaseResult:
	case: NegativeCase
	status: CaseStatus
	detail: str = ''
	output: str = ''
	returncode: int = 0


@dataclass
class NegativeResult:
	cases: list[CaseResult] = field(default_factory=list)

	@property
	def passed(self) -> bool:
		return bool(self.cases) and all(c.status is CaseStatus.PASS for c in self.cases)


def load_case(path: Path) -> NegativeCase:
	"""Reads what a test file expects: *-ok.c compile, others name their error."""
	if path.name.endswith(OK_SUFFIX):
		return NegativeCase(path, Expectation.COMPILES)
	with path.open(errors='replace') as f:
		head = [next(f, '') for _ in range(EXPECT_LINES)]
	for line in head:
		m = _EXPECT.match(line)
		if m and m.group('regex'):
			try:
				re.compile(m.group('regex'))
			except re.error as e:
				raise UsageError(f'{path.name}: bad EXPECT-ERROR regex: {e}',
						 'fix the regex in its first lines') from e
			return NegativeCase(path, Expectation.FAILS, m.group('regex'))
	raise UsageError(f'{path.name} has no `// EXPECT-ERROR: <regex>` in its first '
			 f'{EXPECT_LINES} lines', f'add one, or name it *{OK_SUFFIX} if it must compile')


def judge(case: NegativeCase, returncode: int, output: str) -> CaseResult:
	"""Whether one compilation did what the file expects."""
	if case.expectation is Expectation.COMPILES:
		if returncode != 0:
			return CaseResult(case, CaseStatus.FAIL, f'did not compile (status {returncode}): '
					  + _first_diagnostic(output), output, returncode)
		if re.search(r'\bwarning:', output):
			return CaseResult(case, CaseStatus.FAIL, 'compiled with warnings: '
					  + _first_diagnostic(output), output, returncode)
		return CaseResult(case, CaseStatus.PASS, 'compiled cleanly', output, returncode)
	assert case.pattern is not None
	if returncode == 0:
		return CaseResult(case, CaseStatus.FAIL, 'compiled, but must fail', output, returncode)
	if not re.search(case.pattern, output, re.MULTILINE):
		return CaseResult(case, CaseStatus.FAIL, f'failed, but no output matches /{case.pattern}/: '
				  + _first_diagnostic(output), output, returncode)
	return CaseResult(case, CaseStatus.PASS, f'failed as expected (/{case.pattern}/)',
			  output, returncode)


def _first_diagnostic(output: str) -> str:
	for line in output.splitlines():
		if 'error:' in line or 'warning:' in line:
			return line.strip()
	return output.strip().splitlines()[0] if output.strip() else '(no output)'


def run_negative(runner: Runner, build_dir: Path, cases_dir: Path = paths.NEGATIVE,
		 reference: str = REFERENCE_OBJECT,
		 out_dir: Path = paths.OUT / 'negative') -> NegativeResult:
	"""Compiles every test file with the reference object's kbuild command."""
	files = sorted(cases_dir.glob('*.c'))
	if not files:
		raise UsageError(f'no test files in {cases_dir}', 'add testcases/negative/*.c')
	cmd_path = cmd_file(build_dir, reference)
	if not cmd_path.is_file():
		raise EnvironmentProblem(f'{cmd_path} is missing',
					 'build the kunit kernel first with `make kunit CC=gcc`')
	kbuild = parse_cmd_file(cmd_path.read_text(errors='replace'), reference)
	cases = [load_case(f) for f in files]
	out_dir.mkdir(parents=True, exist_ok=True)
	result = NegativeResult()
	for case in cases:
		stem = case.path.stem
		argv = substitute(kbuild, case.path.resolve(), (out_dir / f'{stem}.o').resolve(),
				  (out_dir / f'.{stem}.o.d').resolve())
		# The recorded command names generated headers relative to the
		# object tree (./include, ./arch/...), so it runs from there.
		run = runner.run(Command(tuple(argv), cwd=build_dir.resolve(), mutates=False),
				 Output.CAPTURE, check=False)
		output = run.output + run.stderr
		case_result = judge(case, run.returncode, output)
		runner.say(f'negative: {case_result.status.value} {case.path.name}: {case_result.detail}')
		result.cases.append(case_result)
	return result


def report(result: NegativeResult) -> str:
	"""The text of build/results/negative.txt."""
	lines = []
	for c in result.cases:
		lines.append(f'{c.status.value} {c.case.path.name} ({c.case.expectation.value}): {c.detail}')
	for c in result.cases:
		lines += ['', f'=== {c.case.path.name}: exit status {c.returncode}', c.output.rstrip()]
	return '\n'.join(lines) + '\n'


def step(runner: Runner, build_dir: Path, reference: str = REFERENCE_OBJECT) -> Outcome:
	"""The gate: every file as expected; details in build/results/negative.txt."""
	result = run_negative(runner, build_dir, reference=reference)
	details = written(paths.RESULTS / 'negative.txt', report(result))
	failed = [c.case.path.name for c in result.cases if c.status is CaseStatus.FAIL]
	summary = f'{len(result.cases) - len(failed)} of {len(result.cases)} files as expected'
	runner.say(f'negative: {summary} (details: {details})')
	if failed:
		return Outcome.findings(f'{summary}; wrong: {", ".join(failed)}')
	return Outcome.ok(summary)
