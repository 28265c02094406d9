# SPDX-License-Identifier: GPL-2.0
"""`convert FILE...`: a developer's own files, converted where they are.

The series is made by converting a whole commit in a scratch worktree
(driver.py).  A developer who wants the scopes in a file of their own
tree gets the same rules, passes, tidying and checker comparison, on a
copy: the files are copied into a temporary git repository at their paths
in the tree, converted there (convert_file(), census_only() where no
architecture that builds the file masks), and the result is printed as a
diff against the tree, or, with --in-place, written back.  Nothing is
written into the user's tree but the converted files, each replaced
atomically and only once every file has converted, and then only if the
file is still what was copied; nothing is registered in its .git.  The
tree's headers are read for the inline index and its Makefiles and
Kconfig for the architectures that build each file.
"""

import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, TextIO

from scoped_uaccess.cocci import index_cache
from scoped_uaccess.convert import driver, spatch_passes
from scoped_uaccess.convert.regions import Entry
from scoped_uaccess.analysis.status import Status
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem, TreeStateError, UsageError
from scoped_uaccess.core.outcome import Outcome
from scoped_uaccess.kernel import treefacts
from scoped_uaccess.kernel.git import git

# What makes a directory the top of a kernel tree, for files given
# without --tree.
_TOP_MARKERS = ('Makefile', 'Kconfig', 'include/linux/uaccess.h')


@dataclass(frozen=True)
class FilesRequest:
	files: tuple[Path, ...]
	tree: Optional[Path] = None	# the kernel tree of the files (default: found above them)
	in_place: bool = False		# write the result back (default: print a diff)
	rules: Path = driver.RULES
	jobs: int = os.cpu_count() or 1


def tree_of(path: Path) -> Optional[Path]:
	"""The top of the kernel tree path is in, or None."""
	for d in path.resolve().parents:
		if all((d / m).exists() for m in _TOP_MARKERS):
			return d
	return None


def _names(request: FilesRequest) -> tuple[Path, list[str]]:
	"""The tree and the files' paths in it; one-line errors for bad input."""
	if not request.files:
		raise UsageError('no file given', 'name the C files or headers to convert')
	for f in request.files:
		if not f.is_file():
			raise UsageError(f'{f}: no such file', 'name files of a kernel tree')
		if f.suffix not in ('.c', '.h'):
			raise UsageError(f'{f}: not a C file or header', 'name .c or .h files')
		if not os.access(f, os.R_OK | (os.W_OK if request.in_place else 0)):
			raise UsageError(f'{f}: not readable' + (' and writable' if request.in_place else ''),
					 'check its permissions')
	top = request.tree.resolve() if request.tree else tree_of(request.files[0])
	if top is None or not all((top / m).exists() for m in _TOP_MARKERS):
		raise UsageError(f'{request.tree or request.files[0]}: not in a kernel tree',
				 'give --tree the top of the kernel tree the files belong to')
	names = []
	for f in request.files:
		resolved = f.resolve()
		if top not in resolved.parents:
			raise UsageError(f'{f} is not in the tree {top}', 'convert the files of one tree per run')
		names.append(str(resolved.relative_to(top)))
	return top, sorted(dict.fromkeys(names))


def _copy(runner: Runner, top: Path, names: list[str], wt: Path) -> str:
	"""The files at their paths in a fresh repository; its commit."""
	for name in names:
		(wt / name).parent.mkdir(parents=True, exist_ok=True)
		shutil.copyfile(top / name, wt / name)
	quiet = Runner(dry_run=False, echo=runner.echo, quiet=True)
	for argv in (('init', '-q'), ('add', '--', *names),
		     ('-c', 'user.name=convert', '-c', 'user.email=convert@localhost',
		      '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'the files as given')):
		quiet.run(git(wt, *argv, mutates=True), Output.CAPTURE)
	return quiet.run(git(wt, 'rev-parse', 'HEAD'), Output.CAPTURE).output.strip()


def _line(name: str, e: Entry) -> str:
	what = 'converted' if e.status is Status.CONVERTED else \
		f'left open-coded ({e.reason.value if e.reason else "skipped"})'
	return f'{name}:{e.region.line}: {e.region.function}(): {what}'


def convert_files(runner: Runner, request: FilesRequest, out: TextIO = sys.stdout) -> Outcome:
	"""Converts the files; prints the diff on out, or writes them back."""
	top, names = _names(request)
	if shutil.which('spatch') is None:
		raise EnvironmentProblem('spatch is not installed', 'run `make deps` (coccinelle)')
	if not request.rules.is_file():
		raise EnvironmentProblem(f'{request.rules}: no such semantic patch',
					 'the conversion rules are cocci/convert_scoped_uaccess.cocci')
	if runner.dry_run:
		for name in names:
			runner.say(f'convert: would convert a copy of {top / name}')
		return Outcome.ok('dry run')
	originals = {n: (top / n).read_bytes() for n in names}
	with tempfile.TemporaryDirectory(prefix='scoped-uaccess-convert-') as tmp:
		wt = Path(tmp) / 'tree'
		wt.mkdir()
		rules = Path(tmp) / request.rules.name
		shutil.copyfile(request.rules, rules)
		commit = _copy(runner, top, names, wt)
		env = spatch_passes.Environment(index_cache.index(runner, top), treefacts.masking_arches(top))
		gains = driver.gaining_files(top, names)
		changed, converted, regions = [], 0, 0
		for name in names:
			if name in gains:
				found, did = driver.convert_file(runner, rules, wt, name, env, runner.say)
			else:
				found, did = driver.census_only(runner, rules, wt, name, env), False
			for e in found:
				runner.say(_line(name, e))
			regions += len(found)
			converted += sum(e.status is Status.CONVERTED for e in found)
			if did:
				changed.append(name)
		problems = driver.new_checker_errors(runner, wt, commit, changed, request.jobs,
						     runner.say) if changed else {}
		if problems:
			raise TreeStateError(
				'; '.join(f'{n}: the converted file draws {", ".join(t)}'
					  for n, t in problems.items()),
				'report it with the file: the conversion of it is wrong; nothing was written')
		summary = (f'{converted} of {regions} region(s) converted in {len(changed)} of '
			   f'{len(names)} file(s)')
		runner.say(f'convert: {summary}')
		if not changed:
			return Outcome.ok(summary)
		if not request.in_place:
			diff = runner.run(git(wt, 'diff', '--no-color', commit, '--', *changed),
					  Output.CAPTURE).output
			out.write(diff)
			out.flush()
			return Outcome.ok(summary)
		moved = [n for n in changed if (top / n).read_bytes() != originals[n]]
		if moved:
			raise TreeStateError(f'{top / moved[0]} changed while it was converted',
					     'run the conversion again; nothing was written')
		# Every file staged beside its target first, then each renamed over
		# it: a failure while staging leaves the tree as it was.
		staged = []
		try:
			for name in changed:
				target = top / name
				stage = target.with_name(f'.{target.name}.scoped-uaccess.tmp')
				staged.append((stage, target))
				shutil.copyfile(wt / name, stage)
				shutil.copymode(target, stage)
		except OSError as e:
			for stage, _ in staged:
				stage.unlink(missing_ok=True)
			raise TreeStateError(f'cannot write beside {staged[-1][1]}: {e.strerror}',
					     'make the directory writable; nothing was written') from e
		for stage, target in staged:
			os.replace(stage, target)
		return Outcome.ok(summary + ', written in place')
