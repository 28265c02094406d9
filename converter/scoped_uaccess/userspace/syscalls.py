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

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, CommandResult, Output, Runner
from scoped_uaccess.core.errors import CommandFailed, EnvironmentProblem, UsageError
from scoped_uaccess.core.outcome import Outcome, format_seconds, relative
from scoped_uaccess.kernel import cpio, initramfs, kbuild
from scoped_uaccess.kernel.architectures import ARCHES, Arch
from scoped_uaccess.kernel.qemu import (ACCELERATORS, AccelChoice, Accelerator, AcceleratorParams,
					boot_command as qemu_boot, choose_accelerator)
from scoped_uaccess.kernel.toolchains import GCC, Toolchain
from scoped_uaccess.kunit import ktap
from scoped_uaccess.kunit import suites

SOURCE = paths.REPO / 'testcases' / 'userspace' / 'uaccess_syscalls.c'
CONFIG = paths.X86_64_CONFIG
PROGRAM = 'uaccess_syscalls'
CFLAGS = ('-static', '-O2', '-Wall', '-Werror')
# Under TCG on a loaded host the TSC of the guest skews against its other
# clocks, and the clocksource watchdog says so on the console at
# KERN_WARNING, which /init lets through for WARN() and KUAP: the message
# once landed inside a fault sweep record and made a false difference.
# tsc=reliable turns the watchdog's TSC check off where timing is no result.
X86_QUIET_CLOCK = ('tsc=reliable',)
# /init frames the program's output with these lines on the console.
BEGIN_MARKER = '# uaccess-init: begin'
END_MARKER = '# uaccess-init: exit status '
_END = re.compile(r'^# uaccess-init: exit status (?P<status>\d+)\s*$')
# The first line of a WARN() splat.
_KERNEL_WARNING = re.compile(r'WARNING: CPU: \d+ PID: \d+')
_BENCH = re.compile(r'^# bench (?P<name>\S+) iterations=(?P<iterations>\d+) '
		    r'ns_per_call=(?P<ns>[\d.]+) tsc_per_call=(?P<tsc>[\d.]+)\s*$')

INIT_SCRIPT = initramfs.busybox_init('''\
# /init of the userspace test initramfs, written by
# converter/scoped_uaccess/userspace/syscalls.py. The kernel passes UACCESS_MODE and
# UACCESS_ITERATIONS from its command line in the environment.
''', f'''\
# The KUnit suites have run. From here the console shows warnings and worse
# only, so no info message (a late driver probe) splits a result line.
echo 5 > /proc/sys/kernel/printk
echo '{BEGIN_MARKER}'
/bin/{PROGRAM}
echo "{END_MARKER}$?"
# -no-reboot turns the reboot into QEMU exiting (the kernel cannot power off
# without ACPI power management).
$bb reboot -f
''', tmp=True)


class Mode(enum.Enum):
	"""What the program does (UACCESS_MODE)."""
	TEST = 'test'		# the checks
	BENCH = 'bench'		# time the hot syscalls
	ALL = 'all'		# both


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
	name: str			# names the build (paths.userspace_build_dir) and the results
	mode: Mode = Mode.TEST
	iterations: int = 1000
	accel: AccelChoice = AccelChoice.AUTO
	toolchain: Toolchain = GCC
	jobs: int = 2
	config: Path = CONFIG
	arch: Arch = ARCHES['x86_64']
	build: bool = True		# False: boot the kernel already built
	# The tree whose build directories and results these are (kdir is
	# the worktree built from): build/linux-7.3's runs end in -7.3.
	tree: Path = paths.DEFAULT_KDIR

	@property
	def build_dir(self) -> Path:
		return paths.userspace_build_dir(self.name, self.tree)

	@property
	def kernel(self) -> Path:
		assert self.arch.qemu is not None
		return self.build_dir / self.arch.qemu.kernel_image

	@property
	def results_stem(self) -> str:
		"""userspace-<name>, plus the mode when it is not the checks alone."""
		return (f'userspace-{self.name}{paths.tree_suffix(self.tree)}' +
			('' if self.mode is Mode.TEST else f'-{self.mode.value}'))

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


