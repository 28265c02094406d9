# SPDX-License-Identifier: GPL-2.0
"""Builds the KUnit kernel with one compiler, boots it in QEMU, checks KTAP.

The kernel is built from kdir's HEAD checked out in the converted worktree
(paths.converted_tree()) with testcases/kernel/x86_64.config, so that the
gcc kernel is also the converted kernel `make validate` boots
(paths.userspace_build_dir).  kunit.py configures it; make builds it,
with output we can follow; QEMU boots it as the other boots do
(exec_command()), and the console's KTAP is parsed here.
"""

import dataclasses
import enum
import json
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from scoped_uaccess.kunit import expected
from scoped_uaccess.kunit import ktap
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import CommandFailed, EnvironmentProblem
from scoped_uaccess.core.outcome import Outcome, format_seconds, relative
from scoped_uaccess.kernel import kbuild, worktree
from scoped_uaccess.kernel.architectures import ARCHES
from scoped_uaccess.kernel.qemu import (ACCELERATORS, AccelChoice, Accelerator,
					AcceleratorParams, boot_command, choose_accelerator)
from scoped_uaccess.kernel.toolchains import Toolchain

ARCH = ARCHES['x86_64']
KUNIT_PY = Path('tools/testing/kunit/kunit.py')
# kunit.py must not leave __pycache__ in a tree it is only reading.
PYTHON_ENV = {'PYTHONDONTWRITEBYTECODE': '1'}


class KunitStatus(enum.Enum):
	PASSED = 'passed'
	TESTS_FAILED = 'tests failed'
	CONFIG_FAILED = 'kernel config failed'
	BUILD_FAILED = 'kernel build failed'
	BOOT_FAILED = 'QEMU run failed'


@dataclass(frozen=True)
class KunitRequest:
	kdir: Path
	toolchain: Toolchain
	kunitconfig: Path = paths.X86_64_CONFIG
	suites: tuple[expected.ExpectedSuite, ...] = expected.EXPECTED_SUITES
	results: Path = paths.RESULTS
	jobs: int = kbuild.JOBS
	accel: AccelChoice = AccelChoice.AUTO
	# Set once kdir is the worktree (run_kunit()): the build directory of
	# the tree it was made from.
	out: Optional[Path] = None

	@property
	def build_dir(self) -> Path:
		return self.out or paths.kunit_build_dir(self.toolchain.name, self.kdir)

	@property
	def stem(self) -> str:
		"""kunit-gcc, kunit-gcc-7.3: the name of its results."""
		return self.build_dir.name


@dataclass
class SuiteSummary:
	name: str
	passed: int = 0
	failed: int = 0
	skipped: int = 0
	incomplete: int = 0

	def __str__(self) -> str:
		text = f'{self.name}: {self.passed} passed, {self.failed} failed, {self.skipped} skipped'
		return text + (f', {self.incomplete} incomplete' if self.incomplete else '')


@dataclass
class KunitResult:
	cc: str
	status: KunitStatus
	accelerator: Accelerator
	wall_seconds: float = 0.0
	build_seconds: float = 0.0
	boot_seconds: float = 0.0
	message: str = ''
	findings: list[expected.Finding] = field(default_factory=list)
	summaries: list[SuiteSummary] = field(default_factory=list)
	accelerator_note: str = ''
	log: Optional[Path] = None
	json: Optional[Path] = None
	run: Optional[ktap.Run] = None


def summarize(run: ktap.Run) -> list[SuiteSummary]:
	summaries = []
	for suite in run.suites:
		s = SuiteSummary(suite.name)
		for case in suite.children:
			if case.status is ktap.Status.PASS:
				s.passed += 1
			elif case.status is ktap.Status.FAIL:
				s.failed += 1
			elif case.status is ktap.Status.SKIP:
				s.skipped += 1
			else:
				s.incomplete += 1
		summaries.append(s)
	return summaries


