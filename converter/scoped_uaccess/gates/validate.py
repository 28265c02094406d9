# SPDX-License-Identifier: GPL-2.0
"""Validates the conversions: builds, sparse and objtool, and a boot in QEMU.

Every file the conversions touch is compiled for its architecture in a
configured out-of-tree build (x86_64 natively, i386, arm64, powerpc, arm
and riscv with Debian's cross compilers), with sparse (C=2).  A warning
in a touched file fails unless the unconverted tree gives the same one:
that tree is built only when there is a warning to compare.  An objtool
UACCESS warning fails always.  Then (`make validate`; make test's
validate gate builds only, its sweep and userspace gates boot) the
converted x86_64 kernel and the baseline, the series up to its API
(kernel/baseline.py: the same build directory, rebuilt incrementally),
boot with the userspace syscall tests and must give the same results
(userspace/compare.py); then the same two kernels, and a ppc64le pair
with KUAP, boot with the fault sweep (sweep/faultsweep.py), whose
records must be the same.
"""

import collections
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from scoped_uaccess.kernel import worktree
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.outcome import Outcome, relative, written
from scoped_uaccess.cocci import api
from scoped_uaccess.gates import cross, sparse
from scoped_uaccess.kernel import baseline, kbuild, tree
from scoped_uaccess.kernel.series import core_commit
from scoped_uaccess.kernel.architectures import Arch, arch as arch_named
from scoped_uaccess.kernel.kbuild import Diagnostic
from scoped_uaccess.kernel.qemu import AccelChoice
from scoped_uaccess.sweep import faultsweep, guest
from scoped_uaccess.userspace import compare


@dataclass(frozen=True)
class BuildConfig:
	"""How the touched files are compiled for one architecture."""
	arch: Arch
	defconfig: str
	enable: tuple[str, ...] = ()
	# IBT makes objtool run on vmlinux.o only; we build single objects.
	disable: tuple[str, ...] = ()
	# Touched paths (regex) that only this configuration builds.
	owns: str = ''

	@property
	def name(self) -> str:
		return self.arch.name


ARCHES: dict[str, BuildConfig] = {b.name: b for b in (
	# kvm and i915 are what the conversions touch beyond defconfig; i915
	# is x86-only (DRM_I915 depends on X86), so arm64 does not build it.
	BuildConfig(arch_named('x86_64'), sparse.DEFCONFIG, enable=sparse.ENABLE,
		    disable=sparse.DISABLE, owns=r'^(arch/x86/|drivers/gpu/drm/i915/)'),
	# Files only a 32-bit x86 kernel builds.
	BuildConfig(arch_named('i386'), 'i386_defconfig', enable=('VM86', 'X86_LEGACY_VM86'),
		    owns=api.X86_32_ONLY),
	# arm64 and powerpc: the cross gate's configurations, so both gates
	# share build/out/validate-<arch> (cross.SHARED_WITH_VALIDATE).
	BuildConfig(arch_named('arm64'), 'defconfig', enable=cross.ARCHES['arm64'].enable,
		    owns=r'^arch/arm64/'),
	# COMPAT builds signal_32.c on ppc64le too.
	BuildConfig(arch_named('powerpc'), 'ppc64le_defconfig',
		    enable=cross.ARCHES['powerpc'].enable, owns=r'^arch/powerpc/'),
	# And 32-bit: emulate_spe() of align.c is built only for SPE (e500),
	# signal_32.c's native (not compat) frames only on ppc32; signal_64.c
	# is 64-bit only.
	BuildConfig(arch_named('powerpc32'), 'mpc85xx_defconfig', enable=('SPE',),
		    owns=r'^arch/powerpc/(?!kernel/signal_64\.c$)'),
	BuildConfig(arch_named('arm'), 'multi_v7_defconfig', owns=r'^arch/arm/'),
	BuildConfig(arch_named('riscv'), 'defconfig', owns=r'^arch/riscv/'),
)}
# Generic files build natively, and on arm64, which has no masked user
# access: there the scopes take their user_*_access_begin() branch.
GENERIC_ARCHES = ('x86_64', 'arm64')
# Headers are compiled through C files that include them.
HEADER_USERS_GENERIC = ('lib/strncpy_from_user.c', 'lib/strnlen_user.c', 'lib/usercopy.c',
			'fs/select.c', 'kernel/futex/core.c')
