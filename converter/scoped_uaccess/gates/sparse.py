# SPDX-License-Identifier: GPL-2.0
"""Sparse, compiler and objtool warnings: the series against its baseline."""

import collections
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import CommandFailed, EnvironmentProblem
from scoped_uaccess.kernel import tree
from scoped_uaccess.kernel.tree import BASELINE_TAG, require_baseline

# Headers are checked through C files that include them and use what the
# series changes. Extend when the series touches another header.
HEADER_USERS: dict[str, tuple[str, ...]] = {
	'include/linux/uaccess.h': ('fs/select.c', 'lib/strncpy_from_user.c',
				    'lib/strnlen_user.c', 'lib/usercopy.c',
				    'kernel/futex/core.c'),
	'arch/x86/include/asm/futex.h': ('kernel/futex/core.c', 'kernel/futex/waitwake.c',
					 'kernel/futex/pi.c', 'kernel/futex/requeue.c'),
	'kernel/futex/futex.h': ('kernel/futex/core.c', 'kernel/futex/waitwake.c',
				 'kernel/futex/pi.c', 'kernel/futex/requeue.c'),
	'arch/x86/include/asm/uaccess.h': ('fs/select.c', 'lib/strncpy_from_user.c',
					   'lib/strnlen_user.c', 'lib/usercopy.c',
					   'kernel/futex/core.c'),
}
# This is an x86_64 build: other architectures' files cannot be checked here.
CHECKED_ARCH = 'arch/x86/'
ALWAYS_CHECKED = ('lib/scoped_uaccess_kunit.c',)
# The kunit build's config, with one change: IBT makes objtool run once on
# vmlinux.o instead of on each object, and single objects are what we build.
CONFIG_CHANGES = ('--disable', 'X86_KERNEL_IBT')
ARCH = 'x86_64'
TOOLCHAIN_OPTIONS = ('CC=gcc',)

_DIAGNOSTIC = re.compile(r'^(?P<file>[^\s:]+):(?P<line>\d+):(?:(?P<col>\d+):)? '
			 r'(?P<kind>warning|error): (?P<msg>.*)$')
_OBJTOOL = re.compile(r'^(?P<file>[^\s:]+\.o): (?P<kind>warning|error): objtool: (?P<msg>.*)$')
# sparse's info() lines carry a position and continue the previous message.
_INFO = re.compile(r'^(?P<file>[^\s:]+):(?P<line>\d+):(?:(?P<col>\d+):)?   +(?P<msg>\S.*)$')
_OFFSET = re.compile(r'\+0x[0-9a-f]+(/0x[0-9a-f]+)?')


@dataclass(frozen=True, order=True)
class Diagnostic:
	"""One diagnostic, without line and column so it survives code motion."""
	file: str
	message: str
	tool: str		# sparse-or-compiler, or objtool

	def __str__(self) -> str:
		return f'{self.file}: {self.message}' + (' [objtool]' if self.tool == 'objtool' else '')


@dataclass
class SparseResult:
	files: list[str] = field(default_factory=list)
	unmapped_headers: list[str] = field(default_factory=list)
	other_arch: list[str] = field(default_factory=list)
	baseline: list[Diagnostic] = field(default_factory=list)
	patched: list[Diagnostic] = field(default_factory=list)
	new: list[Diagnostic] = field(default_factory=list)
	uaccess: list[Diagnostic] = field(default_factory=list)

	@property
	def passed(self) -> bool:
		return not self.new and not self.uaccess


def files_to_check(touched: Iterable[str]) -> tuple[list[str], list[str], list[str]]:
	"""C files to build for the touched paths, headers we cannot map, and
	files of other architectures."""
	files, unmapped, other_arch = set(ALWAYS_CHECKED), [], []
	for path in touched:
		if path.startswith('arch/') and not path.startswith(CHECKED_ARCH):
			if path.endswith(('.c', '.h')):
				other_arch.append(path)
		elif path.endswith('.c'):
			files.add(path)
		elif path.endswith('.h'):
			if path in HEADER_USERS:
				files.update(HEADER_USERS[path])
			else:
				unmapped.append(path)
	return sorted(files), sorted(unmapped), sorted(other_arch)


