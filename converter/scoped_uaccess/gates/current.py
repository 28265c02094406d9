# SPDX-License-Identifier: GPL-2.0
"""make test on the current kernel: Debian's 7.3 tree, the checker's report of it, its fixes.

The tree is fetched and made as `make tree KDIR=build/linux-7.3` makes
it (its series: the checker patch), and its patches pass checkpatch.
The checker's report of it is written under build/results/ and must be
complete: every finding triaged, in reports/linux-<version>/triage.json
or carried from another report by its fingerprint; when Debian still
serves the version the committed report is of, it must also have the
same findings.  The fixes apply, pass checkpatch and build (fixes.py).
"""

from pathlib import Path

from scoped_uaccess.cocci import report
from scoped_uaccess.cocci.findings import findings_from_json
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.outcome import Outcome
from scoped_uaccess.gates import checkpatch, fixes
from scoped_uaccess.kernel import kbuild, sources, tree

KDIR = paths.BUILD / 'linux-7.3'
# checkpatch asks whether MAINTAINERS needs an entry for every file a
# patch adds; the series adds scripts/coccinelle/misc/ files only, which
# the tree's COCCINELLE entry covers (F: scripts/coccinelle/).
CHECKPATCH_IGNORE = ('FILE_PATH_CHANGES',)


def tree_step(runner: Runner, force: bool = False, kdir: Path = KDIR) -> Outcome:
	"""The tree as make tree makes it, and checkpatch over its series."""
	patches = sources.patches_for(kdir)
	made = tree.step(runner, tree.TreeRequest(kdir, patches, force, sources.for_kdir(kdir)))
	if made.exit_status != 0 or runner.dry_run:
		return made
	checked = checkpatch.step(runner, kdir, patches, CHECKPATCH_IGNORE,
				  name=f'checkpatch-{kdir.name}.txt')
	summary = f'{made.summary}; checkpatch: {checked.summary}'
	return Outcome(checked.exit_status, summary)


def report_step(runner: Runner, kdir: Path = KDIR, jobs: int = kbuild.JOBS) -> Outcome:
	"""The checker over the tree: every finding triaged, and the committed
	report's findings when the version is the same."""
	version = tree.kernel_version(kdir)
	committed = report.REPORTS / f'linux-{version}'
	result = report.run_report(runner, report.ReportRequest(
		kdir, out=paths.RESULTS / 'report-check' / f'linux-{version}',
		triage=committed / 'triage.json', jobs=jobs), runner.say)
	if runner.dry_run:
		return Outcome.ok('dry run')
	carried = sum(1 for f in result.check.findings
		      if f.id in result.triage and result.triage[f.id].carried)
	summary = (f'Linux {version}: {len(result.check.findings)} finding(s) in '
		   f'{len(result.check.files)} files, {carried} triaged by another report')
	problems = []
	if result.untriaged:
		problems.append(f'{len(result.untriaged)} not triaged: {", ".join(result.untriaged[:5])}')
	if result.error_false_positives:
		problems.append(f'{len(result.error_false_positives)} false positive(s) at ERROR level')
	if result.validation is not None and not result.validation.ok:
		problems.append('the SARIF Multitool finds problems in the SARIF written')
	if (committed / 'findings.json').is_file():
		want = {f.id for f in findings_from_json((committed / 'findings.json').read_text())}
		have = {f.id for f in result.check.findings}
		if want != have:
			problems.append(f'not the findings of {committed.relative_to(paths.REPO)}: '
					f'{len(have - want)} new, {len(want - have)} gone '
					f'({", ".join(sorted(have ^ want)[:4])})')
	else:
		summary += f'; Debian serves {version}, the committed report is of another version'
	if problems:
		return Outcome.findings('; '.join([summary, *problems]))
	return Outcome.ok(summary)


def fixes_step(runner: Runner, kdir: Path = KDIR, jobs: int = kbuild.JOBS) -> Outcome:
	return fixes.step(runner, fixes.FixesRequest(kdir, jobs=jobs))
