# SPDX-License-Identifier: GPL-2.0
"""Boots a kernel with the userspace syscall tests in an initramfs; compares two runs.

The static program testcases/userspace/uaccess_syscalls.c drives the
syscalls whose kernel paths use user access regions with good and bad
pointers and prints one KTAP result per check, with the errno it saw as
the result's comment. It runs from /init after the KUnit suites ran at
boot, so one console log holds both. Two kernels behave alike when every
check has the same status and the same errno in both logs.
"""

import enum
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from scoped_uaccess.kernel import cpio
from scoped_uaccess.kunit import ktap
from scoped_uaccess.kunit import run as kunit_run
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import CommandFailed, EnvironmentProblem, UsageError
from scoped_uaccess.kunit.run import AccelChoice, Accelerator
from scoped_uaccess.kernel.toolchains import GCC, Toolchain

SOURCE = paths.REPO / 'testcases' / 'userspace' / 'uaccess_syscalls.c'
CONFIG = paths.REPO / 'testcases' / 'kernel' / 'userspace.config'
PROGRAM = 'uaccess_syscalls'
CFLAGS = ('-static', '-O2', '-Wall', '-Werror')
BUSYBOX = Path('/bin/busybox')
# /init frames the program's output with these lines on the console.
BEGIN_MARKER = '# uaccess-init: begin'
END_MARKER = '# uaccess-init: exit status '
_END = re.compile(r'^# uaccess-init: exit status (?P<status>\d+)\s*$')
# The first line of a WARN() splat.
_KERNEL_WARNING = re.compile(r'WARNING: CPU: \d+ PID: \d+')
_BENCH = re.compile(r'^# bench (?P<name>\S+) iterations=(?P<iterations>\d+) '
		    r'ns_per_call=(?P<ns>[\d.]+) tsc_per_call=(?P<tsc>[\d.]+)\s*$')

INIT_SCRIPT = f'''#!/bin/busybox sh
# /init of the userspace test initramfs, written by
# converter/scoped_uaccess/kunit/userspace.py. The kernel passes UACCESS_MODE and
# UACCESS_ITERATIONS from its command line in the environment.
bb=/bin/busybox
$bb mount -t proc proc /proc
$bb mount -t sysfs sysfs /sys
$bb mount -t devtmpfs devtmpfs /dev
$bb mount -t tmpfs tmpfs /tmp
# The KUnit suites have run. From here the console shows warnings and worse
# only, so no info message (a late driver probe) splits a result line.
echo 5 > /proc/sys/kernel/printk
echo '{BEGIN_MARKER}'
/bin/{PROGRAM}
echo "{END_MARKER}$?"
# -no-reboot turns the reboot into QEMU exiting (the kernel cannot power off
# without ACPI power management).
$bb reboot -f
'''


class Mode(enum.Enum):
	"""What the program does (UACCESS_MODE)."""
	TEST = 'test'		# the checks
	BENCH = 'bench'		# time the hot syscalls
	ALL = 'all'		# both


@dataclass(frozen=True)
class QemuMachine:
	"""How one architecture boots in QEMU (kunit's qemu_configs, for us)."""
	arch: str
	qemu: str
	kernel_image: str		# relative to the build directory
	qemu_args: tuple[str, ...]
	console: str


X86_64 = QemuMachine(arch='x86_64', qemu='qemu-system-x86_64',
		     kernel_image='arch/x86/boot/bzImage',
		     # qboot boots faster than SeaBIOS and leaves the console alone.
		     qemu_args=('-nodefaults', '-m', '512', '-nographic', '-no-reboot',
				'-serial', 'stdio', '-bios', 'qboot.rom'),
		     console='console=ttyS0')
# A panic reboots at once, which -no-reboot turns into QEMU exiting.
KERNEL_ARGS = ('panic=-1',)


class RunStatus(enum.Enum):
	PASSED = 'passed'
	TESTS_FAILED = 'tests failed'
	INCOMPLETE = 'incomplete'	# no end marker, crash, or truncated KTAP
	CONFIG_FAILED = 'kernel config failed'
	BUILD_FAILED = 'kernel build failed'
	BOOT_FAILED = 'QEMU run failed'