def parse_warnings(output: str, srctrees: Iterable[Path]) -> list[Diagnostic]:
	"""Sparse, compiler and objtool diagnostics from make output, normalised."""
	prefixes = sorted({str(p.resolve()).rstrip('/') + '/' for p in srctrees}, key=len, reverse=True)
	result: list[Diagnostic] = []
	last = None
	for line in output.splitlines():
		m = _OBJTOOL.match(line)
		if m:
			result.append(Diagnostic(_relative(m.group('file'), prefixes),
					      _OFFSET.sub('', m.group('msg')).strip(), 'objtool'))
			last = None
			continue
		m = _DIAGNOSTIC.match(line)
		if m:
			last = Diagnostic(_relative(m.group('file'), prefixes),
				       f'{m.group("kind")}: {m.group("msg").strip()}', 'sparse')
			result.append(last)
			continue
		m = _INFO.match(line)
		if m and last is not None:
			merged = Diagnostic(last.file, f'{last.message} | {" ".join(m.group("msg").split())}',
					    last.tool)
			result[-1] = last = merged
		else:
			last = None
	return result


def _relative(path: str, prefixes: list[str]) -> str:
	for prefix in prefixes:
		if path.startswith(prefix):
			return path[len(prefix):]
	return path.removeprefix('./')


def new_warnings(baseline: list[Diagnostic], patched: list[Diagnostic]) -> list[Diagnostic]:
	"""Warnings in patched beyond those in baseline, counted as a multiset."""
	extra = collections.Counter(patched) - collections.Counter(baseline)
	return sorted(extra.elements())


def worktree_path(kdir: Path) -> Path:
	return kdir.parent / f'{kdir.name}-baseline'


def ensure_worktree(runner: Runner, kdir: Path) -> Path:
	"""A checkout of baseline beside KDIR, sharing KDIR's git objects."""
	return tree.detached_worktree(runner, kdir, worktree_path(kdir), BASELINE_TAG)


def touched_files(runner: Runner, kdir: Path) -> list[str]:
	require_baseline(runner, kdir)
	out = runner.run(Command(('git', 'diff', '--name-only', f'{BASELINE_TAG}..HEAD'),
				 cwd=kdir, mutates=False), Output.CAPTURE).output
	return [line.strip() for line in out.splitlines() if line.strip()]


def prepare_config(runner: Runner, srctree: Path, out: Path, config: Path) -> None:
	if not runner.dry_run:
		out.mkdir(parents=True, exist_ok=True)
		shutil.copyfile(config, out / '.config')
	runner.run(Command(('scripts/config', '--file', str((out / '.config').resolve()),
			    *CONFIG_CHANGES), cwd=srctree))
	runner.run(Command(('make', f'ARCH={ARCH}', f'O={out.resolve()}', *TOOLCHAIN_OPTIONS,
			    'olddefconfig'), cwd=srctree, nice=True), Output.CAPTURE)


def build_objects(runner: Runner, srctree: Path, out: Path, sources: list[str],
		  jobs: int, log: Path) -> str:
	"""Builds the objects with sparse on; returns make's output."""
	# In a dry run the baseline worktree may not exist yet: list them all.
	objects = [s[:-2] + '.o' for s in sources if (srctree / s).is_file() or runner.dry_run]
	if not objects:
		return ''
	for obj in objects:
		# objtool only runs when the object is compiled, so always compile.
		if not runner.dry_run:
			(out / obj).unlink(missing_ok=True)
	command = Command(('make', f'ARCH={ARCH}', f'O={out.resolve()}', *TOOLCHAIN_OPTIONS,
			   'C=2', 'CHECK=sparse', f'--jobs={jobs}', *objects), cwd=srctree, nice=True)
	result = runner.run(command, Output.LINES, log=log, check=False,
			    sink=_progress(runner, objects))
	if result.returncode != 0:
		raise CommandFailed(command.shell_line(), result.returncode, result.output,
				    f'see {log}')
	return result.output


