# SPDX-License-Identifier: GPL-2.0
"""Builds the series' objects at every patch of the series: it must bisect."""

from dataclasses import dataclass, field
from pathlib import Path

from scoped_uaccess.kernel import worktree
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.core.outcome import Outcome
from scoped_uaccess.gates.runner import build_verdict
from scoped_uaccess.kernel import kbuild
from scoped_uaccess.kernel.tree import BASELINE_TAG, require_baseline

# Objects that use what the series changes, on x86_64.  A patch that breaks
# one of them, or makes it warn, breaks bisection.  Objects that do not
# exist yet at a patch (the suite before it is added) are skipped there.
OBJECTS = ('fs/select.o', 'fs/readdir.o', 'kernel/exit.o', 'kernel/signal.o',
	   'kernel/futex/core.o', 'kernel/futex/pi.o', 'kernel/futex/requeue.o',
	   'kernel/futex/waitwake.o', 'lib/strncpy_from_user.o', 'lib/strnlen_user.o',
	   'lib/usercopy_kunit.o', 'lib/scoped_uaccess_kunit.o')
# Built on its own and with -j1 (a lib-y object): asked for with others in
# a parallel run, it failed now and then with a missing dependency file.
SEPARATE = ('arch/x86/lib/usercopy_64.o',)
WORKTREE = paths.BUILD / 'wt-bisect'
OUT = paths.OUT / 'bisect'


@dataclass
class CommitResult:
	commit: str
	subject: str
	problems: list[str] = field(default_factory=list)

	@property
	def passed(self) -> bool:
		return not self.problems


def series_commits(runner: Runner, kdir: Path) -> list[tuple[str, str]]:
	"""(sha, subject) of baseline..HEAD in kdir, oldest first."""
	require_baseline(runner, kdir)
	log = runner.run(Command(('git', '-C', str(kdir), 'log', '--reverse', '--format=%H %s',
				  f'{BASELINE_TAG}..HEAD'), mutates=False), Output.CAPTURE)
	return [tuple(line.split(' ', 1)) for line in log.output.splitlines() if line]


def objects_at(worktree: Path) -> list[str]:
	"""The OBJECTS whose source exists in worktree."""
	return [o for o in OBJECTS if (worktree / o).with_suffix('.c').is_file()]


def run_bisect(runner: Runner, kdir: Path, config: Path,
	       jobs: int = kbuild.JOBS) -> list[CommitResult]:
	"""Checks out each commit of the series in a worktree and builds OBJECTS."""
	if not config.is_file():
		raise EnvironmentProblem(f'{config} is missing',
					 'build the kunit kernel first with `make kunit CC=gcc`')
	commits = series_commits(runner, kdir)
	if not commits:
		raise EnvironmentProblem(f'{kdir} has no commits after {BASELINE_TAG}',
					 'apply the series with `make tree`')
	build = kbuild.Build(WORKTREE, OUT)
	results = []
	for sha, subject in commits:
		result = CommitResult(sha[:12], subject)
		worktree.worktree(runner, kdir, WORKTREE, sha)
		kbuild.configure(runner, build, config)
		# kbuild's own check notices a changed Kconfig; configure() only
		# runs when the starting .config changes.
		runner.run(build.make('-s', 'olddefconfig'), Output.CAPTURE)
		log = ''
		for n, objs in ((jobs, objects_at(WORKTREE)), (1, SEPARATE)):
			built = kbuild.build(runner, build, ('-s', *objs), n)
			log += built.output
			if built.returncode != 0:
				result.problems.append(f'building {" ".join(objs)} failed')
		result.problems += kbuild.diagnostic_lines(log)
		runner.say(f'bisect: {"PASS" if result.passed else "FAIL"} {result.commit} {subject}')
		for problem in result.problems[:10]:
			runner.say(f'  {problem}')
		results.append(result)
	return results


def report(results: list[CommitResult]) -> str:
	"""The text of build/results/bisect.txt."""
	lines = []
	for r in results:
		lines.append(f'{"PASS" if r.passed else "FAIL"} {r.commit} {r.subject}')
		lines += [f'  {p}' for p in r.problems]
	return '\n'.join(lines) + '\n'


def step(runner: Runner, kdir: Path) -> Outcome:
	"""The gate: every commit builds its objects without a warning."""
	results = run_bisect(runner, kdir, paths.kunit_build_dir('gcc') / '.config')
	if runner.dry_run:
		return Outcome.ok('dry run')
	return build_verdict(len(results), [r.commit for r in results if not r.passed],
			     'commits', 'bisect.txt', report(results))
