# SPDX-License-Identifier: GPL-2.0
"""`make test`: the list of gates, in order, and the table it ends with.

Each gate calls the same step function as its own `make` target, with the
options of the test run; nothing here parses arguments.
"""

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from scoped_uaccess.convert import targets as convert_targets
from scoped_uaccess.convert.driver import ConvertRequest
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Runner
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.core.outcome import Outcome, written
from scoped_uaccess.gates import (bisect, checkpatch, cross, current, negative, recorded, reports,
				  sparse, validate)
from scoped_uaccess.sweep import run as faultsweep
from scoped_uaccess.gates.runner import Background, Gate, GateStatus, run_gates, summary_table
from scoped_uaccess.gates.warmup import Job, Warmup, configure_step
from scoped_uaccess.kernel import deps, kbuild, sources, tree, worktree
from scoped_uaccess.kernel.series import read_series
from scoped_uaccess.kernel.qemu import AccelChoice
from scoped_uaccess.kernel.toolchains import toolchain
from scoped_uaccess.kunit import run as kunit_run
from scoped_uaccess.sweep import boot as sweep_boot

TEST_COMPILERS = ('gcc', 'clang-14', 'clang-19')
# The compilers of the 7.3 fixes and builds gates: validate's architectures.
FIXES_COMPILERS = tuple(sorted({b.arch.gcc for b in validate.ARCHES.values()}))
# The KUnit gates of the other compilers are recorded like the build gates
# (gates/recorded.py): their kernels are used by no other gate, and two
# clang builds of the KUnit kernel are a quarter of a cold run's processor
# time.  The gcc kernel is validate's converted kernel: built anyway.
KUNIT_RECORDED = tuple(f'kunit-{cc}' for cc in TEST_COMPILERS if cc != 'gcc')
# What decides a KUnit gate's verdict besides the tree, the series, the
# compiler, QEMU and recorded.CODE: the kunitconfig, and the code that
# configures and boots the kernel and judges its KTAP.  recorded.Inputs
# digests them as the gate's configuration files.
KUNIT_FILES = (paths.X86_64_CONFIG, *(recorded.PACKAGE / p for p in (
	'kunit/run.py', 'kunit/ktap.py', 'kunit/expected.py', 'kernel/qemu.py',
	'kernel/toolchains.py', 'core/command.py')))
# The 7.3 tree's boots are recorded too: its KUnit kernel, the fault and
# argument sweeps and the userspace tests, on two kernels (x86_64 and
# ppc64le) of their own, about a quarter of a cold run's processor time.
# validate runs the same programs on build/linux's kernels in every run.
BOOTS_7_3 = ('kunit-7.3', 'sweep-7.3', 'userspace-7.3')
# The recorded gates: `test --record` runs them and what they need.
RECORDED = ('fixes-7.3', 'builds-7.3', 'sparse', 'cross', 'bisect', *KUNIT_RECORDED, *BOOTS_7_3)
# What decides those boots besides the tree, the series, the compilers,
# QEMU and recorded.CODE: the configurations, the programs booted, and
# every module that builds, boots or compares (digested as the gates'
# configuration files).
BOOT_FILES_7_3 = tuple(sorted({
	*(paths.REPO / 'testcases' / 'kernel' / c for c in ('x86_64.config', 'faultsweep-ppc64le.config')),
	*(f for d in ('faultsweep', 'userspace') for f in (paths.REPO / 'testcases' / d).iterdir()
	  if f.suffix == '.c'),
	*(f for d in ('sweep', 'userspace', 'kunit', 'kernel') for f in (recorded.PACKAGE / d).glob('*.py')),
	recorded.PACKAGE / 'gates' / 'current.py', recorded.PACKAGE / 'core' / 'command.py'}))
# The warm-up jobs of build/linux (warmup_jobs()), which validate waits for.
WARM_GATES = (*(f'kunit-{cc}' for cc in TEST_COMPILERS), 'validate')
CORPUS_RUNNER = paths.UNIT_TESTS / 'cocci_corpus.py'
UNIT_RUNNER = paths.UNIT_TESTS / 'run.py'
HOSTILE_RUNNER = paths.UNIT_TESTS / 'hostile_suite.py'


@dataclass(frozen=True)
class TestOptions:
	kdir: Path = paths.DEFAULT_KDIR
	patches: Path = paths.PATCHES
	accel: AccelChoice = AccelChoice.AUTO
	force: bool = False
	jobs: int = kbuild.JOBS
	# Run these recorded gates (gates/recorded.py, names of RECORDED) and
	# what they need only, building for real, and commit their verdicts
	# under reports/gates/.
	record: tuple[str, ...] = ()


