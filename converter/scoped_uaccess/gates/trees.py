# SPDX-License-Identifier: GPL-2.0
"""The gates of a kernel tree: one list of kinds, applied to each tree
make test tests as its record (kernel/sources.py, Gates) says.

A kind is a gate written once for any tree: it is given the tree's
record and directory and names nothing else (`report` is the checker's
report of the tree as committed, `sweep` the fault sweep of the tree
with its series against the tree with the series up to its API, ...).
A tree's gates are named by kind and the tree's suffix (paths.
tree_suffix(): `sweep` for build/linux, `sweep-7.3` for build/linux-7.3),
the KUnit kind once per compiler of the record (kunit-clang-14).

The tree gate makes the tree as `make tree KDIR=...` does.  Debian's
backports keep only the newest 7.3.x: when the version served is not the
one the committed conversions were generated on (drift()), the tree is
made with the series up to its API only (the checker and KUnit patches),
convert-regen generates the conversions afresh on it and builds builds
those: the gates test the tool on the tree users have, and their
summaries say that the committed series needs a refresh (`make
convert-install KDIR=build/linux-7.3`).

Once a tree is made, the warm-up (gates/warmup.py) builds in the
background the kernels its boot gates need, unless those gates will take
their committed verdicts (gates/recorded.py).  A gate that moves the
tree's converted worktree (validate, sweep, userspace: kernel/
baseline.py checks out the series up to its API to build the baselines)
first waits for every warm-up of its tree.
"""

import enum
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from scoped_uaccess.checker import report
from scoped_uaccess.convert import mainline
from scoped_uaccess.convert import targets as convert_targets
from scoped_uaccess.convert.driver import ConvertRequest, default_worktree
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.core.outcome import Outcome, relative
from scoped_uaccess.gates import (bisect, checkpatch, cross, fixes, negative, recorded, reports,
				  sparse, validate)
from scoped_uaccess.gates.runner import Gate
from scoped_uaccess.gates.warmup import Job, Warmup, configure_step
from scoped_uaccess.kernel import baseline, kbuild, series, sources, tree, worktree
from scoped_uaccess.kernel.qemu import AccelChoice
from scoped_uaccess.kernel.toolchains import toolchain
from scoped_uaccess.kunit import matrix as kunit_matrix, suites
from scoped_uaccess.sweep import faultsweep, guest
from scoped_uaccess.userspace import compare


def conversions_version(kdir: Path) -> Optional[str]:
	"""The version the committed conversions of kdir's series were
	generated on: that of the reports/linux-<series>.<n>/ holding a
	conversion.json (the newest, should there be several)."""
	found = [d.name.removeprefix('linux-')
		 for d in report.REPORTS.glob(f'linux-{sources.for_kdir(kdir).series}.*')
		 if (d / 'conversion.json').is_file()]
	return max(found, key=sources.version_key, default=None)


def drift(kdir: Path) -> str:
	"""Why the tree is made without the committed conversions ('' when
	they are of its version)."""
	made_for = conversions_version(kdir)
	version = tree.makefile_version(kdir)
	if made_for is None or version is None or made_for == version:
		return ''
	return (f'the committed conversions are of {made_for}, Debian serves {version}; '
		f'refresh them with `make convert-install KDIR={relative(kdir)}`')


def _core(patches: Path) -> list[Path]:
	return series.read_series(patches)[:len(series.series_parts(patches).core)]


def tree_step(runner: Runner, kdir: Path, force: bool = False) -> Outcome:
	"""The tree as make tree makes it (up to its API when the committed
	conversions are of another version)."""
	patches, source = sources.patches_for(kdir), sources.for_kdir(kdir)
	if not kdir.exists() and not runner.dry_run:
		# Extracted first: its version decides how much of the series applies.
		tree.step(runner, tree.TreeRequest(kdir, patches, force, source, upto=0))
	moved = drift(kdir)
	upto = len(_core(patches)) if moved else None
	made = tree.step(runner, tree.TreeRequest(kdir, patches, force, source, upto))
	return Outcome(made.exit_status, made.summary + (f'; {moved}' if moved else ''))


def regen_step(runner: Runner, kdir: Path, jobs: int = kbuild.JOBS) -> Outcome:
	"""The conversions regenerated on the tree's core commit: the committed
	series exactly, or, on another version, a series that builds then
	builds."""
	patches = sources.patches_for(kdir)
	request = ConvertRequest(tree=kdir, out=convert_targets.out_dir(kdir, regen=True),
				 worktree=default_worktree(kdir), jobs=jobs)
	moved = drift(kdir)
	if not moved:
		return convert_targets.regen_step(runner, request, patches)
	made = convert_targets.convert_step(runner, convert_targets.ConvertStep(
		request, patches=patches, core=True))
	return Outcome(made.exit_status, f'{made.summary}; {moved}')


