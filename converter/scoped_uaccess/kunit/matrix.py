# SPDX-License-Identifier: GPL-2.0
"""The KUnit matrix: the suites under kunit.py's own QEMU configurations.

For each architecture of kernel/kunit_qemu.py: kunit.py configures the
kernel (testcases/kunit/matrix.kunitconfig and the tree's
qemu_configs/<arch>.py fragment, with Debian's cross compiler), make
builds it in build/out/kunit-matrix-<arch>, and QEMU boots it as
kunit.py would (its binary, machine, CPU and command line), but through
the project's QEMU command: kunit.py asks for `-accel kvm -accel hvf
-accel tcg`, and where /dev/kvm opens but cannot run the guest
(kunit/suites.py) QEMU takes KVM and aborts.  The KTAP is checked against
kunit/expected.py: every declared case reports, none fails, and the
cases that cannot test anything on the platform (expected_skips())
skip with a reason, the others not.  Then `kunit.py exec` boots the
same kernel, and the row says whether kunit.py itself ran it here and
got the same counts.

An architecture whose compiler, QEMU or firmware is missing is a row
NOT RUN with what is missing; it never counts as passed.
"""

import enum
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import CommandFailed, EnvironmentProblem
from scoped_uaccess.core.outcome import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Outcome, relative
from scoped_uaccess.kernel import kbuild, kunit_qemu, sources
from scoped_uaccess.kernel.kunit_qemu import KunitArch, QemuConfig
from scoped_uaccess.kernel.qemu import (ACCELERATORS, KERNEL_ARGS, AccelChoice, Accelerator,
					choose_accelerator)
from scoped_uaccess.kunit import expected, ktap
from scoped_uaccess.kunit.suites import KUNIT_ARGS, KUNIT_PY, PYTHON_ENV, SuiteSummary, summarize

KUNITCONFIG = paths.REPO / 'testcases' / 'kunit' / 'matrix.kunitconfig'
COMMAND = 'converter/scoped-uaccess kunit-matrix'


class RowStatus(enum.Enum):
	PASSED = 'pass'
	FAILED = 'FAIL'		# a case failed, did not report, or skipped unexpectedly
	ERROR = 'ERROR'		# configuration, build or boot did not complete
	NOT_RUN = 'NOT RUN'	# a tool is missing: never a pass


@dataclass(frozen=True)
class MatrixRequest:
	kdir: Path
	arches: tuple[str, ...] = tuple(kunit_qemu.KUNIT_ARCHES)
	kunitconfig: Path = KUNITCONFIG
	suites: tuple[expected.ExpectedSuite, ...] = expected.EXPECTED_SUITES
	out: Path = paths.OUT		# the build directories go here
	results: Path = paths.RESULTS
	jobs: int = kbuild.JOBS
	accel: AccelChoice = AccelChoice.AUTO

	def build_dir(self, arch: str) -> Path:
		return self.out / f'kunit-matrix-{arch}{paths.tree_suffix(self.kdir)}'

	@property
	def results_dir(self) -> Path:
		"""build/results/kunit-matrix, kunit-matrix-7.3."""
		return paths.of_tree(self.results / 'kunit-matrix', self.kdir)


@dataclass
class Row:
	"""One architecture's run."""
	arch: str
	status: RowStatus
	qemu: str = ''
	machine: str = ''
	cpu: str = ''
	reason: str = ''		# why NOT RUN or ERROR, or the first finding
	accelerator: str = ''
	summaries: list[SuiteSummary] = field(default_factory=list)
	skips: dict[str, str] = field(default_factory=dict)	# 'suite.case' -> reason
	findings: list[str] = field(default_factory=list)
	build_seconds: float = 0.0
	boot_seconds: float = 0.0
	kunit_py: str = ''		# what `kunit.py exec` of the same kernel did
	kunit_py_seconds: float = 0.0

	def to_json(self) -> dict:
		data = {k: v for k, v in vars(self).items() if k not in ('status', 'summaries')}
		return {**data, 'status': self.status.value, 'summaries': [vars(s) for s in self.summaries]}

	@staticmethod
	def from_json(data: dict) -> 'Row':
		fields = {k: v for k, v in data.items() if k not in ('status', 'summaries')}
		return Row(status=RowStatus(data['status']),
			   summaries=[SuiteSummary(**s) for s in data.get('summaries', [])], **fields)