def initramfs_entries(program: Path, busybox: Path = initramfs.BUSYBOX) -> list[cpio.Entry]:
	"""The skeleton with busybox, /dev/null and /tmp; the program; /init."""
	return initramfs.skeleton(busybox=busybox, tmp=True, null=True) + [
		cpio.file(f'bin/{PROGRAM}', program),
		cpio.text_file('init', INIT_SCRIPT),
	]


def boot_command(request: UserspaceRequest, initrd: Path, accel: AcceleratorParams) -> Command:
	# The bench keeps the clock the kernel chooses: its figures time syscalls.
	quiet_clock = (X86_QUIET_CLOCK if request.arch.srcarch == 'x86'
		       and request.mode is not Mode.BENCH else ())
	return qemu_boot(request.arch, request.kernel, initrd,
			 (f'UACCESS_MODE={request.mode.value}', f'UACCESS_ITERATIONS={request.iterations}',
			  *quiet_clock),
			 accel)


def kernel_build(request: UserspaceRequest) -> kbuild.Build:
	return kbuild.Build(request.kdir, request.build_dir, request.arch,
			    request.toolchain.make_options)


def build_kernel(runner: Runner, request: UserspaceRequest, log: Path) -> CommandResult:
	"""Builds the kernel image of a configured build directory."""
	build = kernel_build(request)
	return kbuild.build(runner, build, (request.kernel.name,), request.jobs, log=log,
			    sink=kbuild.build_progress(runner.say))


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
	assert request.arch.qemu is not None
	for tool in (request.arch.gcc, request.arch.qemu.binary):
		if shutil.which(tool) is None:
			raise EnvironmentProblem(f'{tool} is not installed', 'run `make deps`')
	initramfs.require_busybox()
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
		try:
			kbuild.configure(runner, kernel_build(request), request.config)
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
		log = paths.RESULTS / f'{request.results_stem}-build.log'
		runner.say(f'{tag}: building with {request.jobs} jobs (log: {log})')
		built = build_kernel(runner, request, log)
		result.build_seconds = built.elapsed
		if built.returncode != 0:
			result.status = RunStatus.BUILD_FAILED
			result.message = kbuild.failure_line(built.output)
			return
	initrd = build_initramfs(runner, request)
	result.accelerator, result.accelerator_note = choose_accelerator(
		runner, request.accel, request.kernel, request.arch)
	accel = ACCELERATORS[result.accelerator]
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
		runner.say(f'# would write {initrd}: /init, {initramfs.BUSYBOX}, {PROGRAM}')
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
		data['kunit'] = [vars(s) for s in suites.summarize(console.kunit)]
		data['problems'] = console.problems()
	assert result.json is not None
	result.json.write_text(json.dumps(data, indent=2) + '\n')


def results_log(name_or_path: str, tree: Path = paths.DEFAULT_KDIR) -> Path:
	"""A run's console log: a path, or the name given to `userspace --name`
	(a run of tree's)."""
	path = Path(name_or_path)
	if path.suffix == '.log' or path.is_file():
		return path
	return paths.RESULTS / f'userspace-{name_or_path}{paths.tree_suffix(tree)}.log'


def step(runner: Runner, request: UserspaceRequest) -> Outcome:
	"""`scoped-uaccess userspace`: a run, what it printed, and a summary."""
	result = run_userspace(runner, request)
	tag = f'userspace[{request.name}]'
	console = result.console
	if console is not None:
		checks = console.checks.values()
		passed = sum(c.status is ktap.Status.PASS for c in checks)
		runner.say(f'{tag}: {passed} of {len(checks)} checks ok; program exit status '
			   f'{console.exit_status}')
		for summary in suites.summarize(console.kunit):
			runner.say(f'{tag}: KUnit {summary}')
		for b in console.benches:
			runner.say(f'{tag}: bench {b.name}: {b.ns_per_call:.0f} ns/call '
				   f'({b.iterations} iterations)')
	runner.say(f'{tag}: {result.accelerator.value} ({result.accelerator_note}); build '
		   f'{format_seconds(result.build_seconds)}, boot '
		   f'{format_seconds(result.boot_seconds)}')
	if result.log and result.log.exists():
		runner.say(f'{tag}: results: {relative(result.log)}, {relative(result.json)}')
	if result.status is RunStatus.PASSED:
		return Outcome.ok(f'{request.name}: passed')
	return Outcome.findings(f'{result.status.value}: {result.message}')