def builds_step(runner: Runner, kdir: Path, jobs: int = kbuild.JOBS) -> Outcome:
	"""The conversions on the pristine tree, built for their architectures
	(those regen_step() generated when the committed ones are of another
	version)."""
	built: tuple[Path, ...] = ()
	if drift(kdir):
		out = convert_targets.out_dir(kdir, regen=True)
		regenerated = sorted(out.glob('*.patch'))
		if not regenerated:
			raise UsageError(f'{relative(out)} holds no conversion of {relative(kdir)}',
					 f'run `make convert-regen KDIR={relative(kdir)}` first')
		built = (*_core(sources.patches_for(kdir)), *regenerated)
	return fixes.step(runner, fixes.FixesRequest(kdir, jobs=jobs, kind=fixes.CONVERSIONS,
						     series=built))


def kunit_step(runner: Runner, kdir: Path, cc: str, jobs: int = kbuild.JOBS,
	       accel: AccelChoice = AccelChoice.AUTO) -> Outcome:
	"""The x86_64 KUnit kernel of the tree with its series, built with cc,
	booted in QEMU: the scoped_uaccess and usercopy suites must pass,
	every case.  The gcc kernel is booted again on kunit.py's default
	x86_64 CPU, which has no SMAP: the SMAP case must skip, every other
	case pass (kunit.py's other configurations: `kunit-matrix`)."""
	request = suites.KunitRequest(kdir=kdir, toolchain=toolchain(cc), jobs=jobs, accel=accel)
	passed = suites.step(runner, request)
	if cc != 'gcc' or passed.exit_status != 0 or runner.dry_run:
		return passed
	again = kunit_matrix.default_cpu_step(runner, kdir, request.build_dir, accel)
	return Outcome(again.exit_status, f'{passed.summary}; {again.summary}')


def sweep_step(runner: Runner, kdir: Path, jobs: int = kbuild.JOBS,
	       accel: AccelChoice = AccelChoice.AUTO) -> Outcome:
	"""The fault and argument sweeps of the tree with its series against the
	tree with the series up to its API, on x86_64 (the gcc KUnit kernel is
	the converted one) and ppc64le."""
	return faultsweep.step(runner, faultsweep.request_for(runner, kdir, jobs=jobs, accel=accel))


def userspace_step(runner: Runner, kdir: Path, jobs: int = kbuild.JOBS,
		   accel: AccelChoice = AccelChoice.AUTO) -> Outcome:
	"""The userspace tests (testcases/userspace/) booted on the x86_64
	kernel of the tree with its series and of the tree with the series up
	to its API: every check and the common KUnit cases must agree.  The
	kernels are those of sweep_step(): what it built is not built again."""
	request = faultsweep.request_for(runner, kdir, targets=('x86_64',), jobs=jobs, accel=accel)
	pair = faultsweep.baseline_pair(guest.target('x86_64'), request)
	baseline.ensure(runner, request.base, [pair], jobs, paths.RESULTS, runner.say)
	result = compare.boot_compare(runner, compare.BootRequest(
		converted=request.converted_tree, tree=kdir, jobs=jobs, accel=accel), runner.say)
	if runner.dry_run:
		return Outcome.ok('dry run')
	if not result.passed:
		return Outcome.findings('; '.join([result.summary or 'no comparison',
						   *result.problems[:5]]))
	return Outcome.ok(result.summary)


class Stage(enum.Enum):
	"""Where a kind's gates go in make test's list (gates())."""
	TREE = 'tree'		# the first tree's right after deps: the warm-up starts from it
	CHECKS = 'checks'	# checker, conversions and builds, tree by tree
	BOOTS = 'boots'		# kernels, tree by tree, after every tree's checks


