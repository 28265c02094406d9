# SPDX-License-Identifier: GPL-2.0
"""Two userspace runs compared: every check's status and errno, the common KUnit cases."""

import enum
from dataclasses import dataclass

from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.core.outcome import Outcome
from scoped_uaccess.kunit import ktap
from scoped_uaccess.userspace.boot import Check, Console, parse_log, results_log


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
	for label, suites in (('baseline', only_a), ('converted', only_b)):
		if suites:
			runner.say(f'compare: KUnit suites only the {label} kernel runs (not compared): '
				   f'{" ".join(suites)}')
	failing = [f'{label}: {run.problems()[0]}'
		   for label, run in (('baseline', baseline), ('converted', converted)) if run.problems()]
	summary = (f'{len(converted.checks)} checks and the common KUnit cases compared; '
		   f'{len(diffs)} difference(s)')
	runner.say(f'compare: {summary}')
	if diffs or failing:
		return Outcome.findings('; '.join([summary, *failing]))
	return Outcome.ok(summary)