def unittest_step(runner: Runner) -> Outcome:
	"""The Python unit tests and pyflakes over the package."""
	run = runner.run(Command((sys.executable, str(UNIT_RUNNER)), mutates=False), check=False)
	if run.returncode != 0:
		return Outcome.findings('unit tests failed (see above)')
	flakes = runner.run(Command((sys.executable, '-m', 'pyflakes', 'scoped_uaccess', 'tests',
				     'scoped-uaccess'), cwd=paths.REPO / 'converter', mutates=False),
			    check=False)
	if flakes.returncode != 0:
		return Outcome.findings('pyflakes reports problems (see above)')
	return Outcome.ok('unit tests passed, pyflakes clean')


def hostile_step(runner: Runner) -> Outcome:
	"""The hostile-input suite testcases/hostile: the check command on bad
	names, bytes, trees, options, signals and histories."""
	run = runner.run(Command((sys.executable, str(HOSTILE_RUNNER)), mutates=False), check=False)
	if run.returncode != 0:
		return Outcome.findings('a hostile-input case did not give its expected status and '
					'output (see above)')
	return Outcome.ok('every hostile-input case as expected')


def corpus_step(runner: Runner, kdir: Path) -> Outcome:
	"""The checker corpus testcases/cocci: the CLI and `make coccicheck`."""
	run = runner.run(Command((sys.executable, str(CORPUS_RUNNER)), env={'KDIR': str(kdir)},
				 mutates=False), check=False)
	if run.returncode != 0:
		return Outcome.findings('the checker corpus did not give the expected findings '
					'(see above)')
	return Outcome.ok('checker corpus as expected')


def warmup_jobs(runner: Runner, kdir: Path, compilers: tuple[str, ...], jobs: int,
		kunit_gate: Callable[[str], str], sweep_gate: str) -> list[Job]:
	"""The kernels later gates of kdir build, in the order they need them:
	the x86_64 KUnit kernel of each compiler (for the gate kunit_gate(cc)),
	then the ppc64le sweep's converted kernel (for sweep_gate); all from
	kdir's converted worktree, in kdir's build directories."""
	srctree = worktree.converted_worktree(runner, kdir)
	out = []
	for cc in compilers:
		request = kunit_run.KunitRequest(kdir=srctree, toolchain=toolchain(cc), jobs=jobs,
						 out=paths.kunit_build_dir(cc, kdir))
		out.append(Job(kunit_gate(cc), (
			lambda _, d=request.build_dir: d.mkdir(parents=True, exist_ok=True),
			kunit_run.config_command(request), kunit_run.make_command(request))))
	t = sweep_boot.target('ppc64le')
	_, conv = faultsweep.kernels(t, faultsweep.FaultsweepRequest(
		converted_tree=srctree, base='', tree=kdir))
	build = faultsweep.kernel_build(t, conv)
	out.append(Job(sweep_gate, (configure_step(build, t.config),
				    build.make(Path(t.image).name, jobs=jobs))))
	return out


def record_current(runner: Runner, name: str, inputs: recorded.Inputs) -> bool:
	"""Whether the recorded gate name will take its committed verdict
	(recorded.step()'s test, asked before the gate runs)."""
	old = recorded.load(name)
	return (old is not None and old.get('exit_status') == 0
		and not recorded.changed(old, recorded.fingerprint(runner, inputs)))