@dataclass(frozen=True)
class UserspaceRequest:
	"""One kernel tree to build and boot with the tests."""
	kdir: Path
	name: str			# names build/out/user-<name> and the results
	mode: Mode = Mode.TEST
	iterations: int = 1000
	accel: AccelChoice = AccelChoice.AUTO
	toolchain: Toolchain = GCC
	jobs: int = 2
	config: Path = CONFIG
	machine: QemuMachine = X86_64
	build: bool = True		# False: boot the kernel already built

	@property
	def build_dir(self) -> Path:
		return paths.OUT / f'user-{self.name}'

	@property
	def kernel(self) -> Path:
		return self.build_dir / self.machine.kernel_image

	@property
	def results_stem(self) -> str:
		"""userspace-<name>, plus the mode when it is not the checks alone."""
		return f'userspace-{self.name}' + ('' if self.mode is Mode.TEST else f'-{self.mode.value}')

	@property
	def work_dir(self) -> Path:
		"""Where the program and the initramfs are built."""
		return self.build_dir / 'userspace'


@dataclass(frozen=True)
class Check:
	"""One userspace check's result line."""
	name: str
	status: ktap.Status
	outcome: str		# the result's comment: errno=EFAULT, signal=SIGSEGV


@dataclass(frozen=True)
class Bench:
	name: str
	iterations: int
	ns_per_call: float
	tsc_per_call: float


@dataclass
class Console:
	"""A console log split into the kernel's KUnit run and the program's run."""
	kunit: ktap.Run
	user: ktap.Run
	exit_status: Optional[int]	# the program's, from /init; None if never seen
	benches: list[Bench] = field(default_factory=list)
	warnings: list[str] = field(default_factory=list)	# kernel WARN()s in the log

	@property
	def checks(self) -> dict[str, Check]:
		return {t.name: Check(t.name, t.status or ktap.Status.INCOMPLETE, t.comment)
			for t in self.user.root.children if not t.name.startswith('bench.')}

	def problems(self) -> list[str]:
		"""Why this run does not pass on its own, empty when it does."""
		found = []
		if self.exit_status is None:
			found.append('the program never finished (no exit status from /init)')
		elif self.exit_status != 0:
			found.append(f'the program exited with status {self.exit_status}')
		found += [f'userspace KTAP: {e}' for e in self.user.errors]
		found += [f'KUnit KTAP: {e}' for e in self.kunit.errors]
		found += [f'console: {line}' for line in self.kunit.crash_lines + self.user.crash_lines]
		found += [f'console: {line}' for line in self.warnings]
		for test in self.user.root.children:
			if test.status is not ktap.Status.PASS:
				found.append(f'not ok {test.name}' + (f' # {test.comment}' if test.comment else ''))
		for path, test in self.kunit.root.walk():
			if not test.children and test.status not in (ktap.Status.PASS, ktap.Status.SKIP):
				found.append(f'KUnit {".".join(path)}: {test.status.value if test.status else "?"}')
		return found


def parse_console(lines: list[str]) -> Console:
	"""Splits a console log at /init's markers and parses both halves."""
	lines = ktap.strip_console(lines)
	begin = next((i for i, line in enumerate(lines) if line.strip() == BEGIN_MARKER), None)
	if begin is None:
		return Console(ktap.parse(lines), ktap.parse([]), None)
	end = next((i for i in range(begin + 1, len(lines)) if _END.match(lines[i].strip())), None)
	user_lines = lines[begin + 1:end]
	status = int(_END.match(lines[end].strip()).group('status')) if end is not None else None
	benches = [Bench(m.group('name'), int(m.group('iterations')), float(m.group('ns')),
			 float(m.group('tsc')))
		   for m in (_BENCH.match(line.strip()) for line in user_lines) if m]
	user = ktap.parse(user_lines)
	user.errors += [line.strip() for line in user_lines if line.startswith('Bail out!')]
	warnings = [line.strip() for line in lines if _KERNEL_WARNING.search(line)]
	return Console(ktap.parse(lines[:begin]), user, status, benches, warnings)


def parse_log(path: Path) -> Console:
	return parse_console(path.read_text(errors='backslashreplace').splitlines())


# ---- comparing two runs ----

class DiffKind(enum.Enum):
	ONLY_BASELINE = 'only in the baseline run'
	ONLY_CONVERTED = 'only in the converted run'
	STATUS = 'status differs'
	OUTCOME = 'result differs'
	INCOMPLETE = 'run incomplete'


@dataclass(frozen=True)
class Difference:
	kind: DiffKind
	test: str
	baseline: str = ''
	converted: str = ''

	def __str__(self) -> str:
		text = f'{self.test}: {self.kind.value}'
		if self.baseline or self.converted:
			text += f' (baseline: {self.baseline or "-"}; converted: {self.converted or "-"})'
		return text


def _describe(check: Check) -> str:
	return f'{"ok" if check.status is ktap.Status.PASS else check.status.value} # {check.outcome}'