@dataclass(frozen=True)
class TreeTest:
	"""One tree under make test: its record, where it is, the run's options."""
	source: sources.KernelSource
	kdir: Path
	runner: Runner
	warm: Warmup
	jobs: int = kbuild.JOBS
	accel: AccelChoice = AccelChoice.AUTO
	force: bool = False
	record: tuple[str, ...] = ()	# recorded gates to record (test --record)
	ours: Path = sources.DEFAULT.kdir	# the default tree, whose conversions mainline's compare with
	series_dir: Optional[Path] = None	# its series, if not the record's

	@property
	def patches(self) -> Path:
		return self.series_dir or self.source.patches or sources.patches_for(self.kdir)

	@property
	def suffix(self) -> str:
		"""Of its gates' names: none for the default tree's (sources.DEFAULT)."""
		return '' if self.source is sources.DEFAULT else f'-{self.source.series}'

	@property
	def gates_record(self) -> sources.Gates:
		assert self.source.gates is not None
		return self.source.gates

	def name(self, gate: str) -> str:
		return f'{gate}{self.suffix}'

	def recorded(self) -> tuple[str, ...]:
		return tuple(self.name(g) for g in self.gates_record.recorded)

	def takes_record(self, gate: str) -> bool:
		"""Whether the gate (named without suffix) will take its committed
		verdict: then the warm-up builds nothing for it."""
		name = self.name(gate)
		return (name in self.recorded() and name not in self.record
			and recorded.current(self.runner, name, KINDS[_kind_of(gate)].inputs(self, gate)))


def _kind_of(gate: str) -> str:
	"""kunit-clang-14 -> kunit."""
	return 'kunit' if gate.startswith('kunit-') else gate


# What a recorded gate's verdict depends on besides the tree, its series
# and CODE (gates/recorded.py).
def _series_inputs(t: TreeTest, compilers: tuple[str, ...], configs: tuple[Path, ...] = (),
		   code: tuple[Path, ...] = (), patches: Optional[Path] = None) -> recorded.Inputs:
	return recorded.Inputs(t.kdir, tuple(series.read_series(patches or t.patches)), compilers,
			       configs, code)


# The KUnit kernel: the kunitconfig and what configures and boots it and
# judges its KTAP.
KUNIT_CODE = recorded.modules('kunit/', 'kernel/qemu.py', 'kernel/toolchains.py')
# The boots: the configurations and programs, every module that builds,
# boots or compares, and this one.
BOOT_CONFIGS = tuple(sorted({
	*(paths.REPO / 'testcases' / 'kernel' / c for c in ('x86_64.config',
							     'faultsweep-ppc64le.config')),
	*(f for d in ('faultsweep', 'userspace') for f in (paths.REPO / 'testcases' / d).iterdir()
	  if f.suffix == '.c')}))
BOOT_CODE = recorded.modules('sweep/', 'userspace/', 'kunit/', 'kernel/', 'gates/trees.py')
BOOT_COMPILERS = ('gcc', guest.target('ppc64le').kernel.gcc, 'qemu-system-x86_64',
		  'qemu-system-ppc64')
# Applying patches to the pristine tree and building what they touch.
FIXES_CODE = recorded.modules('gates/fixes.py', 'gates/checkpatch.py', 'gates/validate.py',
			      'gates/sparse.py', 'gates/cross.py', 'kernel/checkpatch.py')
FIXES_COMPILERS = tuple(sorted({b.arch.gcc for b in validate.ARCHES.values()}))


def _kunit_inputs(t: TreeTest, gate: str) -> recorded.Inputs:
	cc = gate.removeprefix('kunit-')
	return _series_inputs(t, (cc, 'qemu-system-x86_64'), (paths.X86_64_CONFIG,), KUNIT_CODE)


def _boot_inputs(t: TreeTest, gate: str) -> recorded.Inputs:
	return _series_inputs(t, BOOT_COMPILERS, BOOT_CONFIGS, BOOT_CODE)


@dataclass(frozen=True)
class Kind:
	"""A gate written once for every tree; failure says what its FAIL means
	({tree}: 'Linux 7.3.x'), run runs it on a tree with the compiler of a
	KUnit gate ('' for the others)."""
	name: str
	stage: Stage
	failure: str
	run: Callable[[TreeTest, str], Outcome]
	needs: tuple[str, ...] = ('tree',)	# gates of the same tree
	# A gate that boots from the tree's converted worktree or moves it
	# waits for the tree's warm-up.
	waits: bool = False
	# When recorded: what the verdict depends on, and what it writes under
	# build/results/ (with the tree's suffix where the gate adds one).
	inputs: Callable[[TreeTest, str], recorded.Inputs] = lambda t, gate: _series_inputs(t, ())
	results_file: Callable[[TreeTest, str], str] = lambda t, gate: ''