def command(kdir: Path) -> str:
	"""The command for the tree in kdir, with the tree's usual KDIR."""
	source = sources.for_kdir(kdir)
	tree = 'build/linux' if source is sources.DEBIAN_6_12 else f'build/linux-{source.series}'
	return f'{COMMAND} --kdir {tree}'


def reproduce(kdir: Path, arch: str) -> str:
	"""The command that makes one row."""
	return f'{command(kdir)} --arch {arch}'


def config_command(request: MatrixRequest, arch: KunitArch) -> Command:
	"""kunit.py config: the kunitconfig and the qemu_configs fragment,
	then olddefconfig, and a check that every option stayed."""
	cross = (f'--cross_compile={arch.cross_compile}',) if arch.cross_compile else ()
	return Command((sys.executable, str(KUNIT_PY), 'config', f'--arch={arch.name}', *cross,
			f'--build_dir={request.build_dir(arch.name).resolve()}',
			f'--kunitconfig={request.kunitconfig.resolve()}'),
		       cwd=request.kdir, env=PYTHON_ENV, nice=True)


def make_command(request: MatrixRequest, arch: KunitArch, config: QemuConfig) -> Command:
	"""The build kunit.py would run (make all), with output we can follow."""
	return Command(('make', f'ARCH={config.linux_arch}', *arch.arch.make_vars()[1:],
			f'O={request.build_dir(arch.name).resolve()}', f'--jobs={request.jobs}', 'all'),
		       cwd=request.kdir, nice=True)


def boot_command(config: QemuConfig, kernel: Path, accelerator: Accelerator) -> Command:
	"""QEMU as kunit.py starts it for config (its binary, -append order,
	machine and CPU), with the project's accelerator and panic=-1, in a
	timeout."""
	accel = ACCELERATORS[accelerator]
	append = ' '.join((*KUNIT_ARGS, *KERNEL_ARGS, config.kernel_command_line))
	return Command(('timeout', str(accel.timeout), config.qemu_binary,
			*kunit_qemu.KUNIT_QEMU_ARGS, '-kernel', str(kernel), '-append', append,
			*accel.qemu_args, *config.qemu_args))


def boot(runner: Runner, config: QemuConfig, arch: KunitArch, build_dir: Path, log: Path,
	 suites: tuple[expected.ExpectedSuite, ...], kdir: Path, row: Row,
	 accel: AccelChoice = AccelChoice.AUTO) -> None:
	"""Boots the kernel built in build_dir under config, writes the console
	to log and fills row's results; also the second boot of every gcc KUnit gate."""
	kernel = build_dir / config.kernel_path
	accelerator, note = choose_accelerator(runner, accel, kernel, arch.arch)
	row.accelerator = accelerator.value
	runner.say(f'kunit-matrix[{arch.name}]: booting {config.qemu_binary} -machine {config.machine} '
		   f'-cpu {config.cpu} under {accelerator.value} ({note})')
	booted = runner.run(boot_command(config, kernel, accelerator), Output.LINES, check=False,
			    sink=lambda line: None)
	row.boot_seconds = booted.elapsed
	if runner.dry_run:
		return
	log.parent.mkdir(parents=True, exist_ok=True)
	log.write_text(booted.output)
	run = ktap.parse(booted.output.splitlines())
	row.summaries = summarize(run)
	row.skips = {'.'.join(p): t.reason for p, t in run.root.walk()
		     if t.status is ktap.Status.SKIP and len(p) > 1}
	config_text = (build_dir / '.config').read_text(errors='replace')
	must_skip = expected.expected_skips(expected.Platform.of(config_text, arch.smap))
	row.findings = [str(f) for f in expected.check(run, kdir, suites, {}, must_skip)]
	if booted.returncode != 0 and not row.summaries:
		row.status = RowStatus.ERROR
		row.reason = f'QEMU exited with status {booted.returncode}' + (
			' (timeout)' if booted.returncode == 124 else '') + f', no KTAP (see {relative(log)})'
	elif row.findings:
		row.status = RowStatus.FAILED
		row.reason = f'{len(row.findings)} problem(s), first: {row.findings[0]}'
	else:
		row.status = RowStatus.PASSED