def compare(baseline: Console, converted: Console) -> list[Difference]:
	"""Where the converted kernel's run differs from the baseline's: the set of
	userspace checks, each one's status and result (errno or signal), and
	the KUnit cases of the suites both kernels have. A suite only one
	kernel has (the series' own suite) is not compared; see only_one_has()."""
	diffs = []
	for label, run in (('baseline', baseline), ('converted', converted)):
		if run.exit_status is None or run.user.errors:
			detail = '; '.join(run.user.errors) or 'no exit status from /init'
			diffs.append(Difference(DiffKind.INCOMPLETE, f'({label} run)', **{label: detail}))
	a, b = baseline.checks, converted.checks
	for name in a.keys() | b.keys():
		if name not in b:
			diffs.append(Difference(DiffKind.ONLY_BASELINE, name, _describe(a[name])))
		elif name not in a:
			diffs.append(Difference(DiffKind.ONLY_CONVERTED, name, '', _describe(b[name])))
		elif a[name].status is not b[name].status:
			diffs.append(Difference(DiffKind.STATUS, name, _describe(a[name]), _describe(b[name])))
		elif a[name].outcome != b[name].outcome:
			diffs.append(Difference(DiffKind.OUTCOME, name, a[name].outcome, b[name].outcome))
	common = {s.name for s in baseline.kunit.suites} & {s.name for s in converted.kunit.suites}
	ka = {'.'.join(p): t for p, t in baseline.kunit.root.walk() if p[0] in common}
	kb = {'.'.join(p): t for p, t in converted.kunit.root.walk() if p[0] in common}
	for name in ka.keys() | kb.keys():
		test = f'kunit:{name}'
		if name not in kb:
			diffs.append(Difference(DiffKind.ONLY_BASELINE, test, ka[name].status.value))
		elif name not in ka:
			diffs.append(Difference(DiffKind.ONLY_CONVERTED, test, '', kb[name].status.value))
		elif ka[name].status is not kb[name].status:
			diffs.append(Difference(DiffKind.STATUS, test, ka[name].status.value,
						kb[name].status.value))
	# Userspace checks in program order, then KUnit cases.
	order: dict[str, int] = {}
	for name in [*a, *b]:
		order.setdefault(name, len(order))
	return sorted(diffs, key=lambda d: (d.test.startswith('kunit:'), order.get(d.test, -1), d.test))


def only_one_has(baseline: Console, converted: Console) -> tuple[list[str], list[str]]:
	"""KUnit suites only in the baseline run, and only in the converted run."""
	a = [s.name for s in baseline.kunit.suites]
	b = [s.name for s in converted.kunit.suites]
	return [s for s in a if s not in b], [s for s in b if s not in a]


# ---- building and booting ----

@dataclass
class ConfigReport:
	dropped_unknown: list[str] = field(default_factory=list)	# not in this tree's Kconfig
	missing: list[str] = field(default_factory=list)		# known, yet not as asked


@dataclass
class UserspaceResult:
	request: UserspaceRequest
	status: RunStatus = RunStatus.PASSED
	message: str = ''
	accelerator: Accelerator = Accelerator.TCG
	accelerator_note: str = ''
	config: ConfigReport = field(default_factory=ConfigReport)
	build_seconds: float = 0.0
	boot_seconds: float = 0.0
	log: Optional[Path] = None
	json: Optional[Path] = None
	console: Optional[Console] = None


_OPTION = re.compile(r'^(?P<name>CONFIG_\w+)=(?P<value>.*)$')


def fragment_options(fragment: Path) -> dict[str, str]:
	"""The CONFIG_X=value lines of a config fragment."""
	options = {}
	for line in fragment.read_text().splitlines():
		if m := _OPTION.match(line.strip()):
			options[m.group('name')] = m.group('value')
	return options


def kconfig_symbols(kdir: Path) -> set[str]:
	"""Every symbol the tree's Kconfig files define, as CONFIG_<name>."""
	pattern = re.compile(r'^\s*(?:menu)?config\s+(\w+)', re.M)
	symbols = set()
	for kconfig in kdir.rglob('Kconfig*'):
		if kconfig.is_file():
			symbols.update('CONFIG_' + s for s in
				       pattern.findall(kconfig.read_text(errors='replace')))
	return symbols


def check_config(fragment: Path, dotconfig: Path, kdir: Path) -> ConfigReport:
	"""Which fragment options did not make it into .config, and why."""
	final = fragment_options(dotconfig)
	wanted = fragment_options(fragment)
	absent = [o for o, v in wanted.items() if final.get(o) != v and not (v == 'n' and o not in final)]
	report = ConfigReport()
	if absent:
		known = kconfig_symbols(kdir)
		for option in absent:
			(report.missing if option in known else report.dropped_unknown).append(option)
	return report


