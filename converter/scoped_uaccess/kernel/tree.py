# SPDX-License-Identifier: GPL-2.0
"""Extracts the kernel tree, commits the baseline and applies the series."""

import enum
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import CommandFailed, EnvironmentProblem, TreeStateError
from scoped_uaccess.core.outcome import Outcome, relative
from scoped_uaccess.kernel.git import git
from scoped_uaccess.kernel import sources
from scoped_uaccess.kernel.series import BASELINE_TAG, matching_prefix, read_series
from scoped_uaccess.kernel.sources import KernelSource, makefile_version


BASELINE_MESSAGE = 'Linux {version} (Debian {package})\n'
# A fixed identity and date make the baseline commit id reproducible.
BASELINE_IDENTITY = {
	'GIT_AUTHOR_NAME': 'scoped-uaccess baseline',
	'GIT_AUTHOR_EMAIL': 'baseline@scoped-uaccess.invalid',
	'GIT_AUTHOR_DATE': '2024-11-17T00:00:00+0000',
	'GIT_COMMITTER_NAME': 'scoped-uaccess baseline',
	'GIT_COMMITTER_EMAIL': 'baseline@scoped-uaccess.invalid',
	'GIT_COMMITTER_DATE': '2024-11-17T00:00:00+0000',
}
# The context lines of the exported series (patches/README.md).
EXPORT_CONTEXT = '4'
# Used by `git am` only when git has no identity configured at all.
FALLBACK_USER = ('scoped-uaccess', 'scoped-uaccess@invalid')
# tar prints a checkpoint every this many 10 KiB records.
TAR_CHECKPOINT = 10000


class TreeState(enum.Enum):
	"""What KDIR holds relative to baseline + patches/series."""
	MISSING = 'missing'
	UP_TO_DATE = 'baseline + the whole series'
	PREFIX = 'baseline + a prefix of the series'
	DIRTY = 'uncommitted changes'
	DIVERGED = 'commits that are not the series'
	NO_BASELINE = 'no baseline tag'
	WRONG_VERSION = 'another kernel version'


# States we refuse to touch without --force, and what --force does to them.
RESET_STATES = (TreeState.DIRTY, TreeState.DIVERGED)
REEXTRACT_STATES = (TreeState.NO_BASELINE, TreeState.WRONG_VERSION)


@dataclass(frozen=True)
class TreeRequest:
	kdir: Path
	patches: Path		# directory holding `series` and the patch files
	force: bool = False
	source: KernelSource = sources.DEFAULT
	upto: Optional[int] = None	# only the first patches of the series

	def series(self) -> list[Path]:
		return read_series(self.patches)[:self.upto]


@dataclass
class TreeAssessment:
	state: TreeState
	applied: int = 0	# leading commits on baseline that are series patches
	detail: str = ''


@dataclass
class TreeResult:
	before: TreeAssessment
	actions: list[str] = field(default_factory=list)
	applied: list[str] = field(default_factory=list)
	series_length: int = 0


def _succeeds(runner: Runner, command: Command) -> bool:
	return runner.run(command, Output.CAPTURE, check=False).returncode == 0


def require_baseline(runner: Runner, kdir: Path) -> None:
	"""Raises TreeStateError unless kdir is a git tree with the baseline tag."""
	if not (kdir / '.git').exists() or not _succeeds(
			runner, git(kdir, 'rev-parse', '-q', '--verify', f'refs/tags/{BASELINE_TAG}')):
		raise TreeStateError(f'{kdir} is not a kernel tree made by `make tree` '
				     f'(no git repository with the {BASELINE_TAG} tag)',
				     'create it with `make tree`, or point KDIR at one')


