# SPDX-License-Identifier: GPL-2.0
"""Section access: cycles per 8-byte user access, a KUnit module timed in QEMU."""

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from scoped_uaccess.bench.common import WORK, BenchRequest, _rel, _relative_paths, paired_ratios, spread
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem, UsageError
from scoped_uaccess.kernel import cpio, initramfs, kbuild
from scoped_uaccess.kernel.architectures import ARCHES
from scoped_uaccess.kernel.qemu import ACCELERATORS, boot_command, choose_accelerator
from scoped_uaccess.kunit import ktap
from scoped_uaccess.userspace import syscalls

X86_64 = ARCHES['x86_64']

BENCH_SOURCES = paths.REPO / 'testcases' / 'bench'
MODULE_FILES = ('uaccess_bench.c', 'Kbuild')
MODULE = 'uaccess_bench.ko'
BENCH_CONFIG = BENCH_SOURCES / 'bench.config'
# The accessors the module times, in its order; `none` is the bare loop.
VARIANTS = ('none', 'scoped', 'open_coded', 'get_put', 'copy', 'inline')
REFERENCE = 'open_coded'
OPS = ('read', 'write')
VARIANT_TEXT = {
	'none': 'the loop alone, no access (floor)',
	'scoped': 'scoped_user_{read,write}_access() + unsafe_{get,put}_user() (masked on x86)',
	'open_coded': 'user_{read,write}_access_begin() + unsafe_{get,put}_user() + _end()',
	'get_put': 'get_user() / put_user()',
	'copy': 'copy_from_user() / copy_to_user(), 8 bytes',
	'inline': 'get_user_inline() / put_user_inline()',
}

BEGIN_MARKER = '# uaccess-bench: begin'
END_MARKER = '# uaccess-bench: exit status '
_END = re.compile(r'# uaccess-bench: exit status (?P<status>\d+)')
_ACCESS = re.compile(r'# uaccess_bench_run: bench access=(?P<variant>\w+) op=(?P<op>\w+) '
		     r'iterations=(?P<iterations>\d+) cycles=(?P<cycles>[\d,]+)')
_MASKED = re.compile(r'# uaccess_bench_run: bench can_do_masked_user_access=(?P<masked>\d)')
_RESULT = re.compile(r'^\s*(?P<not>not )?ok \d+ uaccess_bench_run\b')

@dataclass
class AccessConsole:
	"""What the module printed: cycles of each timed loop, per variant and op."""
	cycles: dict[tuple[str, str], list[int]] = field(default_factory=dict)
	iterations: int = 0
	masked: Optional[bool] = None
	passed: Optional[bool] = None		# the KUnit case's result; None if never seen
	exit_status: Optional[int] = None	# insmod's, from /init


def parse_access_console(lines: Iterable[str]) -> AccessConsole:
	result = AccessConsole()
	for line in ktap.strip_console(list(lines)):
		if m := _ACCESS.search(line):
			result.iterations = int(m.group('iterations'))
			result.cycles[m.group('variant'), m.group('op')] = [
				int(c) for c in m.group('cycles').split(',')]
		elif m := _MASKED.search(line):
			result.masked = m.group('masked') == '1'
		elif m := _RESULT.match(line):
			result.passed = m.group('not') is None
		elif m := _END.search(line):
			result.exit_status = int(m.group('status'))
	return result


def access_figures(console: AccessConsole) -> dict:
	"""cycles per access per variant and op, and paired ratios to the reference.

	Every figure comes from the repetitions: per repetition, cycles of the
	loop / iterations; `net` subtracts the bare loop of the same round;
	`ratio` divides by the reference variant of the same round."""
	n = console.iterations or 1
	figures: dict = {}
	for variant in VARIANTS:
		for op in OPS:
			if (variant, op) not in console.cycles:
				continue
			per = [c / n for c in console.cycles[variant, op]]
			entry = {'cycles': spread(per)}
			entry['cycles_median'] = entry['cycles']['median']
			if ('none', op) in console.cycles and variant != 'none':
				floor = [c / n for c in console.cycles['none', op]]
				entry['net_cycles'] = spread([a - b for a, b in zip(per, floor)])
				entry['net_cycles_median'] = entry['net_cycles']['median']
			if (REFERENCE, op) in console.cycles and variant != 'none':
				ref = [c / n for c in console.cycles[REFERENCE, op]]
				entry['ratio'] = spread(paired_ratios(per, ref))
				entry[f'ratio_to_{REFERENCE}'] = entry['ratio']['median']
			figures.setdefault(variant, {})[op] = entry
	return figures


def access_init(iterations: int, repetitions: int) -> str:
	"""/init: load the module with the counts, between the markers."""
	return initramfs.busybox_init('''\
# /init of the access benchmark initramfs, written by
# converter/scoped_uaccess/bench/access.py: load the KUnit module, which runs
# the benchmark at once and prints it on the console.
''', f'''\
echo '{BEGIN_MARKER}'
$bb insmod /{MODULE} iterations={iterations} repetitions={repetitions}
echo "{END_MARKER}$?"
$bb reboot -f
''')