def gates(runner: Runner, o: TestOptions, warm: Warmup) -> list[Gate]:
	def tree_then_warmup() -> Outcome:
		outcome = tree.step(runner, tree.TreeRequest(o.kdir, o.patches, o.force))
		if outcome.exit_status == 0 and not runner.dry_run:
			# A KUnit kernel whose gate takes its committed verdict is not built.
			built = tuple(cc for cc in TEST_COMPILERS
				      if f'kunit-{cc}' in o.record or not record_current(runner, f'kunit-{cc}',
									 kunit_inputs(cc)))
			warm.start(warmup_jobs(runner, o.kdir, built, o.jobs,
					       lambda cc: f'kunit-{cc}', 'validate'))
		return outcome

	def kunit_gate(cc: str) -> Outcome:
		warm.wait(f'kunit-{cc}', runner.say)
		return kunit_run.step(runner, kunit_run.KunitRequest(
			kdir=o.kdir, toolchain=toolchain(cc), accel=o.accel, jobs=o.jobs))

	def tree_7_3() -> Outcome:
		outcome = current.tree_step(runner, o.force)
		# 7.3's gates boot the gcc KUnit kernel only; not built when all
		# three boot gates will take their committed verdicts.
		if outcome.exit_status == 0 and not runner.dry_run and (
				set(BOOTS_7_3) & set(o.record) or not all(
					record_current(runner, name, boot_inputs_7_3())
					for name in BOOTS_7_3)):
			warm.add(warmup_jobs(runner, current.KDIR, ('gcc',), o.jobs,
					     lambda _: 'kunit-7.3', 'sweep-7.3'))
		return outcome

	def kunit_7_3() -> Outcome:
		warm.wait('kunit-7.3', runner.say)
		return current.kunit_step(runner, jobs=o.jobs, accel=o.accel)

	def sweep_7_3() -> Outcome:
		warm.wait('sweep-7.3', runner.say)
		return current.sweep_step(runner, jobs=o.jobs, accel=o.accel)

	def validate_gate() -> Outcome:
		# validate moves the converted worktree the warm-up of build/linux
		# builds from (the 7.3 jobs build from a worktree of their own).
		for job in WARM_GATES:
			warm.wait(job, runner.say)
		return validate.step(runner, validate.ValidateRequest(o.kdir, o.patches, jobs=o.jobs,
								      accel=o.accel))

	def kept(name: str, inputs: Callable[[], recorded.Inputs], run: Callable[[], Outcome],
		 results_file: str) -> Callable[[], Outcome]:
		gate = recorded.RecordedGate(name, inputs, run, results_file)
		return lambda: recorded.step(runner, gate, name in o.record)

	def series_inputs(compilers: tuple[str, ...], configs: tuple[Path, ...] = ()) -> recorded.Inputs:
		return recorded.Inputs(o.kdir, tuple(read_series(o.patches)), compilers, configs)

	def kunit_inputs(cc: str) -> recorded.Inputs:
		return recorded.Inputs(o.kdir, tuple(read_series(o.patches)),
				       (cc, 'qemu-system-x86_64'), KUNIT_FILES)

	def boot_inputs_7_3() -> recorded.Inputs:
		return recorded.Inputs(current.KDIR, tuple(read_series(sources.patches_for(current.KDIR))),
				       ('gcc', 'powerpc64le-linux-gnu-gcc', 'qemu-system-x86_64',
					'qemu-system-ppc64'), BOOT_FILES_7_3)

	def inputs_7_3(patches: Path) -> recorded.Inputs:
		return recorded.Inputs(current.KDIR, tuple(read_series(patches)), FIXES_COMPILERS)

	def kunit_run_of(cc: str) -> Callable[[], Outcome]:
		if f'kunit-{cc}' not in KUNIT_RECORDED:
			return lambda: kunit_gate(cc)
		return kept(f'kunit-{cc}', lambda: kunit_inputs(cc), lambda: kunit_gate(cc),
			    f'kunit-{cc}.log')

	kunit = [Gate(f'kunit-{cc}', f'KUnit in QEMU failed under {cc}', kunit_run_of(cc),
		      needs=('tree',))
		 for cc in TEST_COMPILERS]
	conversion = ConvertRequest(tree=o.kdir, out=convert_targets.REGEN_OUT, jobs=o.jobs)
	return [
		Gate('deps', 'required Debian packages missing', lambda: deps.step(runner)),
		# The tree first: the warm-up starts from it and builds on the
		# second core while the unit tests and the hostile suite run.
		Gate('tree', 'kernel tree could not be prepared', tree_then_warmup, needs=('deps',)),
		Gate('unittest', 'converter Python unit tests or pyflakes failed',
		     lambda: unittest_step(runner)),
		Gate('hostile', 'the check command does not give the expected status and output '
		     'on a case of testcases/hostile', lambda: hostile_step(runner), needs=('deps',)),
		Gate('cocci', 'the checker corpus does not give the expected findings',
		     lambda: corpus_step(runner, o.kdir), needs=('deps',)),
		Gate('report', 'the checker on the tree has untriaged findings, or others than the '
		     'committed report', lambda: reports.step(runner, o.kdir, jobs=o.jobs),
		     needs=('tree',)),
		Gate('tree-7.3', "Debian's 7.3 tree could not be made, or its series is not "
		     'checkpatch clean', tree_7_3, needs=('deps',)),
		Gate('report-7.3', 'the checker on 7.3 has untriaged findings, or others than the '
		     'committed report', lambda: reports.step(runner, current.KDIR, jobs=o.jobs),
		     needs=('tree-7.3',)),
		Gate('fixes-7.3', "7.3's fix patches do not apply, are not checkpatch clean or do "
		     'not build cleanly', kept('fixes-7.3', lambda: inputs_7_3(sources.patches_for(current.KDIR) / 'fixes'),
			  lambda: current.fixes_step(runner, jobs=o.jobs), 'fixes-7.3.txt'),
		     needs=('tree-7.3',)),
		Gate('convert-regen-7.3', "regenerating 7.3's conversions does not give "
		     "patches/linux-7.3/, or the comparison with mainline's conversions is stale",
		     lambda: current.regen_step(runner, jobs=o.jobs), needs=('tree', 'tree-7.3')),
		Gate('builds-7.3', "7.3's conversions do not apply to the pristine tree or do not "
		     'build cleanly for their architectures',
		     kept('builds-7.3', lambda: inputs_7_3(sources.patches_for(current.KDIR)),
			  lambda: current.builds_step(runner, jobs=o.jobs), 'conversions-7.3.txt'),
		     needs=('tree-7.3',)),
		*kunit,
		Gate('negative', 'negative compile tests did not behave',
		     lambda: negative.step(runner, paths.kunit_build_dir('gcc')), needs=('tree',)),
		Gate('sparse', 'new sparse/objtool warnings', kept('sparse', lambda: series_inputs(('gcc', 'sparse')),
				lambda: sparse.step(runner, o.kdir, o.jobs), 'sparse.txt'),
		     needs=('tree',)),
		Gate('checkpatch', 'checkpatch --strict reports an error or warning',
		     lambda: checkpatch.step(runner, o.kdir, o.patches), needs=('tree',)),
		Gate('cross', 'a cross build of the series failed or warned',
		     kept('cross', lambda: series_inputs(tuple(a.arch.gcc for a in cross.ARCHES.values())),
			  lambda: cross.step(runner, o.kdir, []), 'cross.txt'),
		     needs=('tree',)),
		Gate('bisect', 'a commit of the series does not build cleanly',
		     kept('bisect', lambda: series_inputs(('gcc',), (bisect.config_of(),)),
			  lambda: bisect.step(runner, o.kdir), 'bisect.txt'),
		     needs=('tree', 'kunit-gcc')),
		Gate('convert-regen', 'regenerating the conversions does not give patches/',
		     lambda: convert_targets.regen_step(runner, conversion, o.patches),
		     needs=('tree',)),
		Gate('validate', 'a converted file builds with a new warning, or the converted '
		     'kernel behaves unlike baseline',
		     validate_gate,
		     needs=('tree',)),
		# Last: their kernels are warmed up after those of build/linux.
		Gate('kunit-7.3', 'the KUnit kernel of 7.3 with its series failed in QEMU, with '
		     "-cpu max or on kunit.py's x86_64 CPU",
		     kept('kunit-7.3', boot_inputs_7_3, kunit_7_3, 'kunit-gcc-7.3.log'),
		     needs=('tree-7.3',)),
		Gate('sweep-7.3', '7.3 with its series behaves unlike 7.3 with the series up to its '
		     'API in the fault sweep',
		     kept('sweep-7.3', boot_inputs_7_3, sweep_7_3, 'faultsweep-7.3/faultsweep.txt'),
		     needs=('kunit-7.3',)),
		Gate('userspace-7.3', '7.3 with its series behaves unlike 7.3 with the series up to '
		     'its API in the userspace tests',
		     kept('userspace-7.3', boot_inputs_7_3,
			  lambda: current.userspace_step(runner, jobs=o.jobs, accel=o.accel),
			  'userspace-converted-7.3.log'),
		     needs=('sweep-7.3',)),
	]