def assess(runner: Runner, request: TreeRequest) -> TreeAssessment:
	"""Decides what KDIR holds; changes nothing."""
	kdir = request.kdir
	if not kdir.exists() or (kdir.is_dir() and not any(kdir.iterdir())):
		return TreeAssessment(TreeState.MISSING, detail=f'{kdir} does not exist')
	version = makefile_version(kdir)
	if not request.source.accepts(version):
		return TreeAssessment(TreeState.WRONG_VERSION,
				      detail=f'its Makefile says {version or "nothing"}, '
					     f'not {request.source.describe()}')
	if not (kdir / '.git').exists():
		return TreeAssessment(TreeState.NO_BASELINE, detail='it is not a git tree')
	if not _succeeds(runner, git(kdir, 'rev-parse', '-q', '--verify',
				     f'refs/tags/{BASELINE_TAG}')):
		return TreeAssessment(TreeState.NO_BASELINE,
				      detail=f'it has no tag `{BASELINE_TAG}`')
	git_dir = Path(runner.run(git(kdir, 'rev-parse', '--absolute-git-dir'),
				  Output.CAPTURE).output.strip())
	if (git_dir / 'rebase-apply').exists() or (git_dir / 'rebase-merge').exists():
		return TreeAssessment(TreeState.DIRTY, detail='a git am or rebase is in progress')
	status = runner.run(git(kdir, '--no-optional-locks', 'status', '--porcelain'), Output.CAPTURE).output
	if status.strip():
		first = status.splitlines()[0].strip()
		count = len(status.splitlines())
		return TreeAssessment(TreeState.DIRTY,
				      detail=f'it has {count} uncommitted change(s), e.g. {first}')
	if not _succeeds(runner, git(kdir, 'merge-base', '--is-ancestor',
				     BASELINE_TAG, 'HEAD')):
		return TreeAssessment(TreeState.DIVERGED,
				      detail=f'HEAD does not descend from `{BASELINE_TAG}`')
	series = request.series()
	matched, commits = matching_prefix(runner, kdir, series)
	if matched == commits == len(series):
		return TreeAssessment(TreeState.UP_TO_DATE, applied=matched)
	if matched == commits:
		return TreeAssessment(TreeState.PREFIX, applied=matched,
				      detail=f'{matched} of {len(series)} patches applied')
	if matched == len(series):
		detail = f'{commits - matched} commit(s) beyond the {matched} of the series'
	else:
		detail = f'commit {matched + 1} on {BASELINE_TAG} is not patch {matched + 1} of the series'
	# applied: the commits that are still good, kept by --force.
	return TreeAssessment(TreeState.DIVERGED, applied=matched, detail=detail)


def prepare(runner: Runner, request: TreeRequest) -> TreeResult:
	"""Brings KDIR to baseline + patches/series, refusing to discard work."""
	series = request.series()
	before = assess(runner, request)
	result = TreeResult(before=before, series_length=len(series))
	state = before.state
	runner.say(f'tree: {request.kdir}: {state.value}'
		   + (f' ({before.detail})' if before.detail and state is not TreeState.MISSING else ''))
	if state in RESET_STATES + REEXTRACT_STATES and not request.force:
		raise TreeStateError(f'{request.kdir} has {state.value}: {before.detail}',
				     'rerun with FORCE=1 (--force) to discard it, or use another KDIR')
	start = before.applied
	if state in (TreeState.MISSING,) + REEXTRACT_STATES:
		extract(runner, request)
		result.actions.append('extracted')
		start = 0
	elif state in RESET_STATES:
		start = discard(runner, request, before)
		result.actions.append(f'reset to baseline + {start} patch(es)')
	result.applied = apply_series(runner, request.kdir, series, start)
	if result.applied:
		result.actions.append(f'applied {len(result.applied)} patch(es)')
	return result