def _kunit_py(request: KunitRequest, subcommand: str, *extra: str) -> Command:
	return Command((sys.executable, str(KUNIT_PY), subcommand, f'--arch={ARCH.kernel_arch}',
			f'--build_dir={request.build_dir}',
			f'--kunitconfig={request.kunitconfig.resolve()}', *extra),
		       cwd=request.kdir, env=PYTHON_ENV, nice=True)


def config_command(request: KunitRequest) -> Command:
	"""kunit.py config: the kunitconfig, then olddefconfig, in build_dir."""
	return _kunit_py(request, 'config',
			 *(f'--make_options={o}' for o in request.toolchain.make_options))


def make_command(request: KunitRequest) -> Command:
	"""The kernel build kunit.py would run, but with output we can follow."""
	return Command(('make', f'ARCH={ARCH.kernel_arch}', f'O={request.build_dir}',
			*request.toolchain.make_options, f'--jobs={request.jobs}', 'all'),
		       cwd=request.kdir, nice=True)


# What kunit.py exec puts on the command line: run the suites, then reboot.
KUNIT_ARGS = ('kunit.enable=1', 'kunit_shutdown=reboot')


def exec_command(request: KunitRequest, accel: AcceleratorParams) -> Command:
	"""The boot of the KUnit kernel: the project's QEMU command
	(kernel/qemu.py), as the userspace tests and the sweep boot, not
	kunit.py exec.  kunit.py of 7.x asks QEMU for `-accel kvm -accel hvf
	-accel tcg`, hard-coded: where /dev/kvm opens but KVM cannot run the
	guest (nested virtualisation), QEMU takes KVM and aborts on its first
	MSR write.  The accelerator is the one choose_accelerator() probed."""
	return boot_command(ARCH, request.build_dir / ARCH.qemu.kernel_image, None, KUNIT_ARGS,
			    accel)


def run_kunit(runner: Runner, request: KunitRequest) -> KunitResult:
	"""Config, build, boot, parse and check; writes kunit-<cc>.{log,json}."""
	tc = request.toolchain
	if not (request.kdir / KUNIT_PY).is_file():
		raise EnvironmentProblem(f'{request.kdir} has no {KUNIT_PY}',
					 'create the tree with `make tree`')
	if shutil.which(tc.compiler) is None:
		raise EnvironmentProblem(f'compiler {tc.compiler} is not installed',
					 'run `make deps`')
	if not request.kunitconfig.is_file():
		raise EnvironmentProblem(f'{request.kunitconfig} is missing', 'restore it from git')
	result = KunitResult(cc=tc.name, status=KunitStatus.PASSED, accelerator=Accelerator.TCG)
	result.log = request.results / f'{request.stem}.log'
	result.json = request.results / f'{request.stem}.json'
	if not runner.dry_run:
		request.build_dir.mkdir(parents=True, exist_ok=True)
		request.results.mkdir(parents=True, exist_ok=True)
		for stale in (result.log, result.json):
			stale.unlink(missing_ok=True)
	start = time.monotonic()
	srctree = worktree.converted_worktree(runner, request.kdir)
	try:
		_steps(runner, dataclasses.replace(request, kdir=srctree, out=request.build_dir), result)
	finally:
		result.wall_seconds = time.monotonic() - start
		if not runner.dry_run:
			_write_json(request, result)
	return result