def _tree(t: TreeTest, _: str) -> Outcome:
	outcome = tree_step(t.runner, t.kdir, t.force)
	if outcome.exit_status == 0 and not t.runner.dry_run:
		t.warm.add(warmup_jobs(t))
	return outcome


def _mainline(t: TreeTest, _: str) -> Outcome:
	moved = drift(t.kdir)
	if moved:
		# The committed comparison is of the committed conversions' version.
		return Outcome.ok(f'not compared: {moved}')
	return mainline.comparison_step(t.runner, t.ours, t.kdir)


def _sweep_results(t: TreeTest, gate: str) -> str:
	return f'{paths.of_tree(faultsweep.RESULTS, t.kdir).name}/faultsweep.txt'


KINDS: dict[str, Kind] = {k.name: k for k in (
	Kind('tree', Stage.TREE, 'the tree of {tree} with its series could not be made', _tree,
	     needs=('deps',)),
	Kind('report', Stage.CHECKS, 'the checker on {tree} has untriaged findings, or others than '
	     'the committed report', lambda t, _: reports.step(t.runner, t.kdir, jobs=t.jobs)),
	Kind('checkpatch', Stage.CHECKS, "checkpatch --strict reports an error or warning on "
	     "{tree}'s series", lambda t, _: checkpatch.step(
		     t.runner, t.kdir, t.patches, name=f'checkpatch{paths.tree_suffix(t.kdir)}.txt')),
	Kind('fixes', Stage.CHECKS, "{tree}'s fix patches do not apply, are not checkpatch clean "
	     'or do not build cleanly', lambda t, _: fixes.step(
		     t.runner, fixes.FixesRequest(t.kdir, jobs=t.jobs)),
	     inputs=lambda t, _: _series_inputs(t, FIXES_COMPILERS, code=FIXES_CODE,
						patches=t.patches / 'fixes'),
	     results_file=lambda t, _: f'fixes-{t.source.series}.txt'),
	Kind('convert-regen', Stage.CHECKS, "regenerating {tree}'s conversions does not give its "
	     'series', lambda t, _: regen_step(t.runner, t.kdir, t.jobs)),
	Kind('mainline', Stage.CHECKS, "the comparison of {tree}'s own conversions with ours is "
	     'not the committed one', _mainline, needs=('tree', 'tree@default')),
	Kind('builds', Stage.CHECKS, "{tree}'s conversions do not apply to the pristine tree or "
	     'do not build cleanly for their architectures',
	     lambda t, _: builds_step(t.runner, t.kdir, t.jobs),
	     inputs=lambda t, _: _series_inputs(t, FIXES_COMPILERS, code=(
		     *FIXES_CODE, *recorded.modules('gates/trees.py'))),
	     results_file=lambda t, _: f'conversions-{t.source.series}.txt'),
	Kind('sparse', Stage.CHECKS, 'the series adds a sparse or objtool warning on {tree}',
	     lambda t, _: sparse.step(t.runner, t.kdir, t.jobs),
	     inputs=lambda t, _: _series_inputs(t, ('gcc', 'sparse'),
						code=recorded.modules('gates/sparse.py')),
	     results_file=lambda t, _: 'sparse.txt'),
	Kind('cross', Stage.CHECKS, "a cross build of {tree}'s series failed or warned",
	     lambda t, _: cross.step(t.runner, t.kdir, []),
	     inputs=lambda t, _: _series_inputs(t, tuple(a.arch.gcc for a in cross.ARCHES.values()),
						code=recorded.modules('gates/cross.py')),
	     results_file=lambda t, _: 'cross.txt'),
	Kind('kunit', Stage.BOOTS, 'the KUnit kernel of {tree} with its series, built with {cc}, failed in QEMU',
	     lambda t, cc: kunit_step(t.runner, t.kdir, cc, t.jobs, t.accel),
	     inputs=_kunit_inputs,
	     results_file=lambda t, gate: f'{gate}{paths.tree_suffix(t.kdir)}.log'),
	Kind('negative', Stage.BOOTS, 'the negative compile tests did not behave on {tree}',
	     lambda t, _: negative.step(t.runner, paths.kunit_build_dir('gcc', t.kdir))),
	Kind('bisect', Stage.BOOTS, "a commit of {tree}'s series does not build cleanly",
	     lambda t, _: bisect.step(t.runner, t.kdir), needs=('tree', 'kunit-gcc'),
	     inputs=lambda t, _: _series_inputs(t, ('gcc',), (bisect.config_of(),),
						recorded.modules('gates/bisect.py')),
	     results_file=lambda t, _: 'bisect.txt'),
	Kind('validate', Stage.BOOTS, 'a file the conversions of {tree} touch builds with a new '
	     'warning', lambda t, _: validate.step(t.runner, validate.ValidateRequest(
		     t.kdir, t.patches, jobs=t.jobs, accel=t.accel, boot=False, sweep=())),
	     waits=True),
	Kind('sweep', Stage.BOOTS, '{tree} with its series behaves unlike {tree} with the series '
	     'up to its API in the fault or the argument sweep',
	     lambda t, _: sweep_step(t.runner, t.kdir, t.jobs, t.accel), waits=True,
	     inputs=_boot_inputs, results_file=_sweep_results),
	Kind('userspace', Stage.BOOTS, '{tree} with its series behaves unlike {tree} with the '
	     'series up to its API in the userspace tests',
	     lambda t, _: userspace_step(t.runner, t.kdir, t.jobs, t.accel), needs=('sweep',),
	     waits=True, inputs=_boot_inputs,
	     results_file=lambda t, _: f'userspace-{paths.CONVERTED_RUN}{paths.tree_suffix(t.kdir)}.log'),
)}


