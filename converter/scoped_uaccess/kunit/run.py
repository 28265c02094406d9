# SPDX-License-Identifier: GPL-2.0
"""Builds the KUnit kernel with one compiler, boots it in QEMU, checks KTAP."""

import enum
import json
import os
import re
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from scoped_uaccess.kunit import expected
from scoped_uaccess.kunit import ktap
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import CommandFailed, EnvironmentProblem
from scoped_uaccess.kernel.toolchains import Toolchain

ARCH = 'x86_64'
KUNIT_PY = Path('tools/testing/kunit/kunit.py')
# kunit.py must not leave __pycache__ in a tree it is only reading.
PYTHON_ENV = {'PYTHONDONTWRITEBYTECODE': '1'}
# A panic reboots at once, and QEMU's -no-reboot turns that into an exit
# instead of waiting for kunit.py's timeout.
KERNEL_ARGS = ('panic=-1',)
PROGRESS_SECONDS = 20.0


class Accelerator(enum.Enum):
	KVM = 'KVM'
	TCG = 'TCG'


class AccelChoice(enum.Enum):
	"""What the user asked for (`make kunit ACCEL=...`)."""
	AUTO = 'auto'	# KVM if /dev/kvm opens and a probe boot works, else TCG
	KVM = 'kvm'
	TCG = 'tcg'


@dataclass(frozen=True)
class AcceleratorParams:
	"""How QEMU runs under one accelerator; TCG is far slower."""
	accelerator: Accelerator
	qemu_args: tuple[str, ...]
	timeout: int		# seconds for boot plus all tests


ACCELERATORS = {
	Accelerator.KVM: AcceleratorParams(Accelerator.KVM, ('-cpu max', '-enable-kvm'), 300),
	Accelerator.TCG: AcceleratorParams(Accelerator.TCG, ('-cpu max',), 900),
}
# A working KVM prints the kernel banner within a second or two. Nested KVM
# can be present yet unusable (QEMU aborts on MSRs, or the guest hangs in
# the decompressor), so AUTO first boots the kernel once without tests.
KVM_PROBE_SECONDS = 20
KVM_PROBE_BANNER = 'Linux version'


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
	kunitconfig: Path = paths.KUNITCONFIG
	suites: tuple[expected.ExpectedSuite, ...] = expected.EXPECTED_SUITES
	results: Path = paths.RESULTS
	jobs: int = os.cpu_count() or 1
	accel: AccelChoice = AccelChoice.AUTO

	@property
	def build_dir(self) -> Path:
		return paths.OUT / f'kunit-{self.toolchain.name}'


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


def kvm_openable() -> bool:
	"""Whether /dev/kvm opens read/write for us."""
	try:
		os.close(os.open('/dev/kvm', os.O_RDWR | os.O_CLOEXEC))
		return True
	except OSError:
		return False


def kvm_probe_command(kernel: Path) -> Command:
	"""Boots kernel under KVM with tests off; it panics without a rootfs."""
	qemu_args = [w for a in ACCELERATORS[Accelerator.KVM].qemu_args for w in a.split()]
	return Command(('timeout', str(KVM_PROBE_SECONDS), f'qemu-system-{ARCH}', '-nodefaults',
			'-m', '256', '-no-reboot', '-nographic', '-serial', 'stdio',
			'-bios', 'qboot.rom', '-kernel', str(kernel),
			'-append', 'console=ttyS0 panic=-1 kunit.enable=0', *qemu_args),
		       mutates=False)


def choose_accelerator(runner: Runner, choice: AccelChoice,
		       kernel: Path) -> tuple[Accelerator, str]:
	"""The accelerator to boot with, and a note on why."""
	if choice is AccelChoice.TCG:
		return Accelerator.TCG, 'TCG requested'
	if choice is AccelChoice.KVM:
		return Accelerator.KVM, 'KVM requested'
	if not kvm_openable():
		return Accelerator.TCG, '/dev/kvm cannot be opened read/write'
	if runner.dry_run:
		return Accelerator.KVM, '/dev/kvm opens; dry run, so not probed'
	probe = runner.run(kvm_probe_command(kernel), Output.CAPTURE, check=False)
	if KVM_PROBE_BANNER in probe.output:
		return Accelerator.KVM, '/dev/kvm is usable'
	problem = next((line.strip() for line in (probe.stderr + probe.output).splitlines()
			if 'error' in line.lower()), '')
	if not problem:
		problem = (f'no kernel banner in {KVM_PROBE_SECONDS}s'
			   if probe.returncode == 124 else f'QEMU exited with {probe.returncode}')
	return Accelerator.TCG, f'KVM unusable, probe boot failed: {problem}'


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
	return Command((sys.executable, str(KUNIT_PY), subcommand, f'--arch={ARCH}',
			f'--build_dir={request.build_dir}',
			f'--kunitconfig={request.kunitconfig.resolve()}', *extra),
		       cwd=request.kdir, env=PYTHON_ENV, nice=True)


