# SPDX-License-Identifier: GPL-2.0
"""Builds the series' objects at every patch of the series: it must bisect."""

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.kernel.tree import BASELINE_TAG, require_baseline

# Objects that use what the series changes, on x86_64.  A patch that breaks
# one of them, or makes it warn, breaks bisection.  Objects that do not
# exist yet at a patch (the suite before it is added) are skipped there.
OBJECTS = ('fs/select.o', 'fs/readdir.o', 'kernel/exit.o', 'kernel/signal.o',
	   'kernel/futex/core.o', 'kernel/futex/pi.o', 'kernel/futex/requeue.o',
	   'kernel/futex/waitwake.o', 'lib/strncpy_from_user.o', 'lib/strnlen_user.o',
	   'lib/usercopy_kunit.o', 'lib/scoped_uaccess_kunit.o')
# Built on its own and with -j1 (a lib-y object): asked for with others in
# a -j2 run, it failed now and then with a missing dependency file.
SEPARATE = ('arch/x86/lib/usercopy_64.o',)
WORKTREE = paths.BUILD / 'linux-bisect'
OUT = paths.OUT / 'bisect'
_DIAG = re.compile(r'\b(warning|error):')


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


def run_bisect(runner: Runner, kdir: Path, config: Path) -> list[CommitResult]:
	"""Checks out each commit of the series in a worktree and builds OBJECTS."""
	if not config.is_file():
		raise EnvironmentProblem(f'{config} is missing',
					 'build the kunit kernel first with `make kunit CC=gcc`')
	commits = series_commits(runner, kdir)
	if not commits:
		raise EnvironmentProblem(f'{kdir} has no commits after {BASELINE_TAG}',
					 'apply the series with `make tree`')
	if not (WORKTREE / '.git').exists():
		runner.run(Command(('git', '-C', str(kdir), 'worktree', 'add', '--detach',
				    str(WORKTREE), commits[0][0])))
	OUT.mkdir(parents=True, exist_ok=True)
	if not runner.dry_run:
		shutil.copy(config, OUT / '.config')
	make = ('make', '-C', str(WORKTREE), f'O={OUT.resolve()}', 'CC=gcc', '-s')
	results = []
	for sha, subject in commits:
		result = CommitResult(sha[:12], subject)
		runner.run(Command(('git', '-C', str(WORKTREE), 'checkout', '-q', '--detach', sha)))
		runner.run(Command((*make, 'olddefconfig')))
		log = ''
		for jobs, objs in (('-j2', objects_at(WORKTREE)), ('-j1', SEPARATE)):
			build = runner.run(Command((*make, jobs, *objs), nice=True),
					   Output.CAPTURE, check=False)
			log += build.output + build.stderr
			if build.returncode != 0:
				result.problems.append(f'building {" ".join(objs)} failed')
		result.problems += [line.strip() for line in log.splitlines() if _DIAG.search(line)]
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