def kunit_py_command(request: MatrixRequest, arch: KunitArch) -> Command:
	"""kunit.py exec: kunit.py's own boot of the kernel built in the
	arch's build directory, its console unparsed."""
	cross = (f'--cross_compile={arch.cross_compile}',) if arch.cross_compile else ()
	return Command((sys.executable, str(KUNIT_PY), 'exec', f'--arch={arch.name}', *cross,
			f'--build_dir={request.build_dir(arch.name).resolve()}',
			f'--timeout={ACCELERATORS[Accelerator.TCG].timeout}', '--raw_output=all'),
		       cwd=request.kdir, env=PYTHON_ENV)


def kunit_py_exec(runner: Runner, request: MatrixRequest, arch: KunitArch, row: Row) -> None:
	"""Boots the row's kernel with kunit.py exec; row.kunit_py says
	whether kunit.py started QEMU and got the row's counts."""
	ran = runner.run(kunit_py_command(request, arch), Output.LINES, check=False,
			 sink=lambda line: None, log=request.results_dir / f'{arch.name}-kunit.py.log')
	row.kunit_py_seconds = ran.elapsed
	if runner.dry_run:
		return
	counts = summarize(ktap.parse(ran.output.splitlines()))
	if not counts:
		problem = next((line.strip() for line in ran.output.splitlines()
				if 'qemu' in line.lower() and ('error' in line.lower() or 'fail' in line.lower())),
			       f'exit status {ran.returncode}, no KTAP')
		row.kunit_py = f'no test ran: {problem}'
	elif [vars(s) for s in counts] == [vars(s) for s in row.summaries]:
		row.kunit_py = 'ran, same counts'
	else:
		row.kunit_py = 'ran, other counts: ' + '; '.join(str(s) for s in counts)


def run_arch(runner: Runner, request: MatrixRequest, name: str) -> Row:
	"""Configure, build, boot and check one architecture."""
	arch = kunit_qemu.kunit_arch(name)
	try:
		config = kunit_qemu.read_config(request.kdir, name)
	except EnvironmentProblem as e:
		runner.say(f'kunit-matrix[{name}]: NOT RUN: {e.problem}')
		return Row(arch=name, status=RowStatus.NOT_RUN, reason=e.problem)
	row = Row(arch=name, status=RowStatus.ERROR, qemu=config.qemu_binary,
		  machine=config.machine, cpu=config.cpu)
	missing = kunit_qemu.missing_tools(arch, config)
	if missing:
		row.status = RowStatus.NOT_RUN
		row.reason = 'missing ' + ', '.join(missing) + '; install with `make deps`'
		runner.say(f'kunit-matrix[{name}]: NOT RUN: {row.reason}')
		return row
	build_dir = request.build_dir(name)
	if not runner.dry_run:
		build_dir.mkdir(parents=True, exist_ok=True)
		request.results_dir.mkdir(parents=True, exist_ok=True)
	try:
		runner.run(config_command(request, arch), Output.LINES, sink=lambda line: None)
	except CommandFailed as e:
		row.reason = 'kunit.py config failed: ' + _last_line(e.output)
		return row
	runner.say(f'kunit-matrix[{name}]: building {relative(build_dir)}')
	built = runner.run(make_command(request, arch, config), Output.LINES, check=False,
			   sink=kbuild.build_progress(runner.say),
			   log=request.results_dir / f'{name}-build.log')
	row.build_seconds = built.elapsed
	if built.returncode != 0:
		row.reason = 'build failed: ' + _last_line(built.output)
		return row
	boot(runner, config, arch, build_dir, request.results_dir / f'{name}.log', request.suites,
	     request.kdir, row, request.accel)
	kunit_py_exec(runner, request, arch, row)
	return row