def make_command(request: KunitRequest) -> Command:
	"""The kernel build kunit.py would run, but with output we can follow."""
	return Command(('make', f'ARCH={ARCH}', f'O={request.build_dir}',
			*request.toolchain.make_options, f'--jobs={request.jobs}', 'all'),
		       cwd=request.kdir, nice=True)


def exec_command(request: KunitRequest, accel: AcceleratorParams) -> Command:
	return _kunit_py(request, 'exec', f'--timeout={accel.timeout}', '--raw_output=all',
			 *(f'--qemu_args={a}' for a in accel.qemu_args),
			 *(f'--kernel_args={a}' for a in KERNEL_ARGS))


_KBUILD_STEP = re.compile(r'^  [A-Z][A-Z0-9_-]* +\S')


def build_progress(say: Callable[[str], None]) -> Callable[[str], None]:
	"""A line sink: kbuild's quiet steps become a periodic status line,
	everything else (warnings, errors) is shown as it comes."""
	state = {'steps': 0, 'last': '', 'start': time.monotonic(), 'shown': time.monotonic()}

	def sink(line: str) -> None:
		now = time.monotonic()
		if _KBUILD_STEP.match(line):
			state['steps'] += 1
			state['last'] = line.strip()
		elif line.strip():
			say(line.rstrip())
		if now - state['shown'] >= PROGRESS_SECONDS:
			state['shown'] = now
			elapsed = int(now - state['start'])
			say(f'  build: {state["steps"]} steps in {elapsed // 60}m{elapsed % 60:02d}s, '
			    f'now {state["last"]}')
	return sink


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
	result.log = request.results / f'kunit-{tc.name}.log'
	result.json = request.results / f'kunit-{tc.name}.json'
	if not runner.dry_run:
		request.build_dir.mkdir(parents=True, exist_ok=True)
		request.results.mkdir(parents=True, exist_ok=True)
		for stale in (result.log, result.json):
			stale.unlink(missing_ok=True)
	start = time.monotonic()
	try:
		_steps(runner, request, result)
	finally:
		result.wall_seconds = time.monotonic() - start
		if not runner.dry_run:
			_write_json(request, result)
	return result


def _steps(runner: Runner, request: KunitRequest, result: KunitResult) -> None:
	tc = request.toolchain
	runner.say(f'kunit[{tc.name}]: configuring {request.build_dir}')
	try:
		runner.run(_kunit_py(request, 'config',
				     *(f'--make_options={o}' for o in tc.make_options)), Output.LINES)
	except CommandFailed as e:
		result.status = KunitStatus.CONFIG_FAILED
		result.message = _config_problem(e.output)
		return
	runner.say(f'kunit[{tc.name}]: building with {request.jobs} jobs '
		   f'(log: {request.results}/kunit-{tc.name}-build.log)')
	try:
		built = runner.run(make_command(request), Output.LINES, sink=build_progress(runner.say),
				   log=request.results / f'kunit-{tc.name}-build.log')
		result.build_seconds = built.elapsed
	except CommandFailed as e:
		result.status = KunitStatus.BUILD_FAILED
		result.message = _build_problem(e.output)
		return
	result.accelerator, result.accelerator_note = choose_accelerator(
		runner, request.accel, request.build_dir / 'arch/x86/boot/bzImage')
	accel = ACCELERATORS[result.accelerator]
	runner.say(f'kunit[{tc.name}]: booting under {accel.accelerator.value} '
		   f'({result.accelerator_note})')
	booted = runner.run(exec_command(request, accel), Output.LINES, check=False)
	result.boot_seconds = booted.elapsed
	if runner.dry_run:
		return
	console = request.build_dir / 'test.log'
	assert result.log is not None
	if console.is_file():
		shutil.copyfile(console, result.log)
	else:
		result.log.write_text(booted.output)
	if booted.returncode != 0:
		result.status = KunitStatus.BOOT_FAILED
		result.message = f'kunit.py exec exited with status {booted.returncode}'
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
