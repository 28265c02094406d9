# SPDX-License-Identifier: GPL-2.0
"""Two userspace runs compared: every check's status and errno, the common KUnit cases."""

import enum
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.core.outcome import Outcome
from scoped_uaccess.kernel.qemu import AccelChoice
from scoped_uaccess.kunit import ktap, suites
from scoped_uaccess.userspace import syscalls
from scoped_uaccess.userspace.syscalls import Check, Console, parse_log, results_log


class DiffKind(enum.Enum):
	ONLY_BASELINE = 'only in the baseline run'
	ONLY_CONVERTED = 'only in the converted run'
	STATUS = 'status differs'
	OUTCOME = 'result differs'
	INCOMPLETE = 'run incomplete'


@dataclass(frozen=True)
class Difference:
	kind: DiffKind
	test: str
	baseline: str = ''
	converted: str = ''

	def __str__(self) -> str:
		text = f'{self.test}: {self.kind.value}'
		if self.baseline or self.converted:
			text += f' (baseline: {self.baseline or "-"}; converted: {self.converted or "-"})'
		return text


def _describe(check: Check) -> str:
	return f'{"ok" if check.status is ktap.Status.PASS else check.status.value} # {check.outcome}'


def compare(baseline: Console, converted: Console) -> list[Difference]:
	"""Where the converted kernel's run differs from the baseline's: the set of
	userspace checks, each one's status and result (errno or signal), and
	the KUnit cases of the suites both kernels have. A suite only one
	kernel has (the series' own suite) is not compared; see only_one_has()."""
	diffs = []
	for label, run in (('baseline', baseline), ('converted', converted)):
		if run.exit_status is None or run.user.errors:
			detail = '; '.join(run.user.errors) or 'no exit status from /init'
			diffs.append(Difference(DiffKind.INCOMPLETE, f'({label} run)', **{label: detail}))
	a, b = baseline.checks, converted.checks
	for name in a.keys() | b.keys():
		if name not in b:
			diffs.append(Difference(DiffKind.ONLY_BASELINE, name, _describe(a[name])))
		elif name not in a:
			diffs.append(Difference(DiffKind.ONLY_CONVERTED, name, '', _describe(b[name])))
		elif a[name].status is not b[name].status:
			diffs.append(Difference(DiffKind.STATUS, name, _describe(a[name]), _describe(b[name])))
		elif a[name].outcome != b[name].outcome:
			diffs.append(Difference(DiffKind.OUTCOME, name, a[name].outcome, b[name].outcome))
	common = {s.name for s in baseline.kunit.suites} & {s.name for s in converted.kunit.suites}
	ka = {'.'.join(p): t for p, t in baseline.kunit.root.walk() if p[0] in common}
	kb = {'.'.join(p): t for p, t in converted.kunit.root.walk() if p[0] in common}
	for name in ka.keys() | kb.keys():
		test = f'kunit:{name}'
		if name not in kb:
			diffs.append(Difference(DiffKind.ONLY_BASELINE, test, ka[name].status.value))
		elif name not in ka:
			diffs.append(Difference(DiffKind.ONLY_CONVERTED, test, '', kb[name].status.value))
		elif ka[name].status is not kb[name].status:
			diffs.append(Difference(DiffKind.STATUS, test, ka[name].status.value,
						kb[name].status.value))
	# Userspace checks in program order, then KUnit cases.
	order: dict[str, int] = {}
	for name in [*a, *b]:
		order.setdefault(name, len(order))
	return sorted(diffs, key=lambda d: (d.test.startswith('kunit:'), order.get(d.test, -1), d.test))


def only_one_has(baseline: Console, converted: Console) -> tuple[list[str], list[str]]:
	"""KUnit suites only in the baseline run, and only in the converted run."""
	a = [s.name for s in baseline.kunit.suites]
	b = [s.name for s in converted.kunit.suites]
	return [s for s in a if s not in b], [s for s in b if s not in a]


# ---- building and booting ----