def _progress(runner: Runner, objects: list[str]):
	"""Shows kbuild's steps on our objects and make's own errors; the
	diagnostics themselves are reported after the comparison."""
	wanted = set(objects) | {o[:-2] + '.c' for o in objects}

	def sink(line: str) -> None:
		words = line.split()
		if line.startswith('  ') and len(words) == 2 and \
				any(words[1].endswith(w) for w in wanted):
			runner.say(line.rstrip())
		elif '***' in line:
			runner.say(line.rstrip())
	return sink


def run_sparse(runner: Runner, kdir: Path, jobs: int,
	       kunit_config: Path = paths.OUT / 'kunit-gcc' / '.config',
	       results: Path = paths.RESULTS) -> SparseResult:
	"""Builds the touched files in baseline and patched trees and compares."""
	if shutil.which('sparse') is None:
		raise EnvironmentProblem('sparse is not installed', 'run `make deps`')
	if not kunit_config.is_file():
		raise EnvironmentProblem(f'{kunit_config} is missing',
					 'build the kunit kernel first with `make kunit CC=gcc`')
	result = SparseResult()
	result.files, result.unmapped_headers, result.other_arch = \
		files_to_check(touched_files(runner, kdir))
	for header in result.unmapped_headers:
		runner.say(f'sparse: note: no C files listed for {header} in sparse.HEADER_USERS')
	if result.other_arch:
		runner.say(f'sparse: note: not checked by an {ARCH} build: {" ".join(result.other_arch)}')
	runner.say(f'sparse: checking {len(result.files)} file(s): {" ".join(result.files)}')
	baseline_tree = ensure_worktree(runner, kdir)
	if not runner.dry_run:
		results.mkdir(parents=True, exist_ok=True)
	outputs = {}
	for name, srctree in (('baseline', baseline_tree), ('patched', kdir)):
		out = paths.OUT / f'sparse-{name}'
		runner.say(f'sparse: building {name} objects in {out}')
		prepare_config(runner, srctree, out, kunit_config)
		outputs[name] = build_objects(runner, srctree, out, result.files, jobs,
					      results / f'sparse-{name}.log')
	trees = (kdir, baseline_tree)
	result.baseline = parse_warnings(outputs['baseline'], trees)
	result.patched = parse_warnings(outputs['patched'], trees)
	result.new = new_warnings(result.baseline, result.patched)
	checked = {f[:-2] + '.o' for f in result.files}
	result.uaccess = [w for w in result.patched
			  if w.tool == 'objtool' and 'UACCESS' in w.message and w.file in checked]
	return result


def report(result: SparseResult) -> str:
	"""The text of build/results/sparse.txt."""
	lines = [f'files checked ({len(result.files)}):', *(f'  {f}' for f in result.files)]
	if result.unmapped_headers:
		lines += ['touched headers with no C files listed (add them to HEADER_USERS):',
			  *(f'  {h}' for h in result.unmapped_headers)]
	if result.other_arch:
		lines += [f'touched files of other architectures, not checked by an {ARCH} build:',
			  *(f'  {h}' for h in result.other_arch)]
	lines += [f'warnings: baseline {len(result.baseline)}, patched {len(result.patched)}, '
		  f'new {len(result.new)}, objtool UACCESS {len(result.uaccess)}',
		  f'verdict: {"PASS" if result.passed else "FAIL"}', '']
	for title, items in (('new in the patched tree', result.new),
			     ('objtool UACCESS warnings in the patched tree', result.uaccess),
			     ('all patched-tree warnings', result.patched),
			     ('all baseline warnings', result.baseline)):
		lines += [f'== {title} ({len(items)})', *(f'  {w}' for w in items), '']
	return '\n'.join(lines)