def warmup_jobs(t: TreeTest) -> list[Job]:
	"""The kernels the tree's boot gates build, in the order they need
	them: the x86_64 KUnit kernel of each compiler (the gcc one is also the
	sweeps' and the userspace tests' converted x86_64 kernel), then the
	ppc64le sweep's converted kernel; none for a gate that will take its
	committed verdict."""
	kinds = t.gates_record.kinds
	boots_gcc = [g for g in ('sweep', 'userspace') if g in kinds]
	srctree = worktree.converted_worktree(t.runner, t.kdir)
	out = []
	for cc in t.gates_record.compilers if 'kunit' in kinds else ():
		users = [f'kunit-{cc}', *(boots_gcc if cc == 'gcc' else ())]
		if all(t.takes_record(g) for g in users):
			continue
		request = suites.KunitRequest(kdir=srctree, toolchain=toolchain(cc), jobs=t.jobs,
					      out=paths.kunit_build_dir(cc, t.kdir))
		out.append(Job(t.name(f'kunit-{cc}'), (
			lambda _, d=request.build_dir: d.mkdir(parents=True, exist_ok=True),
			suites.config_command(request), suites.make_command(request))))
	if 'sweep' in kinds and not t.takes_record('sweep'):
		target = guest.target('ppc64le')
		_, conv = faultsweep.kernels(target, faultsweep.FaultsweepRequest(
			converted_tree=srctree, base='', tree=t.kdir))
		build = faultsweep.kernel_build(target, conv)
		out.append(Job(t.name('sweep'), (configure_step(build, target.config),
						  build.make(Path(target.image).name, jobs=t.jobs))))
	return out


def _gate(t: TreeTest, kind: Kind, gate: str, cc: str = '') -> Gate:
	"""kind's gate named gate (kunit-clang-14: cc clang-14) on the tree."""
	name = t.name(gate)

	def run() -> Outcome:
		if gate.startswith('kunit-'):
			t.warm.wait(name, t.runner.say)
		elif kind.waits:
			jobs = [t.name(f'kunit-{c}') for c in t.gates_record.compilers]
			t.warm.wait(t.name('sweep'), t.runner.say, *jobs)
		if name not in t.recorded():
			return kind.run(t, cc)
		return recorded.step(t.runner, recorded.RecordedGate(
			name, lambda: kind.inputs(t, gate), lambda: kind.run(t, cc),
			kind.results_file(t, gate)), name in t.record)
	needs = []
	for n in kind.needs:
		if n == 'deps':
			needs.append(n)
		elif n == 'tree@default':
			needs.append('tree')		# the default tree's gates have no suffix
		elif _kind_of(n) in t.gates_record.kinds:
			needs.append(t.name(n))
	return Gate(name, kind.failure.format(tree=t.source.describe(), cc=cc), run, tuple(needs))


def gates(t: TreeTest, stage: Stage) -> list[Gate]:
	"""The tree's gates of one stage, in KINDS' order."""
	out = []
	for kind in KINDS.values():
		if kind.stage is not stage or kind.name not in t.gates_record.kinds:
			continue
		if kind.name == 'kunit':
			out += [_gate(t, kind, f'kunit-{cc}', cc) for cc in t.gates_record.compilers]
		else:
			out.append(_gate(t, kind, kind.name))
	return out