# The unconverted commit's worktree, built only to compare warnings, and
# only when that commit cannot share the converted build directory.
BASE_TREE = paths.BUILD / 'wt-validate-base'	# build/linux's; paths.of_tree() for another


@dataclass
class ArchBuild:
	arch: BuildConfig
	objects: list[str] = field(default_factory=list)
	new: list[Diagnostic] = field(default_factory=list)
	uaccess: list[Diagnostic] = field(default_factory=list)
	problems: list[str] = field(default_factory=list)
	warnings: int = 0		# in the converted build, before the comparison
	seconds: float = 0.0
	log: str = ''

	@property
	def passed(self) -> bool:
		return not (self.new or self.uaccess or self.problems)


@dataclass
class ValidateResult:
	base: str = ''
	touched: list[str] = field(default_factory=list)
	builds: list[ArchBuild] = field(default_factory=list)
	boot: Optional[compare.BootComparison] = None
	boot_base: str = ''		# baseline.describe() of the baseline kernels
	sweep: Optional[faultsweep.SweepResult] = None
	sweep_dir: Path = faultsweep.RESULTS	# its faultsweep.txt
	seconds: dict[str, float] = field(default_factory=dict)

	@property
	def passed(self) -> bool:
		return (all(b.passed for b in self.builds) and
			(self.boot is None or self.boot.passed) and
			(self.sweep is None or self.sweep.passed))


def arch_of(path: str) -> list[str]:
	"""The architectures a touched path is compiled for."""
	if re.match(ARCHES['i386'].owns, path):
		return ['i386']
	found = [n for n, b in ARCHES.items() if n != 'i386' and b.owns and re.match(b.owns, path)]
	if found:
		return found
	if path.startswith('arch/'):
		return []
	return list(GENERIC_ARCHES)


def objects_by_arch(touched: list[str]) -> dict[str, list[str]]:
	"""What to build where: .c files as objects, headers through their users."""
	plan: dict[str, set[str]] = collections.defaultdict(set)
	for path in touched:
		if path.endswith('.c'):
			sources = [path]
		elif path.endswith('.h'):
			sources = list(sparse.HEADER_USERS.get(path, HEADER_USERS_GENERIC))
		else:
			continue
		for arch in arch_of(path):
			plan[arch].update(s[:-2] + '.o' for s in sources)
	return {a: sorted(plan[a]) for a in ARCHES if plan.get(a)}


def build_objects(runner: Runner, config: BuildConfig, srctree: Path, out: Path,
		  objects: list[str], jobs: int) -> tuple[int, str]:
	"""Configures out (once) and compiles the objects afresh with sparse;
	returns make's status and output."""
	build = kbuild.Build(srctree, out, config.arch, ())
	kbuild.configure(runner, build, config.defconfig, config.enable, config.disable)
	run = kbuild.build(runner, build, objects, jobs, sparse=True, fresh=True)
	return run.returncode, run.output


def _touched_diags(diags: list[Diagnostic], objects: list[str],
		   touched: list[str]) -> list[Diagnostic]:
	"""Diagnostics in the built files and the touched headers: what other
	headers say is no concern of the conversions."""
	wanted = {o[:-2] + '.c' for o in objects} | set(objects) | set(touched)
	return [d for d in diags if d.file in wanted]


def build_unconverted(runner: Runner, config: BuildConfig, kdir: Path, base: str,
		      base_tree: Callable[[], Path], objects: list[str],
		      jobs: int, tree: Path = paths.DEFAULT_KDIR) -> tuple[str, Path]:
	"""The objects at the unconverted commit; returns the log and the tree
	they were built from.  When base and HEAD share their configuration and
	API headers (the core commit and its conversions), in the converted
	build directory, the worktree moved to base and back: no second
	configuration and prepare.  Otherwise in a worktree and directory of
	their own."""
	if baseline.shares_build(runner, kdir, base):
		with baseline.At(runner, kdir, base):
			_, log = build_objects(runner, config, kdir,
					       paths.validate_build_dir(config.name, tree), objects, jobs)
		return log, kdir
	tree_path = base_tree()
	_, log = build_objects(runner, config, tree_path,
			       paths.validate_build_dir(f'{config.name}-base', tree), objects, jobs)
	return log, tree_path


