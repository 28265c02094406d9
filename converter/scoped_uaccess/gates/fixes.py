# SPDX-License-Identifier: GPL-2.0
"""A tree's fixes, and its conversions: they apply to the pristine tree and build cleanly.

The fix patches are upstream patches for bugs the checker found in a
tree (reports/linux-<version>/triage.json says which).  Each applies
with git am on the pristine tree (tag `baseline`) in a scratch worktree,
build/wt-apply-<series>; checkpatch --strict finds no error or warning
(save the commit ids of Fixes: tags, which a Debian tarball without
history cannot resolve); and every file a fix touches is compiled, with
sparse, for the architectures it is built on, where a warning fails
unless the pristine tree gives the same one.

The conversions of the tree's own series (patches/linux-7.3/series) are
built the same way, for every architecture that builds a file they
touch (kind CONVERSIONS; checkpatch runs over them in the tree-7.3
gate).

`fixes --boot` then shows what the fixes change at run time: a ppc64le
kernel of the pristine tree and one of the fixed tree each boot the
programs of testcases/fixes/ as /init (fixes_boot.py).
"""

import collections
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import CommandFailed, TreeStateError, UsageError
from scoped_uaccess.core.outcome import Outcome, relative, written
from scoped_uaccess.gates import checkpatch, validate
from scoped_uaccess.kernel.git import git
from scoped_uaccess.kernel import kbuild, sources, tree, worktree
from scoped_uaccess.kernel.kbuild import Diagnostic
from scoped_uaccess.kernel.series import read_series

FIXES = 'fixes'
CONVERSIONS = 'conversions'
# The Fixes: tags name mainline commits; the tree is a Debian tarball
# committed as one commit, so checkpatch cannot look them up.
CHECKPATCH_IGNORE = ('UNKNOWN_COMMIT_ID',)
# kbuild's warning when scripts/checker-valid.sh refuses the checker (a
# sparse older than the tree: 7.x needs __typeof_unqual__), after which
# it builds with C=0: the build stays a gate, but without sparse.
_SPARSE_OFF = re.compile(r'C=\d+ specified, but \S+ is not available or not up to date')


@dataclass(frozen=True)
class FixesRequest:
	"""A series of a tree applied to its pristine baseline and built: the
	fixes (patches/linux-<x.y>/fixes/series), or the tree's own series,
	whose conversions are then built for their architectures (the
	series' checker patch compiles nothing)."""
	kdir: Path
	jobs: int = kbuild.JOBS
	kind: str = FIXES
	series: tuple[Path, ...] = ()	# the patches to apply, when not patches/series

	@property
	def source(self) -> sources.KernelSource:
		return sources.for_kdir(self.kdir)

	@property
	def patches(self) -> Path:
		top = sources.patches_for(self.kdir)
		return top / FIXES if self.kind == FIXES else top

	# The fixes and the conversions share the worktree and the build
	# directories: the second gate rebuilds only the objects it touches.
	@property
	def worktree(self) -> Path:
		return paths.BUILD / f'wt-apply{paths.tree_suffix(self.kdir)}'

	def build_dir(self, arch: str) -> Path:
		return paths.OUT / f'apply{paths.tree_suffix(self.kdir)}-{arch}'


@dataclass
class ArchBuild:
	arch: str
	objects: list[str]
	new: list[Diagnostic] = field(default_factory=list)
	problems: list[str] = field(default_factory=list)
	sparse_off: bool = False	# kbuild refused the checker: no sparse warnings to compare
	log: str = ''

	@property
	def passed(self) -> bool:
		return not (self.new or self.problems)


@dataclass
class FixesResult:
	applied: list[str] = field(default_factory=list)
	commit: str = ''
	touched: list[str] = field(default_factory=list)
	checkpatch: Optional[Outcome] = None
	builds: list[ArchBuild] = field(default_factory=list)

	@property
	def passed(self) -> bool:
		return (self.checkpatch is None or self.checkpatch.exit_status == 0) and \
			all(b.passed for b in self.builds)