def initramfs_entries(module: Path, iterations: int, repetitions: int) -> list[cpio.Entry]:
	"""The skeleton with busybox, the module, and the /init that loads it."""
	return initramfs.skeleton(busybox=initramfs.BUSYBOX) + [
		cpio.file(MODULE, module, 0o644),
		cpio.text_file('init', access_init(iterations, repetitions)),
	]


def module_command(build_dir: Path, module_dir: Path, jobs: int) -> Command:
	"""kbuild's out-of-tree module build against a configured, built kernel."""
	return Command(('make', '-C', str(build_dir.resolve()), f'M={module_dir.resolve()}',
			f'--jobs={jobs}', 'modules'), nice=True)


def run_access(runner: Runner, request: BenchRequest, record: dict) -> dict:
	"""Builds the bench kernel and the module, boots, parses; section 1's data."""
	tag = 'bench[access]'
	initramfs.require_busybox()
	build_dir = request.access_build_dir
	config = WORK / 'bench-series.config'
	build = kbuild.Build(request.series_tree, build_dir, X86_64)
	if request.build:
		runner.say(f'{tag}: kernel {_rel(build_dir)}: x86_64.config + bench.config')
		if not runner.dry_run:
			WORK.mkdir(parents=True, exist_ok=True)
			config.write_text(syscalls.CONFIG.read_text() + '\n' + BENCH_CONFIG.read_text())
		kbuild.configure(runner, build, config)
		if not runner.dry_run:
			report = syscalls.check_config(config, build_dir / '.config', request.series_tree)
			if report.missing:
				raise EnvironmentProblem(f'bench kernel config: not satisfiable: '
							 f'{" ".join(report.missing)}')
		# The modules too: the out-of-tree module needs Module.symvers.
		built = kbuild.build(runner, build, ('bzImage', 'modules'), request.jobs,
				     log=WORK / 'bench-series-build.log',
				     sink=kbuild.build_progress(runner.say))
		if built.returncode != 0:
			raise EnvironmentProblem(f'the bench kernel does not build: '
						 f'{kbuild.failure_line(built.output)}',
						 f'see {_rel(WORK / "bench-series-build.log")}')
	assert X86_64.qemu is not None
	kernel = build_dir / X86_64.qemu.kernel_image
	if not kernel.is_file() and not runner.dry_run:
		raise UsageError(f'{kernel} does not exist', 'build it first (drop --no-build)')
	module_dir = build_dir / 'uaccess_bench'
	if not runner.dry_run:
		module_dir.mkdir(parents=True, exist_ok=True)
		for name in MODULE_FILES:
			shutil.copyfile(BENCH_SOURCES / name, module_dir / name)
	runner.run(module_command(build_dir, module_dir, request.jobs), Output.CAPTURE,
		   fix='the bench kernel must be built with modules (drop --no-build)')
	initrd = WORK / 'access-initramfs.cpio'
	if not runner.dry_run:
		cpio.write(initrd, initramfs_entries(module_dir / MODULE, request.iterations,
						   request.repetitions))
	accelerator, note = choose_accelerator(runner, request.accel, kernel)
	accel = ACCELERATORS[accelerator]
	boot = boot_command(X86_64, kernel, initrd, (), accel)
	runner.say(f'{tag}: booting under {accelerator.value} ({note}): {request.iterations} '
		   f'accesses x {request.repetitions} rounds x {len(VARIANTS) * 2} loops')
	log = WORK / 'access.log'
	booted = runner.run(boot, Output.LINES, check=False, log=log,
			    sink=lambda line: None)
	record.update(accelerator=accelerator.value, accelerator_note=note,
		      command=_relative_paths(boot.shell_line()), log=_rel(log),
		      boot_seconds=round(booted.elapsed, 1))
	if runner.dry_run:
		return {}
	console = parse_access_console(log.read_text(errors='backslashreplace').splitlines())
	missing = [f'{v}.{op}' for v in VARIANTS for op in OPS if (v, op) not in console.cycles]
	if booted.returncode != 0 or console.passed is not True or missing:
		raise EnvironmentProblem(f'access benchmark boot did not complete (QEMU status '
					 f'{booted.returncode}, KUnit case '
					 f'{ {True: "ok", False: "not ok", None: "not seen"}[console.passed]}'
					 f'{", missing " + " ".join(missing) if missing else ""})',
					 f'see {log}')
	record.update(masked=console.masked, iterations=console.iterations,
		      repetitions=request.repetitions,
		      raw_cycles={f'{v}.{op}': c for (v, op), c in console.cycles.items()})
	figures = access_figures(console)
	for variant in figures:
		for op, entry in figures[variant].items():
			runner.say(f'{tag}: {variant:10} {op:5} {entry["cycles_median"]:8.1f} cycles'
				   + (f', x{entry["ratio_to_" + REFERENCE]:.2f} of {REFERENCE}'
				      if 'ratio' in entry else ''))
	return figures