def _last_line(output: str) -> str:
	errors = [line.strip() for line in output.splitlines() if 'error' in line.lower()]
	lines = errors or [line.strip() for line in output.splitlines() if line.strip()]
	return lines[-1] if lines else 'no output'


def write_results(request: MatrixRequest, rows: list[Row]) -> Path:
	"""build/results/kunit-matrix*/matrix.json: the rows with their seconds."""
	path = request.results_dir / 'matrix.json'
	path.parent.mkdir(parents=True, exist_ok=True)
	path.write_text(json.dumps({'kdir': relative(request.kdir),
				    'rows': [r.to_json() for r in rows]}, indent=2) + '\n')
	return path


def read_results(path: Path) -> list[Row]:
	return [Row.from_json(r) for r in json.loads(path.read_text())['rows']]


def merge(old: list[Row], new: list[Row]) -> list[Row]:
	"""The rows of a run of some architectures over those of an earlier
	run, in the matrix's order."""
	by_arch = {r.arch: r for r in old}
	by_arch.update({r.arch: r for r in new})
	order = list(kunit_qemu.KUNIT_ARCHES)
	return sorted(by_arch.values(), key=lambda r: order.index(r.arch) if r.arch in order else 99)


def verdict(rows: list[Row]) -> Outcome:
	"""0 when every row passed, 1 when one failed or erred, 2 when the rest
	passed but a row could not run."""
	counts = {s: sum(1 for r in rows if r.status is s) for s in RowStatus}
	summary = ', '.join(f'{n} {s.value.lower()}' for s, n in counts.items() if n)
	bad = [f'{r.arch}: {r.reason}' for r in rows if r.status is not RowStatus.PASSED]
	text = '; '.join([summary, *bad[:3]])
	if counts[RowStatus.FAILED] or counts[RowStatus.ERROR]:
		return Outcome(EXIT_FINDINGS, text)
	if counts[RowStatus.NOT_RUN]:
		return Outcome(EXIT_USAGE, text)
	return Outcome(EXIT_OK, text)


def default_cpu_step(runner: Runner, kdir: Path, build_dir: Path,
		     accel: AccelChoice = AccelChoice.AUTO,
		     results: Path = paths.RESULTS) -> Outcome:
	"""The x86_64 KUnit kernel already built in build_dir, booted again as
	kunit.py boots x86_64: its default CPU has no SMAP, so the SMAP case
	must skip and every other case pass (build/results/<build dir
	name>-default-cpu.{log,json})."""
	arch = kunit_qemu.kunit_arch('x86_64')
	config = kunit_qemu.read_config(kdir, arch.name)
	row = Row(arch=arch.name, status=RowStatus.ERROR, qemu=config.qemu_binary,
		  machine=config.machine, cpu=config.cpu)
	stem = results / f'{build_dir.name}-default-cpu'
	boot(runner, config, arch, build_dir, stem.with_suffix('.log'), expected.EXPECTED_SUITES,
	     kdir, row, accel)
	if runner.dry_run:
		return Outcome.ok('dry run')
	stem.with_suffix('.json').write_text(json.dumps(row.to_json(), indent=2) + '\n')
	counts = '; '.join(str(s) for s in row.summaries)
	what = f"kunit.py's x86_64 CPU ({config.cpu}): {counts}"
	if row.status is not RowStatus.PASSED:
		return Outcome.findings(f'{what}; {row.reason}')
	return Outcome.ok(f'{what}, skipped as they must: {", ".join(sorted(row.skips))}')