def validate_builds(runner: Runner, kdir: Path, base: str, base_tree: Callable[[], Path],
		    touched: list[str], jobs: int, say: Callable[[str], None],
		    only: Optional[list[str]] = None,
		    tree: Path = paths.DEFAULT_KDIR) -> list[ArchBuild]:
	results = []
	for name, objects in objects_by_arch(touched).items():
		if only and name not in only:
			continue
		arch = ARCHES[name]
		result = ArchBuild(arch, objects)
		start = time.monotonic()
		out = paths.validate_build_dir(name, tree)
		say(f'validate: {name}: {arch.defconfig}; {len(objects)} object(s): {" ".join(objects)}')
		status, log = build_objects(runner, arch, kdir, out, objects, jobs)
		result.log = log
		if runner.dry_run:
			results.append(result)
			continue
		if status != 0:
			result.problems.append(f'make failed with status {status}: '
					       + kbuild.failure_line(log))
		diags = _touched_diags(kbuild.parse_diagnostics(log, (kdir,)), objects, touched)
		result.warnings = len(diags)
		result.uaccess = [d for d in diags if d.uaccess]
		if diags:
			say(f'validate: {name}: {len(diags)} warning(s); building the unconverted tree '
			    'to compare')
			blog, btree = build_unconverted(runner, arch, kdir, base, base_tree, objects, jobs,
							tree)
			result.log += '\n=== unconverted tree\n' + blog
			before = _touched_diags(kbuild.parse_diagnostics(blog, (btree,)), objects, touched)
			result.new = kbuild.new_diagnostics(before, diags)
		result.seconds = time.monotonic() - start
		verdict = 'PASS' if result.passed else 'FAIL'
		say(f'validate: {name}: {verdict} ({result.warnings} warning(s) in the touched '
		    f'files, {len(result.new)} new, {len(result.uaccess)} objtool UACCESS; '
		    f'{result.seconds:.0f} s)')
		for d in result.new + result.uaccess:
			say(f'  {d}')
		for p in result.problems:
			say(f'  {p}')
		results.append(result)
	return results


def run_validate(runner: Runner, kdir: Path, base: str, jobs: int,
		 accel: AccelChoice, boot: bool = True,
		 only: Optional[list[str]] = None,
		 say: Optional[Callable[[str], None]] = None,
		 baseline_run: Optional[str] = None,
		 sweep: tuple[str, ...] = tuple(guest.TARGETS)) -> ValidateResult:
	"""Validates kdir's HEAD, the conversions being base..HEAD; sweep
	names the fault sweep's targets (none: no sweep)."""
	say = say or runner.say
	tree.require_baseline(runner, kdir)
	# Worktrees, build directories and results of kdir's own: build/linux-7.3's
	# end in -7.3 (paths.of_tree()), apart from build/linux's.
	source = kdir
	result = ValidateResult(base=base)
	result.sweep_dir = paths.of_tree(faultsweep.RESULTS, source)
	result.touched = worktree.changed_files(runner, kdir, base)
	kdir = worktree.converted_worktree(runner, kdir)
	say(f'validate: {len(result.touched)} file(s) touched by {base[:12]}..HEAD: '
	    f'{" ".join(result.touched)}')
	holder: list[Path] = []

	def base_tree() -> Path:
		if not holder:
			holder.append(worktree.worktree(runner, kdir, paths.of_tree(BASE_TREE, source),
							base))
		return holder[0]
	start = time.monotonic()
	result.builds = validate_builds(runner, kdir, base, base_tree, result.touched, jobs, say, only,
					source)
	result.seconds['builds'] = time.monotonic() - start
	if boot:
		boot_base = baseline.boot_base(runner, kdir)
		result.boot_base = baseline.describe(runner, kdir, boot_base)
		request = faultsweep.FaultsweepRequest(
			converted_tree=kdir, base=boot_base, targets=sweep,
			x86_names=(baseline_run or paths.BASELINE_RUN, paths.CONVERTED_RUN), build_x86=False,
			jobs=jobs, accel=accel, tree=source, results=result.sweep_dir)
		if not baseline_run:
			# Every baseline in one move of the worktree: the x86_64 one
			# the userspace tests boot, and the sweep's.
			start = time.monotonic()
			pairs = [faultsweep.baseline_pair(guest.target(t), request)
				 for t in sorted({'x86_64', *sweep})]
			say(f'validate: baseline kernels: {result.boot_base}')
			baseline.ensure(runner, boot_base, pairs, jobs, paths.RESULTS, say)
			result.seconds['baselines'] = time.monotonic() - start
		result.boot = compare.boot_compare(runner, compare.BootRequest(
			converted=kdir, tree=source, baseline_run=baseline_run or paths.BASELINE_RUN,
			build_baseline=not baseline_run, jobs=jobs, accel=accel), say)
		result.seconds.update(result.boot.seconds)
		if sweep:
			# The x86_64 kernels are the userspace boots' own, just built.
			start = time.monotonic()
			result.sweep = faultsweep.run_sweep(runner, request, say)
			result.seconds['faultsweep'] = time.monotonic() - start
	return result


