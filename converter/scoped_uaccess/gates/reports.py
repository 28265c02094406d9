# SPDX-License-Identifier: GPL-2.0
"""The checker's report of a tree, as committed: make test's report gates.

For a tree make test makes (build/linux, build/linux-7.3), the checker
runs over the tree with its series and over the pristine tree, as `make
report` does.  Both reports must be complete: every line checked, every
finding triaged, in reports/linux-<version>/triage.json or carried from
another report by its fingerprint, no false positive at ERROR level,
SARIF the Multitool accepts; a finding in a file the series changes
must be triaged harmless.  When the committed reports are of the tree's
version (Debian may serve a newer 7.3.x), they must also have the same
findings: a checker change that finds more or fewer is committed with
its report.
"""

from pathlib import Path

from scoped_uaccess.checker import report
from scoped_uaccess.checker.findings import findings_from_json
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.outcome import Outcome, relative
from scoped_uaccess.kernel import kbuild, tree, worktree
from scoped_uaccess.kernel.git import git


# reports/linux-<version>/ is the report of the tree with its series,
# reports/linux-<version>/pristine/ that of the tree as Debian ships it;
# both share the first one's triage.json.
PRISTINE = 'pristine'


def _report(runner: Runner, kdir: Path, committed: Path, triage: Path,
	    out: Path, jobs: int) -> tuple[str, list[str]]:
	"""The checker over one tree: a summary, and the problems with the
	report (compared with committed/findings.json when there is one)."""
	result = report.run_report(runner, report.ReportRequest(
		kdir, out=out, triage=triage, jobs=jobs), runner.say)
	if runner.dry_run:
		return 'dry run', []
	carried = sum(1 for f in result.check.findings
		      if f.id in result.triage and result.triage[f.id].carried)
	summary = (f'{len(result.check.findings)} finding(s) in {len(result.check.files)} files, '
		   f'{carried} triaged by another report')
	problems = []
	if result.untriaged:
		problems.append(f'{len(result.untriaged)} not triaged: {", ".join(result.untriaged[:5])}')
	if result.error_false_positives:
		problems.append(f'{len(result.error_false_positives)} false positive(s) at ERROR level')
	if result.validation is not None and not result.validation.ok:
		problems.append('the SARIF Multitool finds problems in the SARIF written')
	if not result.check.complete:
		problems.append(f'not every line checked: {len(result.check.parse_failures)} block(s) '
				f'spatch cannot parse, {len(result.check.not_checked)} file(s) not checked')
	# What the series changes must be clean: a finding there may be a
	# region a conversion left as it was, with a reviewed WARNING, never a
	# bug or a false positive.
	series = set(runner.run(git(kdir, 'diff', '--name-only', f'{tree.BASELINE_TAG}..HEAD', '--',
				    '*.c', '*.h'), Output.CAPTURE).output.split())
	unclean = [f.id for f in result.check.findings if f.file in series
		   and (f.id not in result.triage or result.triage[f.id].verdict is not report.Verdict.HARMLESS)]
	if unclean:
		problems.append(f'{len(unclean)} finding(s) in files the series changes not triaged '
				f'harmless: {", ".join(unclean[:5])}')
	if (committed / 'findings.json').is_file():
		want = {f.id for f in findings_from_json((committed / 'findings.json').read_text())}
		have = {f.id for f in result.check.findings}
		if want != have:
			problems.append(f'not the findings of {relative(committed)}: '
					f'{len(have - want)} new, {len(want - have)} gone '
					f'({", ".join(sorted(have ^ want)[:4])})')
	return summary, problems


def step(runner: Runner, kdir: Path, jobs: int = kbuild.JOBS) -> Outcome:
	"""The checker over the tree and over its pristine baseline: every
	finding triaged, and the committed reports' findings when the version
	is the same."""
	version = tree.kernel_version(kdir)
	committed = report.REPORTS / f'linux-{version}'
	out = paths.RESULTS / 'report-check' / f'linux-{version}'
	pristine = worktree.worktree(runner, kdir, paths.of_tree(paths.BASELINE_TREE, kdir),
				     tree.BASELINE_TAG)
	parts, problems = [], []
	for name, srctree, where, to in (('with the series', kdir, committed, out),
					 (PRISTINE, pristine, committed / PRISTINE, out / PRISTINE)):
		summary, found = _report(runner, srctree, where, committed / 'triage.json', to, jobs)
		parts.append(f'{name}: {summary}')
		problems += [f'{name}: {p}' for p in found]
	if runner.dry_run:
		return Outcome.ok('dry run')
	summary = f'Linux {version}: ' + '; '.join(parts)
	if not (committed / 'findings.json').is_file():
		summary += f'; Debian serves {version}, the committed reports are of another version'
	if problems:
		return Outcome.findings('; '.join([summary, *problems]))
	return Outcome.ok(summary)
