# SPDX-License-Identifier: GPL-2.0
"""The checkpatch gate: checkpatch.pl --strict over every patch of patches/series."""

from pathlib import Path

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.core.outcome import Outcome, written
from scoped_uaccess.kernel.checkpatch import PatchResult, check_patch
from scoped_uaccess.kernel.series import COVER_LETTER, read_series

# checkpatch asks whether MAINTAINERS needs an entry for every file a
# patch adds.  Both series add the checker as scripts/coccinelle/misc/
# files, which the tree's COCCINELLE entry covers (F: scripts/coccinelle/);
# the KUnit suite, the one other file they add, comes with its F: line
# under KERNEL HARDENING, beside usercopy_kunit.c.
SERIES_IGNORE = ('FILE_PATH_CHANGES',)


def run_checkpatch(runner: Runner, kdir: Path, patches: Path,
		   ignore: tuple[str, ...] = ()) -> list[PatchResult]:
	"""checkpatch.pl --strict on every patch in the series (cover letter
	skipped); ignore: message types not to report."""
	series = [p for p in read_series(patches) if p.name != COVER_LETTER]
	if not series:
		raise UsageError(f'{patches}/series lists no patches', 'add the series to patches/')
	results = []
	for patch in series:
		result = check_patch(runner, kdir, patch, ignore)
		counts = f'{result.errors} errors, {result.warnings} warnings, {result.checks} checks'
		verdict = f'clean ({counts})' if result.clean else counts
		if result.preexisting:
			verdict += f'; {len(result.preexisting)} on lines it only re-indents'
		runner.say(f'checkpatch: {patch.name}: {verdict}')
		for issue in result.issues:
			runner.say(f'  {issue}' + ('  (pre-existing)' if issue in result.preexisting else ''))
		results.append(result)
	return results


def step(runner: Runner, kdir: Path, patches: Path, ignore: tuple[str, ...] = SERIES_IGNORE,
	 name: str = 'checkpatch.txt') -> Outcome:
	"""The gate: build/results/<name>, and whether every patch is clean."""
	results = run_checkpatch(runner, kdir, patches, ignore)
	report = written(paths.RESULTS / name,
			 ''.join(f'=== {r.patch}\n{r.output}\n' for r in results))
	dirty = [r for r in results if not r.clean]
	summary = f'{len(results) - len(dirty)} of {len(results)} patches clean'
	if dirty:
		return Outcome.findings(f'{summary}; not clean: '
					f'{", ".join(r.patch.split("-")[0] for r in dirty)} (see {report})')
	return Outcome.ok(summary)
