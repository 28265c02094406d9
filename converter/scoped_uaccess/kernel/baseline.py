# SPDX-License-Identifier: GPL-2.0
"""The baseline kernels of the differential boots, built incrementally.

The userspace tests and the fault sweep compare a baseline kernel with
the converted one, built from the same configuration.  The baseline is
the series up to its API (boot_base()): the scoped user access core and
its KUnit suite, not one conversion.  Between that commit and HEAD only
the converted files and the few headers they change differ (not
include/linux/uaccess.h, not a Kconfig file), so the baseline is built in
the converted kernel's own build directory: the converted worktree moves
to the base commit, kbuild rebuilds what git touched (about 10 s on
x86_64, against 2.5 minutes for a kernel of its own), the image is copied
to the baseline's directory, and the worktree goes back to HEAD for
another incremental build.  The pristine tree would differ in
include/linux/uaccess.h, which nearly every object includes: a full
build, twice (docs/validation.md).

A kept image carries a stamp (the base commit's tree, the configuration,
the toolchain): a rerun with nothing changed does not move the worktree.
"""

import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.core.outcome import relative
from scoped_uaccess.kernel import kbuild
from scoped_uaccess.kernel.git import git
from scoped_uaccess.kernel.tree import BASELINE_TAG

# What a conversion never changes: the API headers, its KUnit suite and
# every Kconfig file.  The newest commit touching one of them is the base;
# every later commit must leave the configuration and the widely included
# headers alone, or the baseline would be a full build.
API_PATHS = ('include/linux/uaccess.h', ':(glob)arch/*/include/asm/uaccess*.h',
	     'lib/scoped_uaccess_kunit.c', 'lib/tests/scoped_uaccess_kunit.c',
	     ':(glob)**/Kconfig*')
STAMP = '.scoped-uaccess-baseline'


@dataclass(frozen=True)
class Pair:
	"""A converted kernel's build and where its baseline's image is kept."""
	build: kbuild.Build		# srctree: the converted worktree
	config: Path			# the starting .config (kbuild.configure)
	image: str			# relative to a build directory: arch/x86/boot/bzImage
	keep: Path			# the baseline's directory: keep / image

	@property
	def kept(self) -> Path:
		return self.keep / self.image


def boot_base(runner: Runner, kdir: Path) -> str:
	"""The commit the baseline kernels are built from: the newest commit of
	the series that touches API_PATHS (the tag when none does)."""
	found = runner.run(git(kdir, 'log', '-1', '--format=%H', f'{BASELINE_TAG}..HEAD', '--',
			       *API_PATHS), Output.CAPTURE).output.strip()
	return found or runner.run(git(kdir, 'rev-parse', f'{BASELINE_TAG}^{{commit}}'),
				   Output.CAPTURE).output.strip()


def shares_build(runner: Runner, kdir: Path, base: str) -> bool:
	"""Whether base and HEAD can share a build directory: the same Kconfig
	files and API headers (so the same .config and generated headers)."""
	return runner.run(git(kdir, 'diff', '--quiet', base, 'HEAD', '--', *API_PATHS),
			  Output.CAPTURE, check=False).returncode == 0


class At:
	"""`with At(runner, worktree, commit):` the worktree at commit inside,
	back at its HEAD afterwards, whatever happens; git rewrites only the
	files that differ, so kbuild rebuilds only what depends on them."""

	def __init__(self, runner: Runner, srctree: Path, commit: str) -> None:
		self.runner, self.srctree, self.commit = runner, srctree, commit
		self.head = ''

	def __enter__(self) -> 'At':
		self.head = self.runner.run(git(self.srctree, 'rev-parse', 'HEAD'),
					    Output.CAPTURE).output.strip()
		self.runner.run(git(self.srctree, 'checkout', '-q', '--detach', self.commit,
				    mutates=True), Output.CAPTURE)
		return self

	def __exit__(self, *exc: object) -> None:
		self.runner.run(git(self.srctree, 'checkout', '-q', '--detach', self.head,
				    mutates=True), Output.CAPTURE)


def describe(runner: Runner, kdir: Path, base: str) -> str:
	"""'<subject> (<n> of the <m> commits)': what the baseline contains."""
	def out(*args: str) -> str:
		return runner.run(git(kdir, *args), Output.CAPTURE).output.strip()
	subject = out('log', '-1', '--format=%s', base)
	have = out('rev-list', '--count', f'{BASELINE_TAG}..{base}')
	total = out('rev-list', '--count', f'{BASELINE_TAG}..HEAD')
	return f'{BASELINE_TAG} + {have} of the {total} commits, up to "{subject}"'


def _stamp(runner: Runner, pair: Pair, base: str) -> str:
	tree_id = runner.run(git(pair.build.srctree, 'rev-parse', f'{base}^{{tree}}'),
			     Output.CAPTURE).output.strip()
	config = pair.build.out / '.config'
	digest = hashlib.sha1(config.read_bytes()).hexdigest() if config.is_file() else 'none'
	return (f'{tree_id} {pair.build.arch.name} {" ".join(pair.build.make_options)} '
		f'config:{digest}\n')


def _build(runner: Runner, pair: Pair, jobs: int, log: Path) -> None:
	built = kbuild.build(runner, pair.build, (Path(pair.image).name,), jobs, log=log,
			     sink=kbuild.build_progress(runner.say))
	if built.returncode != 0:
		raise EnvironmentProblem(f'{relative(pair.build.out)}: the build at '
					 f'{pair.build.srctree} failed: {kbuild.failure_line(built.output)}',
					 f'see {relative(log)}')


def ensure(runner: Runner, base: str, pairs: list[Pair], jobs: int, logs: Path,
	   say: Callable[[str], None]) -> list[Pair]:
	"""Makes each pair's baseline image (pair.kept) the kernel of base, and
	leaves every build directory built at HEAD again; returns the pairs
	that were built.  The converted worktree must be at HEAD."""
	for pair in pairs:
		kbuild.configure(runner, pair.build, pair.config)
	stamps = {} if runner.dry_run else {p: _stamp(runner, p, base) for p in pairs}
	todo = [p for p in pairs if runner.dry_run or not p.kept.is_file() or
		not (p.keep / STAMP).is_file() or (p.keep / STAMP).read_text() != stamps[p]]
	if not todo:
		for pair in pairs:
			say(f'baseline: {relative(pair.kept)} is {base[:12]}\'s, kept')
		return []
	srctree = todo[0].build.srctree
	assert all(p.build.srctree == srctree for p in todo)
	say(f'baseline: {srctree} to {base[:12]}, building {len(todo)} baseline kernel(s) '
	    'incrementally, then back to HEAD')
	with At(runner, srctree, base):
		for pair in todo:
			_build(runner, pair, jobs, logs / f'baseline-{pair.build.out.name}-build.log')
			if runner.dry_run:
				continue
			if (pair.keep / 'Makefile').is_file():
				# A full build directory of an earlier version of this tool.
				shutil.rmtree(pair.keep)
			pair.kept.parent.mkdir(parents=True, exist_ok=True)
			shutil.copyfile(pair.build.out / pair.image, pair.kept)
			shutil.copyfile(pair.build.out / '.config', pair.keep / '.config')
			(pair.keep / STAMP).write_text(stamps[pair])
			say(f'baseline: {relative(pair.kept)} built from {base[:12]}')
	for pair in todo:
		_build(runner, pair, jobs, logs / f'baseline-{pair.build.out.name}-head-build.log')
	return todo