def compare_step(runner: Runner, baseline_run: str, converted_run: str) -> Outcome:
	"""`scoped-uaccess userspace-compare`: every difference of two runs."""
	logs = [results_log(n) for n in (baseline_run, converted_run)]
	for log in logs:
		if not log.is_file():
			raise UsageError(f'{log} does not exist', 'run `scoped-uaccess userspace` first')
	baseline, converted = (parse_log(log) for log in logs)
	diffs = compare(baseline, converted)
	for d in diffs:
		runner.say(f'compare: {d}')
	only_a, only_b = only_one_has(baseline, converted)
	for label, names in (('baseline', only_a), ('converted', only_b)):
		if names:
			runner.say(f'compare: KUnit suites only the {label} kernel runs (not compared): '
				   f'{" ".join(names)}')
	failing = [f'{label}: {run.problems()[0]}'
		   for label, run in (('baseline', baseline), ('converted', converted)) if run.problems()]
	summary = (f'{len(converted.checks)} checks and the common KUnit cases compared; '
		   f'{len(diffs)} difference(s)')
	runner.say(f'compare: {summary}')
	if diffs or failing:
		return Outcome.findings('; '.join([summary, *failing]))
	return Outcome.ok(summary)


@dataclass(frozen=True)
class BootRequest:
	"""A converted kernel and its baseline booted with the userspace tests.
	The baseline's image is built beforehand (kernel/baseline.py); without
	build_baseline, the existing run baseline_run is read instead."""
	converted: Path			# the converted worktree
	tree: Path			# the tree whose build directories these are (paths.tree_suffix())
	baseline_run: str = paths.BASELINE_RUN
	build_baseline: bool = True
	jobs: int = 1
	accel: AccelChoice = AccelChoice.AUTO


@dataclass
class BootComparison:
	problems: list[str] = field(default_factory=list)	# differences and failed runs
	summary: str = ''
	ran: bool = False		# both runs were compared
	seconds: dict[str, float] = field(default_factory=dict)

	@property
	def passed(self) -> bool:
		return self.ran and not self.problems


def boot_compare(runner: Runner, request: BootRequest,
		 say: Callable[[str], None]) -> BootComparison:
	"""Both kernels with the userspace tests; their results must agree."""
	result = BootComparison()
	consoles: dict[str, Optional[Console]] = {}
	kernels = [(paths.CONVERTED_RUN, True)]
	if request.build_baseline:
		kernels.insert(0, (request.baseline_run, False))
	else:
		log = results_log(request.baseline_run, request.tree)
		if not log.is_file() and not runner.dry_run:
			raise UsageError(f'{log} does not exist', 'run `scoped-uaccess userspace '
					 f'--name {request.baseline_run}` on a baseline tree, or drop '
					 '--baseline-run')
		say(f'validate: baseline: the existing run {log}')
		consoles[request.baseline_run] = None if runner.dry_run else parse_log(log)
	for name, build in kernels:
		start = time.monotonic()
		run = syscalls.run_userspace(runner, syscalls.UserspaceRequest(
			kdir=request.converted, name=name, accel=request.accel, jobs=request.jobs,
			build=build, tree=request.tree))
		result.seconds[f'boot {name}'] = time.monotonic() - start
		say(f'validate: userspace[{name}]: {run.status.value}; build '
		    f'{run.build_seconds:.0f} s, boot {run.boot_seconds:.0f} s ({run.accelerator.value})')
		if run.status is not syscalls.RunStatus.PASSED:
			result.problems.append(f'{name}: {run.status.value}: {run.message}')
		consoles[name] = run.console
	if runner.dry_run:
		return result
	baseline, converted = consoles[request.baseline_run], consoles[paths.CONVERTED_RUN]
	if baseline is None or converted is None:
		return result
	result.ran = True
	for label, console in (('baseline', baseline), ('converted', converted)):
		result.problems += [f'{label}: {p}' for p in console.problems()[:5]]
	diffs = compare(baseline, converted)
	result.problems += [f'differs: {d}' for d in diffs]
	kunit = '; '.join(str(s) for s in suites.summarize(converted.kunit))
	result.summary = (f'{len(converted.checks)} userspace checks and the common KUnit cases '
			  f'compared with {request.baseline_run}, {len(diffs)} difference(s); '
			  f'converted kernel KUnit: {kunit}')
	say(f'validate: {result.summary}')
	return result