def _steps(runner: Runner, request: KunitRequest, result: KunitResult) -> None:
	tc = request.toolchain
	runner.say(f'kunit[{tc.name}]: configuring {request.build_dir}')
	try:
		runner.run(config_command(request), Output.LINES)
	except CommandFailed as e:
		result.status = KunitStatus.CONFIG_FAILED
		result.message = _config_problem(e.output)
		return
	runner.say(f'kunit[{tc.name}]: building with {request.jobs} jobs '
		   f'(log: {request.results}/{request.stem}-build.log)')
	try:
		built = runner.run(make_command(request), Output.LINES, sink=kbuild.build_progress(runner.say),
				   log=request.results / f'{request.stem}-build.log')
		result.build_seconds = built.elapsed
	except CommandFailed as e:
		result.status = KunitStatus.BUILD_FAILED
		result.message = _build_problem(e.output)
		return
	result.accelerator, result.accelerator_note = choose_accelerator(
		runner, request.accel, request.build_dir / ARCH.qemu.kernel_image)
	accel = ACCELERATORS[result.accelerator]
	runner.say(f'kunit[{tc.name}]: booting under {accel.accelerator.value} '
		   f'({result.accelerator_note})')
	booted = runner.run(exec_command(request, accel), Output.LINES, check=False)
	result.boot_seconds = booted.elapsed
	if runner.dry_run:
		return
	assert result.log is not None
	result.log.write_text(booted.output)
	if booted.returncode != 0:
		result.status = KunitStatus.BOOT_FAILED
		result.message = (f'QEMU exited with status {booted.returncode}'
				  + (' (timeout)' if booted.returncode == 124 else ''))
	run = ktap.parse(result.log.read_text(errors='backslashreplace').splitlines())
	result.summaries = summarize(run)
	result.findings = expected.check(run, request.kdir, request.suites)
	result.run = run
	if result.findings and result.status is KunitStatus.PASSED:
		result.status = KunitStatus.TESTS_FAILED
		result.message = f'{len(result.findings)} problem(s), first: {result.findings[0]}'


def _config_problem(output: str) -> str:
	for line in output.splitlines():
		if line.startswith('Missing:'):
			return f'kunitconfig options not satisfiable: {line[len("Missing:"):].strip()}'
	lines = [line for line in output.splitlines() if line.strip()]
	return lines[-1].strip() if lines else 'kunit.py config failed'


def _build_problem(output: str) -> str:
	for line in output.splitlines():
		if ' error: ' in line or line.startswith('make') and 'Error' in line:
			return line.strip()
	lines = [line for line in output.splitlines() if line.strip()]
	return lines[-1].strip() if lines else 'make failed'


def _write_json(request: KunitRequest, result: KunitResult) -> None:
	run = result.run
	data = {
		'cc': result.cc,
		'status': result.status.value,
		'accelerator': result.accelerator.value,
		'accelerator_note': result.accelerator_note,
		'kdir': str(request.kdir),
		'kunitconfig': str(request.kunitconfig),
		'wall_seconds': round(result.wall_seconds, 1),
		'build_seconds': round(result.build_seconds, 1),
		'boot_seconds': round(result.boot_seconds, 1),
		'message': result.message,
		'summary': [vars(s) for s in result.summaries],
		'findings': [{'kind': f.kind.name, 'test': f.test, 'detail': f.detail}
			     for f in result.findings],
		'ktap': run.to_json() if run else None,
	}
	assert result.json is not None
	result.json.write_text(json.dumps(data, indent=2) + '\n')


def step(runner: Runner, request: KunitRequest) -> Outcome:
	"""`make kunit`: run_kunit(), what it found, and a one-line summary."""
	result = run_kunit(runner, request)
	tag = f'kunit[{result.cc}]'
	for summary in result.summaries:
		runner.say(f'{tag}: {summary}')
	for finding in result.findings[:25]:
		runner.say(f'{tag}: FAIL {finding}')
	if len(result.findings) > 25:
		runner.say(f'{tag}: ... {len(result.findings) - 25} more in {relative(result.json)}')
	runner.say(f'{tag}: accelerator {result.accelerator.value} ({result.accelerator_note}); '
		   f'build+boot {format_seconds(result.wall_seconds)} '
		   f'(build {format_seconds(result.build_seconds)}, '
		   f'boot {format_seconds(result.boot_seconds)})')
	if result.log and result.log.exists():
		runner.say(f'{tag}: results: {relative(result.log)}, {relative(result.json)}')
	counts = '; '.join(str(s) for s in result.summaries)
	if result.status is KunitStatus.PASSED:
		return Outcome.ok(f'{counts}; {result.accelerator.value}, '
				  f'{format_seconds(result.wall_seconds)}')
	return Outcome.findings(f'{result.status.value}: {result.message}')