def compile_command(output: Path, source: Path = SOURCE) -> Command:
	return Command(('gcc', *CFLAGS, '-o', str(output), str(source)))


def initramfs_entries(program: Path, busybox: Path = BUSYBOX) -> list[cpio.Entry]:
	"""/init, busybox and the program; /dev/console so init has a console."""
	return [
		cpio.directory('bin'), cpio.directory('dev'), cpio.directory('proc'),
		cpio.directory('sys'), cpio.directory('tmp'),
		cpio.char_device('dev/console', 5, 1),
		cpio.char_device('dev/null', 1, 3, 0o666),
		cpio.file('bin/busybox', busybox),
		cpio.symlink('bin/sh', 'busybox'),
		cpio.file(f'bin/{PROGRAM}', program),
		cpio.text_file('init', INIT_SCRIPT),
	]


def kernel_command_line(request: UserspaceRequest) -> str:
	return ' '.join((request.machine.console, *KERNEL_ARGS, f'UACCESS_MODE={request.mode.value}',
			 f'UACCESS_ITERATIONS={request.iterations}'))


def boot_command(request: UserspaceRequest, initrd: Path, accel: kunit_run.AcceleratorParams) -> Command:
	qemu_args = [w for a in accel.qemu_args for w in a.split()]
	return Command(('timeout', str(accel.timeout), request.machine.qemu,
			*request.machine.qemu_args, '-kernel', str(request.kernel),
			'-initrd', str(initrd), '-append', kernel_command_line(request), *qemu_args))


def config_command(request: UserspaceRequest) -> Command:
	return Command(('make', f'ARCH={request.machine.arch}', f'O={request.build_dir}',
			*request.toolchain.make_options, 'olddefconfig'), cwd=request.kdir)


def build_command(request: UserspaceRequest) -> Command:
	return Command(('make', f'ARCH={request.machine.arch}', f'O={request.build_dir}',
			*request.toolchain.make_options, f'--jobs={request.jobs}',
			Path(request.machine.kernel_image).name), cwd=request.kdir, nice=True)


def console_progress(say: Callable[[str], None]) -> Callable[[str], None]:
	"""A line sink for the boot: failures, crashes and the markers, not every line."""
	def sink(line: str) -> None:
		text = ktap.strip_console([line])[0]
		if (text.startswith(('not ok', 'Bail out!', '# uaccess-init', '# bench ')) or
		    any(marker in text for marker in ktap.CRASH_MARKERS)):
			say(f'  console: {text}')
	return sink


def run_userspace(runner: Runner, request: UserspaceRequest) -> UserspaceResult:
	"""Configures and builds the kernel, builds the initramfs, boots, parses;
	writes <results_stem>.log (the console) and .json to build/results."""
	result = UserspaceResult(request)
	for tool, fix in (('gcc', 'run `make deps`'), (request.machine.qemu, 'apt-get install qemu-system-x86')):
		if shutil.which(tool) is None:
			raise EnvironmentProblem(f'{tool} is not installed', fix)
	if not BUSYBOX.is_file():
		raise EnvironmentProblem(f'{BUSYBOX} is missing', 'apt-get install busybox-static')
	if request.build and not (request.kdir / 'Makefile').is_file():
		raise EnvironmentProblem(f'{request.kdir} is not a kernel tree',
					 'pass --kdir with a kernel source tree (a git worktree)')
	if not request.build and not request.kernel.is_file() and not runner.dry_run:
		raise UsageError(f'{request.kernel} does not exist', 'build it first (drop --no-build)')
	if request.iterations <= 0:
		raise UsageError(f'--iterations {request.iterations}', 'give a positive count')
	paths.RESULTS.mkdir(parents=True, exist_ok=True)
	result.log = paths.RESULTS / f'{request.results_stem}.log'
	result.json = paths.RESULTS / f'{request.results_stem}.json'
	for stale in (result.log, result.json):
		stale.unlink(missing_ok=True)
	try:
		_steps(runner, request, result)
	finally:
		if not runner.dry_run:
			write_json(result)
	return result


