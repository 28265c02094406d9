# SPDX-License-Identifier: GPL-2.0
"""What a check concludes: the findings a CI job or a reviewer is shown, and
the exit status.

A baseline (`--baseline`: the findings.json of an earlier run, or a triage
file keyed by finding id, such as a report's triage.json) hides what it
lists; `--class` keeps only the classes named; `--fail-on error` lets
WARNINGs through without failing.  The exit status means one thing:
0 clean, 1 findings at or above the threshold, 2 not everything was
checked (a block spatch cannot parse that the baseline does not list, a
file not checked, an interrupted or dry run) or the check could not run.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from scoped_uaccess.checker.check import CheckResult
from scoped_uaccess.checker.findings import Finding, Severity
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.core.outcome import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE

FAIL_ON = {'error': (Severity.ERROR,), 'warning': (Severity.ERROR, Severity.WARNING)}


@dataclass(frozen=True)
class Gate:
	fail_on: str = 'warning'
	classes: frozenset[str] = frozenset()	# empty: every class
	baseline: frozenset[str] = frozenset()	# ids to leave out


@dataclass
class Verdict:
	shown: list[Finding] = field(default_factory=list)
	suppressed: int = 0			# findings and blocks the baseline lists
	filtered: int = 0			# findings of other classes
	exit_status: int = EXIT_OK


def load_baseline(path: Path) -> frozenset[str]:
	"""The ids a baseline file lists: a findings.json ({"findings": [{"id"}],
	"parse_failures": [{"id"}]}) or a triage file ({id: {"verdict", ...}})."""
	try:
		data = json.loads(path.read_text())
	except OSError as e:
		raise UsageError(f'--baseline {path}: {e.strerror}',
				 'give a findings.json of an earlier run or a triage.json') from e
	except ValueError as e:
		raise UsageError(f'--baseline {path}: not JSON ({e})',
				 'give a findings.json of an earlier run or a triage.json') from e
	if isinstance(data, dict) and isinstance(data.get('findings'), list):
		try:
			return frozenset(str(item['id']) for key in ('findings', 'parse_failures')
					 for item in data.get(key) or [])
		except (KeyError, TypeError) as e:
			raise UsageError(f'--baseline {path}: a finding without an id',
					 'give the findings.json of check --format json or of a report') from e
	if isinstance(data, dict) and all(isinstance(v, dict) and 'verdict' in v
					  for v in data.values()):
		return frozenset(data)
	raise UsageError(f'--baseline {path}: neither a findings.json nor a triage file',
			 'give a findings.json of an earlier run or a triage.json')


def judge(result: CheckResult, gate: Gate) -> Verdict:
	"""The findings to show and the exit status.  Parse failures the
	baseline lists are left out of the result (read by hand already)."""
	verdict = Verdict()
	for f in result.findings:
		if f.id in gate.baseline:
			verdict.suppressed += 1
		elif gate.classes and f.cls not in gate.classes:
			verdict.filtered += 1
		else:
			verdict.shown.append(f)
	kept = [p for p in result.parse_failures if p.id not in gate.baseline]
	verdict.suppressed += len(result.parse_failures) - len(kept)
	result.parse_failures = kept
	failing = FAIL_ON[gate.fail_on]
	if not result.complete:
		verdict.exit_status = EXIT_USAGE
	elif any(f.severity in failing for f in verdict.shown):
		verdict.exit_status = EXIT_FINDINGS
	return verdict


def summary(result: CheckResult, verdict: Verdict, what: Optional[str] = None) -> str:
	"""One line: what was checked and what came of it."""
	parts = [f'{len(result.files)} file(s)', f'{len(verdict.shown)} finding(s)']
	if verdict.suppressed:
		parts.append(f'{verdict.suppressed} in the baseline')
	if verdict.filtered:
		parts.append(f'{verdict.filtered} of other classes')
	if result.parse_failures:
		parts.append(f'{len(result.parse_failures)} block(s) spatch cannot parse')
	if result.not_checked:
		parts.append(f'{len(result.not_checked)} file(s) not checked')
	if result.interrupted:
		parts.append('interrupted: incomplete')
	if result.dry_run:
		parts.append('dry run: nothing was checked')
	return (f'{what}: ' if what else '') + ', '.join(parts)