def apply(runner: Runner, request: FixesRequest) -> tuple[Path, list[str]]:
	"""The scratch worktree at baseline with the fixes applied by git am;
	the patch names.  A patch that does not apply is a TreeStateError."""
	series = list(request.series) or read_series(request.patches)
	if not series:
		raise UsageError(f'{relative(request.patches)}/series lists no patch',
				 'add the patches and their series')
	tree.require_baseline(runner, request.kdir)
	wt = worktree.worktree(runner, request.kdir, request.worktree, tree.BASELINE_TAG,
			       scratch=True)
	for patch in series:
		runner.say(f'{request.kind}: applying {patch.name}')
		try:
			runner.run(git(wt, '-c', 'commit.gpgsign=false', 'am', '--quiet',
					str(patch.resolve()), mutates=True), Output.CAPTURE)
		except CommandFailed as e:
			runner.run(git(wt, 'am', '--abort', mutates=True), Output.CAPTURE, check=False)
			raise TreeStateError(f'{patch.name} does not apply to {request.source.describe()} '
					     f'({e.problem})', 'rebase the fix on the tree Debian serves') from e
	return wt, [p.name for p in series]


def header_users(runner: Runner, srctree: Path, header: str) -> list[str]:
	"""The C files that include header by its <linux/...> or "..." name."""
	name = header.split('include/', 1)[1] if header.startswith('include/') else Path(header).name
	run = runner.run(git(srctree, 'grep', '-l', '-F', '-e', f'<{name}>', '-e', f'"{name}"', '--',
			     '*.c'), Output.CAPTURE, check=False)
	return sorted(run.output.split())


def objects_by_arch(runner: Runner, srctree: Path, touched: list[str],
		    spread: bool = True) -> dict[str, list[str]]:
	"""What to build where: a C file as its object, a header through the C
	files that include it; each for validate's architectures of its path.
	With spread, an object no architecture owns also builds on every
	other architecture in the plan (a fix is a few files: the extra
	objects are cheap there); a conversion series builds each object
	only where validate would, since a generic file such as
	kernel/compat.c is not built by every configuration."""
	plan: dict[str, set[str]] = collections.defaultdict(set)
	generic: set[str] = set()
	for path in touched:
		if path.endswith('.c'):
			sources_ = [path]
		elif path.endswith('.h'):
			sources_ = header_users(runner, srctree, path)
		else:
			continue
		for arch in validate.arch_of(path):
			plan[arch].update(s[:-2] + '.o' for s in sources_
					  if not s.startswith('arch/') or arch in validate.arch_of(s))
		generic.update(s[:-2] + '.o' for s in sources_
			       if validate.arch_of(s) == list(validate.GENERIC_ARCHES))
	# A generic object also builds where another fix configured a tree
	# anyway (32-bit powerpc for a generic header): no extra prepare.
	for arch in plan if spread else ():
		plan[arch] |= generic
	return {a: sorted(plan[a]) for a in validate.ARCHES if plan.get(a)}


