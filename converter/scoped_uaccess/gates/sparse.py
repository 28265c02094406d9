# SPDX-License-Identifier: GPL-2.0
"""Sparse, compiler and objtool warnings: the series against its baseline."""

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from scoped_uaccess.kernel import worktree
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import CommandFailed, EnvironmentProblem
from scoped_uaccess.core.outcome import Outcome, written
from scoped_uaccess.cocci import api
from scoped_uaccess.kernel import kbuild, tree
from scoped_uaccess.kernel.kbuild import Diagnostic

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
# This is an x86_64 build: other architectures' files, and the x86 files
# only a 32-bit kernel builds, are checked by validate's builds.
CHECKED_ARCH = 'arch/x86/'
ALWAYS_CHECKED = ('lib/scoped_uaccess_kunit.c',)
# x86_64_defconfig with what the series touches beyond it: the compat
# (ia32) paths, KVM, i915, io_uring, and the KUnit suite.  validate's
# x86_64 build uses the same config.  IBT is off: it makes objtool run
# once on vmlinux.o instead of on each object, and single objects are
# what we build.
DEFCONFIG = 'x86_64_defconfig'
ENABLE = ('KVM', 'KVM_INTEL', 'DRM_I915', 'IA32_EMULATION', 'IO_URING', 'KUNIT',
	  'SCOPED_UACCESS_KUNIT_TEST')
DISABLE = ('X86_KERNEL_IBT',)
PATCHED_OUT = paths.validate_build_dir('x86_64')


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
		if (path.startswith('arch/') and not path.startswith(CHECKED_ARCH)) or \
		   re.match(api.X86_32_ONLY, path):
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




def build_objects(runner: Runner, build: kbuild.Build, sources: list[str], jobs: int,
		  log: Path) -> str:
	"""Builds the objects afresh with sparse on; returns make's output."""
	# In a dry run the baseline worktree may not exist yet: list them all.
	objects = [s[:-2] + '.o' for s in sources if (build.srctree / s).is_file() or runner.dry_run]
	if not objects:
		return ''
	result = kbuild.build(runner, build, objects, jobs, sparse=True, fresh=True, log=log,
			      sink=_progress(runner, objects))
	if result.returncode != 0:
		raise CommandFailed(result.command.shell_line(), result.returncode, result.output,
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


def build_in(runner: Runner, srctree: Path, out: Path, sources: list[str], jobs: int,
	     log: Path) -> str:
	"""The sources' objects built with sparse in out, configured from srctree."""
	runner.say(f'sparse: building {srctree.name} objects in {out}')
	build = kbuild.Build(srctree, out, make_options=())
	kbuild.configure(runner, build, DEFCONFIG, ENABLE, DISABLE)
	return build_objects(runner, build, sources, jobs, log)


def run_sparse(runner: Runner, kdir: Path, jobs: int,
	       results: Path = paths.RESULTS) -> SparseResult:
	"""Builds the touched files in baseline and patched trees and compares."""
	if shutil.which('sparse') is None:
		raise EnvironmentProblem('sparse is not installed', 'run `make deps`')
	result = SparseResult()
	tree.require_baseline(runner, kdir)
	result.files, result.unmapped_headers, result.other_arch = \
		files_to_check(worktree.changed_files(runner, kdir, tree.BASELINE_TAG))
	for header in result.unmapped_headers:
		runner.say(f'sparse: note: no C files listed for {header} in sparse.HEADER_USERS')
	if result.other_arch:
		runner.say('sparse: note: not checked by an x86_64 build (validate builds them): '
			   f'{" ".join(result.other_arch)}')
	runner.say(f'sparse: checking {len(result.files)} file(s): {" ".join(result.files)}')
	if not runner.dry_run:
		results.mkdir(parents=True, exist_ok=True)
	# The series' objects are built where validate builds its x86_64
	# objects (the same worktree at HEAD, config and directory), so that
	# neither prepares an out-of-tree build the other has prepared.
	patched_tree = worktree.converted_worktree(runner, kdir)
	patched = build_in(runner, patched_tree, PATCHED_OUT, result.files, jobs,
			   results / 'sparse-patched.log')
	result.patched = kbuild.parse_diagnostics(patched, (patched_tree,))
	# Baseline only matters when the series' objects warn at all.
	if result.patched or runner.dry_run:
		baseline_tree = worktree.baseline_worktree(runner, kdir)
		baseline = build_in(runner, baseline_tree, paths.OUT / 'sparse-baseline',
				    result.files, jobs, results / 'sparse-baseline.log')
		result.baseline = kbuild.parse_diagnostics(baseline, (baseline_tree,))
	else:
		runner.say('sparse: no warning in the series\' objects: the baseline is not built')
	result.new = kbuild.new_diagnostics(result.baseline, result.patched)
	checked = {f[:-2] + '.o' for f in result.files}
	result.uaccess = [w for w in result.patched if w.uaccess and w.file in checked]
	return result


def report(result: SparseResult) -> str:
	"""The text of build/results/sparse.txt."""
	lines = [f'files checked ({len(result.files)}):', *(f'  {f}' for f in result.files)]
	if result.unmapped_headers:
		lines += ['touched headers with no C files listed (add them to HEADER_USERS):',
			  *(f'  {h}' for h in result.unmapped_headers)]
	if result.other_arch:
		lines += ['touched files of other architectures, not checked by an x86_64 build:',
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


def step(runner: Runner, kdir: Path, jobs: int = kbuild.JOBS) -> Outcome:
	"""The gate: no new warning and no objtool UACCESS warning."""
	result = run_sparse(runner, kdir, jobs)
	if runner.dry_run:
		return Outcome.ok('dry run')
	details = written(paths.RESULTS / 'sparse.txt', report(result))
	for w in result.new:
		runner.say(f'sparse: NEW {w}')
	for w in result.uaccess:
		runner.say(f'sparse: UACCESS {w}')
	summary = (f'{len(result.files)} files; {len(result.new)} new warning(s), '
		   f'{len(result.uaccess)} objtool UACCESS warning(s)')
	runner.say(f'sparse: {summary} (details: {details})')
	return Outcome.ok(summary) if result.passed else Outcome.findings(summary)