def _steps(runner: Runner, request: UserspaceRequest, result: UserspaceResult) -> None:
	tag = f'userspace[{request.name}]'
	if request.build:
		runner.say(f'{tag}: configuring {request.build_dir} from {request.config.name}')
		if not runner.dry_run:
			request.build_dir.mkdir(parents=True, exist_ok=True)
			shutil.copyfile(request.config, request.build_dir / '.config')
		try:
			runner.run(config_command(request), Output.CAPTURE)
		except CommandFailed as e:
			result.status, result.message = RunStatus.CONFIG_FAILED, e.one_line()
			return
		if not runner.dry_run:
			result.config = check_config(request.config, request.build_dir / '.config', request.kdir)
			if result.config.dropped_unknown:
				runner.say(f'{tag}: not in this tree, dropped: '
					   f'{" ".join(result.config.dropped_unknown)}')
			if result.config.missing:
				result.status = RunStatus.CONFIG_FAILED
				result.message = f'not satisfiable: {" ".join(result.config.missing)}'
				return
		runner.say(f'{tag}: building with {request.jobs} jobs '
			   f'(log: {paths.RESULTS}/userspace-{request.name}-build.log)')
		try:
			built = runner.run(build_command(request), Output.LINES,
					   sink=kunit_run.build_progress(runner.say),
					   log=paths.RESULTS / f'userspace-{request.name}-build.log')
			result.build_seconds = built.elapsed
		except CommandFailed as e:
			result.status, result.message = RunStatus.BUILD_FAILED, e.one_line()
			return
	initrd = build_initramfs(runner, request)
	result.accelerator, result.accelerator_note = kunit_run.choose_accelerator(
		runner, request.accel, request.kernel)
	accel = kunit_run.ACCELERATORS[result.accelerator]
	runner.say(f'{tag}: booting under {accel.accelerator.value} ({result.accelerator_note}), '
		   f'mode {request.mode.value}')
	booted = runner.run(boot_command(request, initrd, accel), Output.LINES, check=False,
			    sink=console_progress(runner.say), log=result.log)
	result.boot_seconds = booted.elapsed
	if runner.dry_run:
		return
	result.console = console = parse_log(result.log)
	problems = console.problems()
	if booted.returncode != 0:
		why = 'timed out' if booted.returncode == 124 else f'exited with status {booted.returncode}'
		result.status, result.message = RunStatus.BOOT_FAILED, f'QEMU {why}'
	elif console.exit_status is None or console.user.errors or console.kunit.crash_lines:
		result.status, result.message = RunStatus.INCOMPLETE, problems[0] if problems else ''
	elif problems:
		result.status = RunStatus.TESTS_FAILED
		result.message = f'{len(problems)} problem(s), first: {problems[0]}'


def build_initramfs(runner: Runner, request: UserspaceRequest) -> Path:
	"""Compiles the program and writes the cpio archive; returns its path."""
	program = request.work_dir / PROGRAM
	initrd = request.work_dir / 'initramfs.cpio'
	if not runner.dry_run:
		request.work_dir.mkdir(parents=True, exist_ok=True)
	runner.run(compile_command(program), Output.CAPTURE,
		   fix=f'{SOURCE.name} must build with {" ".join(CFLAGS)}')
	if runner.dry_run:
		runner.say(f'# would write {initrd}: /init, {BUSYBOX}, {PROGRAM}')
		return initrd
	size = cpio.write(initrd, initramfs_entries(program))
	runner.say(f'initramfs: {initrd} ({size // 1024} KiB)')
	return initrd


def write_json(result: UserspaceResult) -> None:
	request, console = result.request, result.console
	data = {
		'name': request.name,
		'kdir': str(request.kdir),
		'kernel': str(request.kernel),
		'mode': request.mode.value,
		'iterations': request.iterations,
		'status': result.status.value,
		'message': result.message,
		'accelerator': result.accelerator.value,
		'accelerator_note': result.accelerator_note,
		'build_seconds': round(result.build_seconds, 1),
		'boot_seconds': round(result.boot_seconds, 1),
		'config_dropped_unknown': result.config.dropped_unknown,
		'config_missing': result.config.missing,
		'log': str(result.log),
	}
	if console is not None:
		data['exit_status'] = console.exit_status
		data['checks'] = {c.name: {'status': c.status.value, 'outcome': c.outcome}
				  for c in console.checks.values()}
		data['benches'] = [vars(b) for b in console.benches]
		data['kunit'] = [vars(s) for s in kunit_run.summarize(console.kunit)]
		data['problems'] = console.problems()
	assert result.json is not None
	result.json.write_text(json.dumps(data, indent=2) + '\n')


def results_log(name_or_path: str) -> Path:
	"""A run's console log: a path, or the name given to `userspace --name`."""
	path = Path(name_or_path)
	if path.suffix == '.log' or path.is_file():
		return path
	return paths.RESULTS / f'userspace-{name_or_path}.log'
