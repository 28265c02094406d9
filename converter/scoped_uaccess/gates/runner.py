# SPDX-License-Identifier: GPL-2.0
"""`make test`: every gate in order, each with a named status, wall time
and processor time.

A gate's processor time is user+sys of this process and of every child it
waited for while the gate ran, less what the background warm-up's builds
took in that time (they are reaped by the same process): on two cores a
run cannot take less wall time than half its processor time, so the table
says where that goes.
"""

import enum
import resource
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
	cpu: float = 0.0	# processor seconds of the gate's own work


@dataclass(frozen=True)
class Background:
	"""Processor seconds of work done beside the gates (the warm-up),
	per job, for the table."""
	jobs: tuple[tuple[str, float], ...] = ()

	@property
	def total(self) -> float:
		return sum(cpu for _, cpu in self.jobs)


def cpu_seconds() -> float:
	"""User+sys seconds of this process and its reaped children so far."""
	total = 0.0
	for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
		usage = resource.getrusage(who)
		total += usage.ru_utime + usage.ru_stime
	return total


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


def run_gates(gates: list[Gate], say: Callable[[str], None],
	      background: Callable[[], float] = lambda: 0.0) -> TestRun:
	"""Runs the gates in order; one that needs a failed gate is NOT RUN.
	background() is the processor time of the warm-up so far."""
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
		start, cpu, beside = time.monotonic(), cpu_seconds(), background()
		try:
			outcome = gate.run()
			status = GateStatus.PASS if outcome.exit_status == 0 else GateStatus.FAIL
			detail = outcome.summary
		except ScopedUaccessError as e:
			status, detail = GateStatus.ERROR, e.one_line()
		own = cpu_seconds() - cpu - (background() - beside)
		result = GateResult(gate, status, time.monotonic() - start, detail, max(own, 0.0))
		run.results.append(result)
		if status is GateStatus.PASS:
			passed.add(gate.name)
			say(f'==> {gate.name}: PASS in {format_seconds(result.seconds)} '
			    f'({format_seconds(result.cpu)} cpu)')
		else:
			say(f'==> {gate.name}: {status.value}: {gate.failure}: {detail}')
	return run


def summary_table(run: TestRun, background: Background = Background()) -> str:
	"""The table `make test` ends with, the warm-up's processor time, then
	one verdict line."""
	width = max(len(r.gate.name) for r in run.results) if run.results else 4
	lines = [f'{"gate":<{width}}  {"status":<7}  {"time":>6}  {"cpu":>6}  detail',
		 f'{"-" * width}  -------  ------  ------  ------']
	total = cpu = 0.0
	for r in run.results:
		total += r.seconds
		cpu += r.cpu
		detail = r.detail if r.status is GateStatus.PASS else \
			f'{r.gate.failure}: {r.detail}' if r.status is not GateStatus.NOT_RUN else r.detail
		lines.append(f'{r.gate.name:<{width}}  {r.status.value:<7}  '
			     f'{format_seconds(r.seconds):>6}  {format_seconds(r.cpu):>6}  {detail}')
	if background.jobs:
		lines.append('warm-up (background builds, cpu): ' + ', '.join(
			f'{name} {format_seconds(secs)}' for name, secs in background.jobs))
	lines.append(f'cpu: {format_seconds(cpu + background.total)} '
		     f'(gates {format_seconds(cpu)}, warm-up {format_seconds(background.total)})')
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