def selected(all_gates: list[Gate], record: tuple[str, ...]) -> list[Gate]:
	"""Every gate; with record, those recorded gates and what they need."""
	if not record:
		return all_gates
	unknown = [name for name in record if name not in RECORDED]
	if unknown:
		raise UsageError(f'not a recorded gate: {", ".join(unknown)}',
				 f'name one of {", ".join(RECORDED)}, or none for all')
	by_name = {g.name: g for g in all_gates}
	wanted, todo = set(), list(record)
	while todo:
		name = todo.pop()
		if name not in wanted:
			wanted.add(name)
			todo.extend(by_name[name].needs)
	return [g for g in all_gates if g.name in wanted]


def step(runner: Runner, o: TestOptions) -> Outcome:
	"""Every gate; the table goes to stdout and build/results/test-summary.txt."""
	warm = Warmup()
	try:
		run = run_gates(selected(gates(runner, o, warm), o.record), runner.say,
				warm.cpu_total)
	finally:
		warm.stop()
	table = summary_table(run, Background(tuple(warm.cpu.items())))
	written(paths.RESULTS / 'test-summary.txt', table + '\n')
	print(table, flush=True)
	failed = [r.gate.name for r in run.results if r.status is not GateStatus.PASS]
	return Outcome(run.exit_status, f'gates not passed: {", ".join(failed)}' if failed else '')

