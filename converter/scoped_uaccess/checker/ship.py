# SPDX-License-Identifier: GPL-2.0
"""The checker patch of a tree's series: cocci/'s scripts, committed in the tree and exported.

Each series ships the checker into the kernel as one patch that adds
scripts/coccinelle/misc/scoped_uaccess_*.cocci (0012 for 6.12, the first
patch for 7.3).  After the scripts in cocci/ change, `ship-checker`
does what patches/README.md describes by hand: copies them into the
tree, commits a fixup of the checker commit, squashes it, and exports
that one patch again (the others keep their files: only their commit
ids change, which git patch-id and the series comparison ignore).
"""

import re
import shutil
import tempfile
from pathlib import Path

from scoped_uaccess.checker import check
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import TreeStateError
from scoped_uaccess.core.outcome import Outcome, relative
from scoped_uaccess.core import paths
from scoped_uaccess.kernel import letter, series, sources, tree
from scoped_uaccess.kernel.git import git

SHIPPED_DIR = 'scripts/coccinelle/misc'
COVER = series.COVER_LETTER


def checker_patch(series: list[Path]) -> int:
	"""The index in series of the patch that adds the checker scripts."""
	hits = [i for i, p in enumerate(series)
		if re.search(rf'^\+\+\+ b/{SHIPPED_DIR}/scoped_uaccess(_\w+)?\.cocci$',
			     p.read_text(errors='replace'), re.M)]
	if len(hits) != 1:
		raise TreeStateError(f'{len(hits)} patches of the series add the checker scripts',
				     'exactly one patch must add scripts/coccinelle/misc/scoped_uaccess*')
	return hits[0]


def refresh(runner: Runner, kdir: Path, patches: Path) -> Outcome:
	"""Brings the checker patch of the series in patches/ up to date with cocci/."""
	series = tree.read_series(patches)
	index = checker_patch(series)
	state = tree.assess(runner, tree.TreeRequest(kdir, patches, source=sources.for_kdir(kdir)))
	if state.state is not tree.TreeState.UP_TO_DATE:
		raise TreeStateError(f'{kdir} has {state.state.value} ({state.detail})',
				     f'run `make tree KDIR={relative(kdir)}` first')
	commits = runner.run(git(kdir, 'rev-list', '--reverse', f'{tree.BASELINE_TAG}..HEAD'),
			     Output.CAPTURE).output.split()
	commit = commits[index]
	target = kdir / SHIPPED_DIR
	for old in target.glob('scoped_uaccess*.cocci'):
		if runner.dry_run:
			break
		old.unlink()
	for script in check.CHECKERS:
		if not runner.dry_run:
			shutil.copyfile(script, target / script.name)
	runner.run(git(kdir, 'add', '-f', '-A', '--', f'{SHIPPED_DIR}/scoped_uaccess*.cocci',
		       mutates=True))
	if runner.run(git(kdir, 'diff', '--cached', '--quiet'),
		      check=False).returncode == 0 and not runner.dry_run:
		return Outcome.ok(f'{series[index].name} already ships cocci/\'s scripts')
	runner.run(git(kdir, '-c', 'commit.gpgsign=false', 'commit', '-q', '--no-verify',
		       f'--fixup={commit}', mutates=True))
	runner.run(git(kdir, 'rebase', '-q', '-i', '--autosquash', f'{commit}^',
		       env={'GIT_SEQUENCE_EDITOR': ':'}, mutates=True))
	with tempfile.TemporaryDirectory() as tmp:
		runner.run(git(kdir, 'format-patch', '-q', '-o', tmp, f'{tree.BASELINE_TAG}..HEAD',
			       mutates=True))
		if not runner.dry_run:
			exported = sorted(Path(tmp).glob('*.patch'))[index]
			series[index].write_text(exported.read_text())
	cover = patches / COVER
	if cover.is_file() and not runner.dry_run:
		stat = runner.run(git(kdir, 'diff', '--stat=72', f'{tree.BASELINE_TAG}..HEAD'),
				  Output.CAPTURE).output
		cover.write_text(replace_diffstat(cover.read_text(), stat))
		# a letter written from a template names the scripts and classes
		letter.write(patches, paths.REPORTS / f'linux-{tree.kernel_version(kdir)}')
	return Outcome.ok(f'{relative(series[index])} exported again with cocci/\'s scripts')


def replace_diffstat(letter: str, stat: str) -> str:
	"""The cover letter with its diffstat (the ` path | n +-` lines and the
	`N files changed` line) replaced by stat."""
	m = re.search(r'(^ \S.*\|.*\n)+ \d+ files? changed.*\n', letter, re.M)
	return letter[:m.start()] + stat + letter[m.end():] if m else letter