def extract(runner: Runner, request: TreeRequest) -> None:
	"""Extracts the tarball next to KDIR, commits it, then renames it into place."""
	source, kdir = request.source, request.kdir
	tarball, package_version = sources.tarball(runner, source)
	kdir.parent.mkdir(parents=True, exist_ok=True)
	if runner.dry_run:
		runner.say(f'tree: would extract {tarball} into {kdir}')
		return
	tmp = Path(tempfile.mkdtemp(prefix=f'.{kdir.name}.extract-', dir=kdir.parent))
	try:
		runner.say(f'tree: extracting {tarball} (~1.4 GiB) ...')
		runner.run(Command(('tar', '-xJf', str(tarball), '-C', str(tmp),
				    f'--checkpoint={TAR_CHECKPOINT}',
				    '--checkpoint-action=echo=%u')),
			   Output.LINES, sink=_tar_progress(runner))
		new = tmp / source.top
		version = makefile_version(new)
		if not source.accepts(version):
			raise EnvironmentProblem(f'{tarball} holds Linux {version}, '
						 f'not {source.describe()}',
						 f'reinstall {source.package} with `make deps`')
		commit_baseline(runner, new, source, package_version)
		_replace_dir(new, kdir)
	finally:
		shutil.rmtree(tmp, ignore_errors=True)


def ensure(runner: Runner, kdir: Path, patches: Path) -> None:
	"""A KDIR that does not exist yet is made as `make tree` makes it (the
	source chosen by its name, build/linux-7.3), so that a target that
	reads a tree can start from a clean clone; an existing one is left
	as it is."""
	if kdir.exists():
		return
	prepare(runner, TreeRequest(kdir, patches, source=sources.for_kdir(kdir)))


def pristine_tree(runner: Runner, kdir: Path, source: KernelSource) -> Path:
	"""kdir holding source as Debian ships it, committed as baseline:
	extracted the first time, as it is afterwards."""
	if not source.accepts(makefile_version(kdir)) or not (kdir / '.git').is_dir():
		extract(runner, TreeRequest(kdir=kdir, patches=Path(), source=source))
	return kdir


def _tar_progress(runner: Runner):
	def sink(line: str) -> None:
		m = re.match(r'tar: (\d+)$', line.strip())
		if m:
			mib = int(m.group(1)) * 10240 // (1 << 20)
			runner.say(f'  extracted {mib} MiB')
		else:
			runner.say(line.rstrip())
	return sink


def _replace_dir(new: Path, kdir: Path) -> None:
	"""Moves new to kdir; an old kdir is moved aside first, then deleted."""
	old = None
	if kdir.exists() or kdir.is_symlink():
		old = Path(tempfile.mkdtemp(prefix=f'.{kdir.name}.old-', dir=kdir.parent))
		os.rename(kdir, old / 'tree')
	os.rename(new, kdir)
	if old is not None:
		shutil.rmtree(old, ignore_errors=True)


def commit_baseline(runner: Runner, kdir: Path, source: KernelSource,
		    package_version: str = '') -> None:
	"""git init, add everything, commit with a fixed identity, tag baseline.
	The message names the package, and its version when it was downloaded
	(the system's own package is the one `make deps` installed)."""
	runner.say('tree: committing the baseline (git add of ~90k files takes a while) ...')
	runner.run(git(kdir, 'init', '-q', '-b', 'master', mutates=True))
	# The Debian tarball's .gitignore ends with `/*`; -f adds everything.
	runner.run(git(kdir, 'add', '-f', '-A', mutates=True))
	package = f'{source.package} {package_version}' if package_version else source.package
	message = BASELINE_MESSAGE.format(version=makefile_version(kdir), package=package)
	runner.run(git(kdir, '-c', 'commit.gpgsign=false', 'commit', '-q',
			'--no-verify', '-m', message.strip(), mutates=True,
			env=BASELINE_IDENTITY))
	runner.run(git(kdir, 'tag', BASELINE_TAG, mutates=True))


