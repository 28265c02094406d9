# SPDX-License-Identifier: GPL-2.0
"""Builds the series' objects at every patch of the series: it must bisect."""

import re
from dataclasses import dataclass, field
from pathlib import Path

from scoped_uaccess.kernel import worktree
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.core.outcome import Outcome
from scoped_uaccess.gates.runner import build_verdict
from scoped_uaccess.kernel import kbuild
from scoped_uaccess.kernel.git import git
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
# Generated headers the objects include (asm-offsets.h, bounds.h) are made
# from these; their inputs count as the objects' inputs.
GENERATED_FROM = ('arch/x86/kernel/asm-offsets.s', 'kernel/bounds.s')
# A change to one of these can change every object (the configuration,
# kbuild, objtool): the commit is always built.  Coccinelle scripts and
# the selftests are under scripts/ and tools/ but no build reads them:
# the series' checker patch is not a reason to build.
_BUILD_INPUTS = re.compile(r'(^|/)(Kconfig[^/]*|Makefile|Kbuild)$'
			   rf'|^(?!{re.escape(kbuild.NOT_BUILT)})scripts/|^tools/(?!testing/)')


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
	log = runner.run(git(kdir, 'log', '--reverse', '--format=%H %s', f'{BASELINE_TAG}..HEAD'),
			 Output.CAPTURE)
	return [tuple(line.split(' ', 1)) for line in log.output.splitlines() if line]


def objects_at(worktree: Path) -> list[str]:
	"""The OBJECTS whose source exists in worktree."""
	return [o for o in OBJECTS if (worktree / o).with_suffix('.c').is_file()]


def inputs_changed(changed: list[str], objects: list[str]) -> str:
	"""Why the objects must be built again after the files changed, or ''
	when make would rebuild none of them: it is then not run at all."""
	if any(_BUILD_INPUTS.search(path) for path in changed):
		return 'a Kconfig, Makefile or build tool changed'
	inputs: set[str] = set()
	for obj in (*objects, *SEPARATE, *GENERATED_FROM):
		found = kbuild.object_inputs(OUT, WORKTREE, obj)
		if found is None:
			return f'{obj} was not built before'
		inputs |= found
	hit = sorted(inputs.intersection(changed))
	return f'{hit[0]} changed' if hit else ''


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
	# The last commit built, its objects and its result: a commit that
	# changes none of their inputs has that result without a build.
	last: tuple[str, list[str], CommitResult] = ('', [], CommitResult('', ''))
	for sha, subject in commits:
		result = CommitResult(sha[:12], subject)
		worktree.worktree(runner, kdir, WORKTREE, sha)
		objects = objects_at(WORKTREE)
		if last[0] and last[1] == objects and not runner.dry_run:
			why = inputs_changed(worktree.changed_files(runner, kdir, last[0], sha), objects)
			if not why:
				result.problems = list(last[2].problems)
				runner.say(f'bisect: {"PASS" if result.passed else "FAIL"} {result.commit} '
					   f'{subject} (as {last[2].commit}: none of the objects\' inputs '
					   'changed)')
				results.append(result)
				continue
		last = (sha, objects, result)
		# configure() ends with olddefconfig; when it is skipped (the
		# starting .config is the same), a changed Kconfig still needs one.
		if not kbuild.configure(runner, build, config):
			runner.run(build.make('-s', 'olddefconfig'), Output.CAPTURE)
		log = ''
		for n, objs in ((jobs, objects), (1, SEPARATE)):
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


def config_of() -> Path:
	"""The configuration every commit is built with: the gcc KUnit kernel's."""
	return paths.kunit_build_dir('gcc') / '.config'


def step(runner: Runner, kdir: Path) -> Outcome:
	"""The gate: every commit builds its objects without a warning."""
	results = run_bisect(runner, kdir, config_of())
	if runner.dry_run:
		return Outcome.ok('dry run')
	return build_verdict(len(results), [r.commit for r in results if not r.passed],
			     'commits', 'bisect.txt', report(results))