def build_arch(runner: Runner, request: FixesRequest, wt: Path, arch: str,
	       objects: list[str], touched: list[str]) -> ArchBuild:
	"""The objects at the fixes, then, only if they warn, at baseline in
	the same build directory: the warnings the fixes add."""
	config = validate.ARCHES[arch]
	result = ArchBuild(arch, objects)
	build = kbuild.Build(wt, request.build_dir(arch), config.arch, ())
	kbuild.configure(runner, build, config.defconfig, config.enable, config.disable)
	fixed = kbuild.build(runner, build, objects, request.jobs, sparse=True, fresh=True)
	result.log = fixed.output
	result.sparse_off = sparse_refused(fixed.output)
	if runner.dry_run:
		return result
	if fixed.returncode != 0:
		result.problems.append(f'{" ".join(objects)}: {kbuild.failure_line(fixed.output)}')
		return result
	wanted = {o[:-2] + '.c' for o in objects} | set(touched)
	diags = [d for d in kbuild.parse_diagnostics(fixed.output, [wt]) if d.file in wanted]
	if not diags:
		return result
	head = worktree.head(runner, wt)
	runner.run(git(wt, 'checkout', '-q', '--detach', tree.BASELINE_TAG, mutates=True))
	try:
		pristine = kbuild.build(runner, build, objects, request.jobs, sparse=True, fresh=True)
	finally:
		runner.run(git(wt, 'checkout', '-q', '--detach', head, mutates=True))
	before = [d for d in kbuild.parse_diagnostics(pristine.output, [wt]) if d.file in wanted]
	result.new = kbuild.new_diagnostics(before, diags)
	result.log += '\n=== the pristine tree\n' + pristine.output
	return result


def sparse_refused(output: str) -> bool:
	"""Whether kbuild turned C= off because it refused the checker."""
	return bool(_SPARSE_OFF.search(output))


def run_fixes(runner: Runner, request: FixesRequest) -> FixesResult:
	result = FixesResult()
	wt, result.applied = apply(runner, request)
	result.commit = worktree.head(runner, wt)
	if request.kind == FIXES:
		result.checkpatch = checkpatch.step(
			runner, wt, request.patches, CHECKPATCH_IGNORE,
			name=f'{request.kind}-{request.source.series}-checkpatch.txt')
	result.touched = worktree.changed_files(runner, wt, tree.BASELINE_TAG)
	plan = objects_by_arch(runner, wt, result.touched, spread=request.kind == FIXES)
	for arch, objects in plan.items():
		runner.say(f'{request.kind}: {arch}: {" ".join(objects)}')
		build = build_arch(runner, request, wt, arch, objects, result.touched)
		runner.say(f'{request.kind}: {arch}: {"PASS" if build.passed else "FAIL"}')
		for line in [*build.problems, *map(str, build.new)]:
			runner.say(f'  {line}')
		result.builds.append(build)
	return result


def report(result: FixesResult) -> str:
	lines = [f'applied: {" ".join(result.applied)}', f'touched: {" ".join(result.touched)}',
		 f'checkpatch: {result.checkpatch.summary if result.checkpatch else "not run"}']
	for b in result.builds:
		lines.append(f'{"PASS" if b.passed else "FAIL"} {b.arch}: {" ".join(b.objects)}'
			     + (' (without sparse: kbuild refused the checker)' if b.sparse_off else ''))
		lines += [f'  {p}' for p in [*b.problems, *map(str, b.new)]]
	for b in result.builds:
		lines += ['', f'=== {b.arch}', b.log.rstrip()]
	return '\n'.join(lines) + '\n'


def step(runner: Runner, request: FixesRequest) -> Outcome:
	"""The gate: every fix applies, is checkpatch clean and builds without
	a new warning."""
	result = run_fixes(runner, request)
	if runner.dry_run:
		return Outcome.ok('dry run')
	details = written(paths.RESULTS / f'{request.kind}-{request.source.series}.txt',
			  report(result))
	failed = [b.arch for b in result.builds if not b.passed]
	summary = (f'{len(result.applied)} patch(es) apply to {request.source.describe()}; '
		   + (f'{result.checkpatch.summary}; ' if result.checkpatch else '')
		   + f'{len(result.builds) - len(failed)} of {len(result.builds)} architectures '
		   f'build {sum(len(b.objects) for b in result.builds)} objects cleanly'
		   + (f', {", ".join(b.arch for b in result.builds if b.sparse_off)} without sparse '
		      '(kbuild refused the checker as too old for the tree)'
		      if any(b.sparse_off for b in result.builds) else '')
		   + f' (details: {details})')
	if not result.passed:
		return Outcome.findings(summary + (f'; failed: {", ".join(failed)}' if failed else ''))
	return Outcome.ok(summary)