def discard(runner: Runner, request: TreeRequest, before: TreeAssessment) -> int:
	"""The --force path for a dirty or diverged tree: drops local changes
	and every commit after the leading ones that are series patches.

	The result, once the rest is applied, is baseline + the series, as
	if reset to baseline; but files the kept patches change are not
	rewritten, so the kernel builds stay incremental. Returns how many
	patches are kept.
	"""
	kdir = request.kdir
	runner.run(git(kdir, 'am', '--abort', mutates=True), Output.CAPTURE, check=False)
	runner.run(git(kdir, 'rebase', '--abort', mutates=True), Output.CAPTURE, check=False)
	runner.run(git(kdir, 'reset', '-q', '--hard', 'HEAD', mutates=True))
	# Debian's .gitignore ignores everything, so -x: untracked is ignored.
	runner.run(git(kdir, 'clean', '-q', '-f', '-d', '-x', mutates=True))
	if runner.dry_run:
		return 0
	after = assess(runner, request)
	if after.state in (TreeState.UP_TO_DATE, TreeState.PREFIX):
		return after.applied
	keep = BASELINE_TAG
	if after.state is TreeState.DIVERGED and after.applied:
		commits = runner.run(git(kdir, 'rev-list', '--reverse', f'{BASELINE_TAG}..HEAD'),
				     Output.CAPTURE).output.split()
		keep = commits[after.applied - 1]
	runner.run(git(kdir, 'reset', '-q', '--hard', keep, mutates=True))
	return after.applied if keep != BASELINE_TAG else 0


def _ensure_identity(runner: Runner, kdir: Path) -> None:
	for key, value in zip(('user.name', 'user.email'), FALLBACK_USER):
		if not _succeeds(runner, git(kdir, 'config', key)):
			runner.run(git(kdir, 'config', '--local', key, value, mutates=True))
	# patches/ is exported with four lines of context (patches/README.md):
	# format-patch from the tree must produce the same files.
	runner.run(git(kdir, 'config', '--local', 'diff.context', EXPORT_CONTEXT,
			mutates=True))


def apply_series(runner: Runner, kdir: Path, series: list[Path], start: int) -> list[str]:
	"""git am series[start:] one by one; on failure restore the tree and raise."""
	todo = series[start:]
	if not todo:
		runner.say(f'tree: all {len(series)} patch(es) of the series applied; nothing to do')
		return []
	if runner.dry_run and not kdir.exists():
		for index, patch in enumerate(todo, start + 1):
			runner.say(f'tree: [{index}/{len(series)}] would apply {patch.name}')
		return []
	_ensure_identity(runner, kdir)
	orig = None
	if not runner.dry_run:
		orig = runner.run(git(kdir, 'rev-parse', 'HEAD'), Output.CAPTURE).output.strip()
	applied = []
	for index, patch in enumerate(todo, start + 1):
		runner.say(f'tree: [{index}/{len(series)}] applying {patch.name}')
		try:
			runner.run(git(kdir, 'am', '--quiet', str(patch.resolve()), mutates=True),
				   Output.CAPTURE)
		except CommandFailed as e:
			runner.run(git(kdir, 'am', '--abort', mutates=True), Output.CAPTURE,
				   check=False)
			runner.run(git(kdir, 'reset', '-q', '--hard', orig, mutates=True))
			reason = _am_reason(e.output)
			raise TreeStateError(f'patch {patch.name} does not apply: {reason}; '
					     f'{kdir} was reset to where it was',
					     'fix the patch or its order in patches/series') from e
		applied.append(patch.name)
	return applied


def _am_reason(output: str) -> str:
	for line in output.splitlines():
		if line.startswith(('error:', 'fatal:')) or 'patch failed' in line:
			return line.strip()
	lines = [line for line in output.splitlines() if line.strip()]
	return lines[0].strip() if lines else 'git am failed'


def kernel_version(kdir: Path) -> str:
	"""The version the tree's Makefile declares; an error if it is none."""
	version = makefile_version(kdir)
	if version is None:
		raise EnvironmentProblem(f'{kdir}: not a kernel tree (no version in its Makefile)',
					 'run `make tree` first or pass --kdir')
	return version


def step(runner: Runner, request: TreeRequest) -> Outcome:
	"""`make tree`: prepare() and a one-line summary."""
	result = prepare(runner, request)
	done = ', '.join(result.actions) or 'unchanged'
	if runner.dry_run:
		done += '; dry run: nothing was changed'
	summary = (f'{relative(request.kdir)}: baseline + {result.series_length} patch(es) '
		   f'of {relative(request.patches / "series")} ({done})')
	runner.say(f'tree: {summary}')
	return Outcome.ok(summary)
