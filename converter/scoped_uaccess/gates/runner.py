# SPDX-License-Identifier: GPL-2.0
"""`make test`: every gate in order, each with a named status and wall time."""

import enum
import time
from dataclasses import dataclass, field
from typing import Callable

from scoped_uaccess.core import paths
from scoped_uaccess.core.errors import ScopedUaccessError
from scoped_uaccess.core.outcome import Outcome, format_seconds, written


class GateStatus(enum.Enum):
	PASS = 'PASS'
	FAIL = 'FAIL'		# the gate ran and found problems
	ERROR = 'ERROR'		# the gate could not run (environment, usage)
	NOT_RUN = 'NOT RUN'	# a gate it needs did not pass


@dataclass(frozen=True)
class Gate:
	name: str
	failure: str		# what a FAIL of this gate means, for the summary
	run: Callable[[], Outcome]
	needs: tuple[str, ...] = ()


@dataclass
class GateResult:
	gate: Gate
	status: GateStatus
	seconds: float = 0.0
	detail: str = ''


@dataclass
class TestRun:
	results: list[GateResult] = field(default_factory=list)

	@property
	def exit_status(self) -> int:
		statuses = {r.status for r in self.results}
		if GateStatus.FAIL in statuses:
			return 1
		if statuses & {GateStatus.ERROR, GateStatus.NOT_RUN}:
			return 2
		return 0


def run_gates(gates: list[Gate], say: Callable[[str], None]) -> TestRun:
	"""Runs the gates in order; one that needs a failed gate is NOT RUN."""
	run = TestRun()
	passed: set[str] = set()
	for gate in gates:
		missing = [n for n in gate.needs if n not in passed]
		if missing:
			run.results.append(GateResult(gate, GateStatus.NOT_RUN,
						      detail=f'needs {", ".join(missing)}'))
			say(f'==> {gate.name}: NOT RUN (needs {", ".join(missing)})')
			continue
		say(f'==> {gate.name}')
		start = time.monotonic()
		try:
			outcome = gate.run()
			status = GateStatus.PASS if outcome.exit_status == 0 else GateStatus.FAIL
			detail = outcome.summary
		except ScopedUaccessError as e:
			status, detail = GateStatus.ERROR, e.one_line()
		result = GateResult(gate, status, time.monotonic() - start, detail)
		run.results.append(result)
		if status is GateStatus.PASS:
			passed.add(gate.name)
		else:
			say(f'==> {gate.name}: {status.value}: {gate.failure}: {detail}')
	return run


def summary_table(run: TestRun) -> str:
	"""The table `make test` ends with, then one verdict line."""
	width = max(len(r.gate.name) for r in run.results) if run.results else 4
	lines = [f'{"gate":<{width}}  {"status":<7}  {"time":>6}  detail',
		 f'{"-" * width}  -------  ------  ------']
	total = 0.0
	for r in run.results:
		total += r.seconds
		detail = r.detail if r.status is GateStatus.PASS else \
			f'{r.gate.failure}: {r.detail}' if r.status is not GateStatus.NOT_RUN else r.detail
		lines.append(f'{r.gate.name:<{width}}  {r.status.value:<7}  '
			     f'{format_seconds(r.seconds):>6}  {detail}')
	bad = [r.gate.name for r in run.results if r.status is not GateStatus.PASS]
	verdict = 'PASS' if not bad else f'FAIL ({", ".join(bad)})'
	lines.append(f'make test: {verdict}, {len(run.results) - len(bad)}/{len(run.results)} '
		     f'gates passed in {format_seconds(total)}')
	# The plain closing line CI reads.
	lines.append(f'gates: {len(run.results) - len(bad)} passed, {len(bad)} failed')
	return '\n'.join(lines)


def build_verdict(total: int, failed: list[str], what: str, name: str, text: str) -> Outcome:
	"""Writes build/results/<name> and sums up builds that pass or fail."""
	details = written(paths.RESULTS / name, text)
	summary = f'{total - len(failed)} of {total} {what} build cleanly (details: {details})'
	if failed:
		return Outcome.findings(f'{summary}; failed: {", ".join(failed)}')
	return Outcome.ok(summary)