def report(result: ValidateResult) -> str:
	"""The text of build/results/validate.txt."""
	lines = [f'conversions: {result.base[:12]}..HEAD, {len(result.touched)} file(s)',
		 *(f'  {t}' for t in result.touched), '']
	for b in result.builds:
		lines.append(f'{"PASS" if b.passed else "FAIL"} build {b.arch.name} '
			     f'({b.arch.defconfig}): {len(b.objects)} object(s), {b.warnings} '
			     f'warning(s), {len(b.new)} new, {len(b.uaccess)} objtool UACCESS, '
			     f'{b.seconds:.0f} s')
		lines += [f'  {x}' for x in [*map(str, b.new), *map(str, b.uaccess), *b.problems]]
	if result.boot is not None and (result.boot.ran or result.boot.problems):
		verdict = 'PASS' if result.boot.passed else 'FAIL'
		lines.append(f'{verdict} boot: {result.boot.summary}')
		lines.append(f'  baseline kernels: {result.boot_base}')
		lines += [f'  {x}' for x in result.boot.problems]
	if result.sweep is not None:
		lines.append(f'{"PASS" if result.sweep.passed else "FAIL"} fault sweep: '
			     f'{result.sweep.summary()} ({relative(result.sweep_dir / "faultsweep.txt")})')
		for t in result.sweep.targets:
			lines += [f'  {x}' for x in [*t.problems, *map(str, t.differences)]]
	lines.append(f'verdict: {"PASS" if result.passed else "FAIL"}')
	for b in result.builds:
		lines += ['', f'=== {b.arch.name}', b.log.rstrip()]
	return '\n'.join(lines) + '\n'


@dataclass(frozen=True)
class ValidateRequest:
	kdir: Path
	patches: Path = paths.PATCHES
	base: Optional[str] = None		# default: baseline + the core series
	jobs: int = kbuild.JOBS
	accel: AccelChoice = AccelChoice.AUTO
	boot: bool = True
	only: Optional[list[str]] = None	# architectures
	baseline_run: Optional[str] = None
	sweep: tuple[str, ...] = tuple(guest.TARGETS)


def step(runner: Runner, request: ValidateRequest) -> Outcome:
	"""`make validate`: build/results/validate.txt and a summary."""
	base = request.base or core_commit(runner, request.kdir, request.patches)
	result = run_validate(runner, request.kdir, base, request.jobs, request.accel,
			      boot=request.boot, only=request.only,
			      baseline_run=request.baseline_run, sweep=request.sweep)
	if runner.dry_run:
		return Outcome.ok('dry run')
	details = written(paths.RESULTS / f'validate{paths.tree_suffix(request.kdir)}.txt',
			  report(result))
	failed = [b.arch.name for b in result.builds if not b.passed]
	if result.boot is not None and not result.boot.passed and not runner.dry_run:
		failed.append('boot')
	if result.sweep is not None and not result.sweep.passed:
		failed.append('fault sweep')
	clean = len([b for b in result.builds if b.passed])
	summary = (f'{len(result.touched)} file(s); builds {clean}/{len(result.builds)} clean '
		   f'({" ".join(b.arch.name for b in result.builds)})')
	if result.boot is not None and result.boot.ran:
		summary += f'; boot: {result.boot.summary}'
	if result.sweep is not None:
		summary += f'; fault sweep: {result.sweep.summary()}'
	runner.say(f'validate: {summary}; details: {details}')
	if failed:
		return Outcome.findings(f'{summary}; failed: {", ".join(failed)}')
	return Outcome.ok(summary)
