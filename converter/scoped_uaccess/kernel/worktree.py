# SPDX-License-Identifier: GPL-2.0
"""Worktrees of the kernel tree: the one way every step gets a checkout of a commit."""

from pathlib import Path

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import TreeStateError
from scoped_uaccess.kernel.git import git
from scoped_uaccess.kernel.tree import BASELINE_TAG


def worktree(runner: Runner, kdir: Path, wt: Path, commit: str, scratch: bool = False) -> Path:
	"""A detached worktree of kdir at commit, kept between runs so that
	builds from it stay incremental: added when missing, moved to commit
	when elsewhere.  A worktree with local changes is refused, unless
	scratch: then they are thrown away (the converter's own worktree)."""
	if not wt.exists():
		runner.run(git(kdir, 'worktree', 'prune', mutates=True))
		runner.run(git(kdir, 'worktree', 'add', '-f', '--detach', str(wt.resolve()), commit,
				mutates=True), Output.CAPTURE)
		return wt
	common = runner.run(git(wt, 'rev-parse', '--path-format=absolute', '--git-common-dir'),
			    Output.CAPTURE, check=False).output.strip()
	mine = runner.run(git(kdir, 'rev-parse', '--path-format=absolute', '--git-common-dir'),
			  Output.CAPTURE).output.strip()
	if not common or Path(common) != Path(mine):
		raise TreeStateError(f'{wt} exists but is not a worktree of {kdir}',
				     f'remove {wt}; it is recreated on the next run')
	want = runner.run(git(kdir, 'rev-parse', f'{commit}^{{commit}}'), Output.CAPTURE).output.strip()
	if scratch:
		runner.run(git(wt, 'checkout', '-q', '-f', '--detach', want, mutates=True))
		runner.run(git(wt, 'reset', '-q', '--hard', want, mutates=True))
		# Debian's .gitignore ignores everything, so -x: untracked is ignored.
		runner.run(git(wt, 'clean', '-q', '-f', '-d', '-x', mutates=True))
		return wt
	dirty = runner.run(git(wt, '--no-optional-locks', 'status', '--porcelain',
				'--untracked-files=no'), Output.CAPTURE).output
	if dirty.strip():
		raise TreeStateError(f'the worktree {wt} has local changes',
				     f'remove {wt}; it is recreated on the next run')
	have = runner.run(git(wt, 'rev-parse', 'HEAD'), Output.CAPTURE, check=False).output.strip()
	if have != want:
		runner.run(git(wt, 'checkout', '-q', '--detach', want, mutates=True))
	return wt


def baseline_worktree(runner: Runner, kdir: Path) -> Path:
	"""The one checkout of the pristine baseline that every step builds from."""
	return worktree(runner, kdir, paths.BASELINE_TREE, BASELINE_TAG)


def converted_worktree(runner: Runner, kdir: Path) -> Path:
	"""kdir's HEAD in a worktree of its own, at a path that stays the same
	whichever tree is checked, so that the next build is incremental."""
	return worktree(runner, kdir, paths.converted_tree(kdir), head(runner, kdir))


def head(runner: Runner, kdir: Path, rev: str = 'HEAD') -> str:
	"""The commit id rev names in kdir."""
	return runner.run(git(kdir, 'rev-parse', f'{rev}^{{commit}}'), Output.CAPTURE,
			  fix=f'{kdir} must be a git tree of the kernel').output.strip()


def changed_files(runner: Runner, kdir: Path, base: str, rev: str = 'HEAD') -> list[str]:
	"""The paths that differ between base and rev."""
	out = runner.run(git(kdir, 'diff', '--name-only', f'{base}..{rev}'), Output.CAPTURE).output
	return [line.strip() for line in out.splitlines() if line.strip()]
