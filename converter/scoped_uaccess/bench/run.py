# SPDX-License-Identifier: GPL-2.0
"""Benchmarks: cycles per user access, syscalls baseline against converted, code, tools.

Four sections, each a function of a BenchRequest that returns plain data
for reports/bench/bench.json:

  access   testcases/bench/uaccess_bench.c, a KUnit module built out of
           tree against the series kernel (userspace.config plus
           bench.config) and loaded with insmod in QEMU; cycles per 8-byte
           user read and write through each accessor, ratios to the
           open-coded user_access_begin() region.
  syscall  the userspace program's bench mode (userspace.py) on the
           baseline and the converted kernel, boots interleaved; the ratio
           converted/baseline per round.
  code     scripts/bloat-o-meter and LFENCE sites per function of the
           objects the series changes, baseline against converted.
  tools    the checker over the tree (what `make report` runs) against a
           trivial spatch rule over the same files with the same options,
           and the converter.

Nothing here judges a figure: benchmarks report, they do not pass or fail.
"""

import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import struct
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence

from scoped_uaccess.cocci import check
from scoped_uaccess.kernel import cpio
from scoped_uaccess.kunit import ktap
from scoped_uaccess.kunit import run as kunit_run
from scoped_uaccess.core import paths
from scoped_uaccess.kernel import tree
from scoped_uaccess.kunit import userspace
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem, UsageError
from scoped_uaccess.kunit.run import AccelChoice, Accelerator

BENCH_SOURCES = paths.REPO / 'testcases' / 'bench'
MODULE_FILES = ('uaccess_bench.c', 'Kbuild')
MODULE = 'uaccess_bench.ko'
BENCH_CONFIG = BENCH_SOURCES / 'bench.config'
REPORTS = paths.REPO / 'reports' / 'bench'
WORK = paths.RESULTS / 'bench'
SECTIONS = ('access', 'syscall', 'code', 'tools')
# The accessors the module times, in its order; `none` is the bare loop.
VARIANTS = ('none', 'scoped', 'open_coded', 'get_put', 'copy', 'inline')
REFERENCE = 'open_coded'
OPS = ('read', 'write')
SYSCALLS = ('pselect6', 'futex_wake', 'waitid', 'getdents64')
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


@dataclass(frozen=True)
class BenchRequest:
	kdir: Path = paths.DEFAULT_KDIR			# the converted tree: its HEAD
	baseline_tree: Path = paths.BUILD / 'wt-baseline'
	series_tree: Path = paths.BUILD / 'wt-series'	# moved to kdir's HEAD
	iterations: int = 100000	# accesses per timed loop
	repetitions: int = 21		# rounds over all variants, one boot
	syscall_iterations: int = 20000	# calls per syscall per boot
	rounds: int = 15		# boot pairs baseline, converted
	sections: tuple[str, ...] = SECTIONS
	accel: AccelChoice = AccelChoice.AUTO
	jobs: int = os.cpu_count() or 1
	build: bool = True
	out: Path = REPORTS

	@property
	def access_build_dir(self) -> Path:
		return paths.OUT / 'bench-series'


# ---- statistics ----

def spread(values: Sequence[float]) -> dict:
	"""Median, quartiles and range of a sample; quartiles are inclusive."""
	if not values:
		return {'median': None, 'q1': None, 'q3': None, 'min': None, 'max': None, 'n': 0}
	if len(values) == 1:
		q1 = q3 = values[0]
	else:
		q1, _, q3 = statistics.quantiles(values, n=4, method='inclusive')
	return {'median': _round(statistics.median(values)), 'q1': _round(q1), 'q3': _round(q3),
		'min': _round(min(values)), 'max': _round(max(values)), 'n': len(values)}


def _round(x: float) -> float:
	return round(x, 3 if abs(x) < 10 else 1)


def paired_ratios(numerators: Sequence[float], denominators: Sequence[float]) -> list[float]:
	"""The ratio of each pair measured together (same round)."""
	if len(numerators) != len(denominators):
		raise ValueError('paired samples differ in length')
	return [a / b for a, b in zip(numerators, denominators) if b]


# ---- section 1: cycles per access ----

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


ACCESS_INIT = '''#!/bin/busybox sh
# /init of the access benchmark initramfs, written by
# converter/scoped_uaccess/bench.py: load the KUnit module, which runs
# the benchmark at once and prints it on the console.
bb=/bin/busybox
$bb mount -t proc proc /proc
$bb mount -t sysfs sysfs /sys
$bb mount -t devtmpfs devtmpfs /dev
echo '{begin}'
$bb insmod /{module} iterations={iterations} repetitions={repetitions}
echo "{end}$?"
$bb reboot -f
'''


def access_init(iterations: int, repetitions: int) -> str:
	return ACCESS_INIT.format(begin=BEGIN_MARKER, end=END_MARKER, module=MODULE,
				  iterations=iterations, repetitions=repetitions)


def kernel_commands(build_dir: Path, kdir: Path, jobs: int) -> tuple[Command, Command]:
	"""olddefconfig, then the bench kernel with its modules (Module.symvers)."""
	make = ('make', f'ARCH={userspace.X86_64.arch}', f'O={build_dir.resolve()}', 'CC=gcc')
	return (Command((*make, 'olddefconfig'), cwd=kdir),
		Command((*make, f'--jobs={jobs}', 'bzImage', 'modules'), cwd=kdir, nice=True))


def module_command(build_dir: Path, module_dir: Path, jobs: int) -> Command:
	"""kbuild's out-of-tree module build against a configured, built kernel."""
	return Command(('make', '-C', str(build_dir.resolve()), f'M={module_dir.resolve()}',
			f'--jobs={jobs}', 'modules'), nice=True)


def access_boot_command(kernel: Path, initrd: Path, accel: kunit_run.AcceleratorParams) -> Command:
	"""The userspace runs' QEMU machine and kernel command line."""
	machine = userspace.X86_64
	qemu_args = [w for a in accel.qemu_args for w in a.split()]
	return Command(('timeout', str(accel.timeout), machine.qemu, *machine.qemu_args,
			'-kernel', str(kernel), '-initrd', str(initrd),
			'-append', ' '.join((machine.console, *userspace.KERNEL_ARGS)), *qemu_args))


def run_access(runner: Runner, request: BenchRequest, record: dict) -> dict:
	"""Builds the bench kernel and the module, boots, parses; section 1's data."""
	tag = 'bench[access]'
	build_dir = request.access_build_dir
	config = WORK / 'bench-series.config'
	configure, build = kernel_commands(build_dir, request.series_tree, request.jobs)
	if request.build:
		runner.say(f'{tag}: kernel {_rel(build_dir)}: userspace.config + bench.config')
		if not runner.dry_run:
			WORK.mkdir(parents=True, exist_ok=True)
			config.write_text(userspace.CONFIG.read_text() + '\n' + BENCH_CONFIG.read_text())
			build_dir.mkdir(parents=True, exist_ok=True)
			shutil.copyfile(config, build_dir / '.config')
		runner.run(configure, Output.CAPTURE)
		if not runner.dry_run:
			report = userspace.check_config(config, build_dir / '.config', request.series_tree)
			if report.missing:
				raise EnvironmentProblem(f'bench kernel config: not satisfiable: '
							 f'{" ".join(report.missing)}')
		runner.run(build, Output.LINES, sink=kunit_run.build_progress(runner.say),
			   log=WORK / 'bench-series-build.log')
	kernel = build_dir / userspace.X86_64.kernel_image
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
		cpio.write(initrd, [
			cpio.directory('bin'), cpio.directory('dev'), cpio.directory('proc'),
			cpio.directory('sys'), cpio.char_device('dev/console', 5, 1),
			cpio.file('bin/busybox', userspace.BUSYBOX), cpio.symlink('bin/sh', 'busybox'),
			cpio.file(MODULE, module_dir / MODULE, 0o644),
			cpio.text_file('init', access_init(request.iterations, request.repetitions)),
		])
	accelerator, note = kunit_run.choose_accelerator(runner, request.accel, kernel)
	accel = kunit_run.ACCELERATORS[accelerator]
	boot = access_boot_command(kernel, initrd, accel)
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


# ---- section 2: syscalls, baseline against converted ----

def syscall_figures(samples: dict[str, dict[str, list[float]]]) -> dict:
	"""samples[kernel][syscall] = ns per call, one per round, rounds paired."""
	figures = {}
	for name in SYSCALLS:
		base = samples.get('baseline', {}).get(name, [])
		conv = samples.get('converted', {}).get(name, [])
		if not base or not conv:
			continue
		ratios = spread(paired_ratios(conv, base))
		figures[name] = {
			'baseline_ns': spread(base), 'converted_ns': spread(conv),
			'ratio': ratios, 'ratio_converted_over_baseline': ratios['median'],
			# The fastest boot of each kernel is the least disturbed
			# by whatever else the host runs.
			'ratio_of_fastest': _round(min(conv) / min(base)) if min(base) else None,
			'rounds': min(len(base), len(conv)),
			'samples': {'baseline': base, 'converted': conv},
		}
	return figures


def git_head(runner: Runner, tree: Path) -> str:
	run = runner.run(Command(('git', '-C', str(tree), 'rev-parse', 'HEAD'), mutates=False),
			 Output.CAPTURE, fix=f'{tree} must be a git worktree of the kernel tree')
	return run.output.strip()


def prepare_worktrees(runner: Runner, request: BenchRequest) -> str:
	"""Adds the baseline and series worktrees of KDIR when they are missing
	(a fresh clone after `make`), moves the series worktree to KDIR's HEAD;
	returns that commit."""
	head = git_head(runner, request.kdir)
	tree.detached_worktree(runner, request.kdir, request.baseline_tree, tree.BASELINE_TAG)
	tree.detached_worktree(runner, request.kdir, request.series_tree, head)
	return head


def run_syscalls(runner: Runner, request: BenchRequest, record: dict) -> dict:
	"""Interleaved boots: baseline, converted, baseline, ... ; section 2's data."""
	kernels = (('baseline', request.baseline_tree, 'baseline'),
		   ('converted', request.series_tree, 'series'))
	samples: dict[str, dict[str, list[float]]] = {k: {} for k, _, _ in kernels}
	tsc: dict[str, dict[str, list[float]]] = {k: {} for k, _, _ in kernels}
	record['kernels'] = {}
	record['boots'] = []
	for kernel, worktree, name in kernels:
		record['kernels'][kernel] = {'tree': _rel(worktree), 'commit': git_head(runner, worktree),
					     'build_dir': _rel(paths.OUT / f'user-{name}')}
	for rnd in range(request.rounds):
		for kernel, worktree, name in kernels:
			ur = userspace.UserspaceRequest(
				kdir=worktree, name=name, mode=userspace.Mode.BENCH,
				iterations=request.syscall_iterations, accel=request.accel,
				jobs=request.jobs, build=request.build and rnd == 0)
			runner.say(f'bench[syscall]: round {rnd + 1}/{request.rounds}, {kernel}')
			result = userspace.run_userspace(runner, ur)
			if runner.dry_run:
				continue
			if result.status is not userspace.RunStatus.PASSED or result.console is None:
				raise EnvironmentProblem(f'{kernel} bench boot: {result.status.value}: '
							 f'{result.message}', f'see {result.log}')
			kept = WORK / f'syscall-{kernel}-{rnd + 1}.log'
			shutil.copyfile(result.log, kept)
			record['boots'].append({'round': rnd + 1, 'kernel': kernel, 'log': _rel(kept),
						'accelerator': result.accelerator.value,
						'boot_seconds': round(result.boot_seconds, 1)})
			record.update(accelerator=result.accelerator.value,
				      accelerator_note=result.accelerator_note)
			record['kernels'][kernel]['command'] = (
				f'converter/scoped-uaccess userspace --kdir {_rel(tree)} --name {name} '
				f'--no-build --mode bench --iterations {request.syscall_iterations}')
			for b in result.console.benches:
				samples[kernel].setdefault(b.name, []).append(b.ns_per_call)
				tsc[kernel].setdefault(b.name, []).append(b.tsc_per_call)
	record['iterations'] = request.syscall_iterations
	record['rounds'] = request.rounds
	figures = syscall_figures(samples)
	for name, entry in figures.items():
		base_tsc = tsc['baseline'].get(name, [])
		conv_tsc = tsc['converted'].get(name, [])
		entry['tsc_ratio'] = spread(paired_ratios(conv_tsc, base_tsc))
		r = entry['ratio']
		runner.say(f'bench[syscall]: {name:11} converted/baseline {r["median"]:.3f} '
			   f'(range {r["min"]:.3f}-{r["max"]:.3f}, {entry["rounds"]} rounds)')
	return figures


# ---- section 3: code ----

_HUNK = re.compile(r'^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,(?P<count>\d+))? @@ ?(?P<context>.*)$')
_FUNC_NAME = re.compile(r'(?:SYSCALL_DEFINE\d\((?P<syscall>\w+)|(?P<name>\w+)\s*\()')


def changed_functions(diff: str) -> dict[str, set[str]]:
	"""File -> names of the functions whose hunks the diff shows, from the
	hunk headers (git's cpp funcname driver: the enclosing definition)."""
	found: dict[str, set[str]] = {}
	file = None
	for line in diff.splitlines():
		if line.startswith('+++ '):
			file = line[6:] if line.startswith('+++ b/') else None
		elif file and (m := _HUNK.match(line)):
			if f := _FUNC_NAME.search(m.group('context')):
				name = (f'__do_sys_{f.group("syscall")}' if f.group('syscall')
					else f.group('name'))
				found.setdefault(file, set()).add(name)
			else:
				found.setdefault(file, set())
	return found


def converted_file(path: str, arch: str = 'x86') -> bool:
	"""Whether a changed file holds converted code (not the API, tests or tools)."""
	name = Path(path).name
	if not path.endswith(('.c', '.h')) or path.startswith(('lib/', 'scripts/', 'tools/')):
		return False
	if 'test' in name or 'kunit' in name:
		return False
	# The API and its architecture back ends change every user of them.
	if name in ('uaccess.h', 'uaccess_64.h', 'uaccess_32.h'):
		return False
	m = re.match(r'arch/([^/]+)/', path)
	return m is None or m.group(1) == arch


def conversion_functions(path: Path) -> dict[str, set[str]]:
	"""File -> functions the converter's report marks converted, when it exists
	(its regions also list the skipped ones)."""
	if not path.is_file():
		return {}
	found: dict[str, set[str]] = {}

	def walk(node) -> None:
		if isinstance(node, dict):
			if (isinstance(node.get('file'), str) and isinstance(node.get('function'), str)
			    and node.get('status', 'converted') == 'converted'):
				found.setdefault(node['file'], set()).add(node['function'])
			for value in node.values():
				walk(value)
		elif isinstance(node, list):
			for value in node:
				walk(value)
	try:
		walk(json.loads(path.read_text()))
	except ValueError:
		return {}
	return found


def objects_for(files: Iterable[str], build_dir: Path) -> list[str]:
	"""Objects built from the .c files, and objects whose kbuild .cmd file
	lists one of the headers as a dependency."""
	objects = {f[:-2] + '.o' for f in files if f.endswith('.c')
		   and (build_dir / (f[:-2] + '.o')).is_file()}
	headers = [f for f in files if f.endswith('.h')]
	if headers:
		for cmd in build_dir.rglob('.*.o.cmd'):
			text = cmd.read_text(errors='replace')
			if any(f'/{h} ' in text or f'/{h} \\' in text or f'/{h}\n' in text for h in headers):
				obj = cmd.parent / cmd.name[1:-4]
				rel = str(obj.relative_to(build_dir))
				if obj.is_file() and rel != 'vmlinux.o' and not rel.endswith('.mod.o'):
					objects.add(rel)
	return sorted(objects)


_SYMBOL = re.compile(r'^(?P<addr>[0-9a-f]+) (?P<flags>.{7}) (?P<section>\S+)\s+'
		     r'(?P<size>[0-9a-f]+) (?P<name>\S+)$')
_DISASM_FUNC = re.compile(r'^[0-9a-f]+ <(?P<name>[^>]+)>:$')
_DISASM_INSN = re.compile(r'^\s*(?P<addr>[0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(?P<insn>\S+)')
_RELOC = re.compile(r'^(?P<offset>[0-9a-f]+) (?P<type>\S+)\s+(?P<target>[^+\s]+)(?:\+0x(?P<addend>[0-9a-f]+))?$')
# struct alt_instr (arch/x86/include/asm/alternative.h): s32 instr_offset,
# s32 repl_offset, u32 ft_flags, u8 instrlen, u8 replacementlen.
ALT_INSTR = struct.Struct('<iiIBB')


@dataclass
class FunctionCode:
	size: int = 0
	lfence: int = 0		# LFENCE in the function's own code
	alt_lfence: int = 0	# LFENCE in the alternatives patched into it

	@property
	def lfence_total(self) -> int:
		return self.lfence + self.alt_lfence


def function_symbols(objdump_t: str) -> dict[str, tuple[str, int, int]]:
	"""name -> (section, address, size) of the functions of `objdump -t`."""
	symbols = {}
	for line in objdump_t.splitlines():
		m = _SYMBOL.match(line)
		if m and 'F' in m.group('flags'):
			symbols[m.group('name')] = (m.group('section'), int(m.group('addr'), 16),
						    int(m.group('size'), 16))
	return symbols


def lfence_by_function(disassembly: str) -> dict[str, int]:
	"""LFENCE instructions per function of `objdump -d`, outside the
	alternatives' replacement code."""
	skip = False
	counts: dict[str, int] = {}
	current = None
	for line in disassembly.splitlines():
		if line.startswith('Disassembly of section '):
			# Replacements are counted where they patch: alternative_lfences().
			current = None
			skip = line.split()[-1].rstrip(':').startswith('.altinstr')
		elif (m := _DISASM_FUNC.match(line)) and not skip:
			current = m.group('name')
			counts.setdefault(current, 0)
		elif current and (m := _DISASM_INSN.match(line)) and m.group('insn') == 'lfence':
			counts[current] += 1
	return counts


def lfence_addresses(disassembly: str) -> list[int]:
	return [int(m.group('addr'), 16) for m in map(_DISASM_INSN.match, disassembly.splitlines())
		if m and m.group('insn') == 'lfence']


def hex_dump_bytes(dump: str) -> bytes:
	"""The bytes of `objdump -s -j SECTION` output."""
	data = bytearray()
	for line in dump.splitlines():
		m = re.match(r'^ ([0-9a-f]{4,}) ((?:[0-9a-f]{2,8} ){1,4})', line + ' ')
		if m:
			data += bytes.fromhex(m.group(2).replace(' ', ''))
	return bytes(data)


def relocations(dump: str) -> dict[int, tuple[str, int]]:
	"""offset -> (target section or symbol, addend) of `objdump -r -j SECTION`."""
	found = {}
	for line in dump.splitlines():
		if m := _RELOC.match(line.strip()):
			found[int(m.group('offset'), 16)] = (m.group('target'),
							     int(m.group('addend') or '0', 16))
	return found


def alternative_lfences(alt_data: bytes, alt_relocs: dict[int, tuple[str, int]],
			repl_lfences: list[int],
			symbols: dict[str, tuple[str, int, int]]) -> dict[str, int]:
	"""LFENCEs of .altinstr_replacement, per function whose code they patch."""
	counts: dict[str, int] = {}
	for off in range(0, len(alt_data) - ALT_INSTR.size + 1, ALT_INSTR.size):
		*_, replacementlen = ALT_INSTR.unpack_from(alt_data, off)
		site, repl = alt_relocs.get(off), alt_relocs.get(off + 4)
		if site is None or repl is None or repl[0] != '.altinstr_replacement':
			continue
		n = sum(repl[1] <= a < repl[1] + replacementlen for a in repl_lfences)
		if not n:
			continue
		section, addr = site
		owner = next((name for name, (sec, start, size) in symbols.items()
			      if sec == section and start <= addr < start + max(size, 1)), None)
		counts[owner or f'{section}+{addr:#x}'] = counts.get(owner or f'{section}+{addr:#x}', 0) + n
	return counts


def object_code(runner: Runner, obj: Path) -> dict[str, FunctionCode]:
	"""Size and LFENCE sites of every function of an x86_64 object."""
	def objdump(*args: str) -> str:
		return runner.run(Command(('objdump', *args, str(obj)), mutates=False),
				  Output.CAPTURE, check=False).output
	symbols = function_symbols(objdump('-t'))
	code = {name: FunctionCode(size=size) for name, (_, _, size) in symbols.items()}
	for name, n in lfence_by_function(objdump('-d')).items():
		code.setdefault(name, FunctionCode()).lfence = n
	alt = objdump('-s', '-j', '.altinstructions')
	if '.altinstructions' in alt:
		alts = alternative_lfences(
			hex_dump_bytes(alt.split('Contents of section .altinstructions:', 1)[-1]),
			relocations(objdump('-r', '-j', '.altinstructions')),
			lfence_addresses(objdump('-d', '-j', '.altinstr_replacement')), symbols)
		for name, n in alts.items():
			code.setdefault(name, FunctionCode()).alt_lfence = n
	return code


_BLOAT_ROW = re.compile(r'^(?P<name>\S+)\s+(?P<old>-|\d+)\s+(?P<new>-|\d+)\s+(?P<delta>[-+]\d+)$')
_BLOAT_TOTAL = re.compile(r'^Total: Before=(?P<before>\d+), After=(?P<after>\d+)')


def parse_bloat(text: str) -> dict:
	"""scripts/bloat-o-meter output: the changed symbols and the totals."""
	rows, before, after = {}, None, None
	for line in text.splitlines():
		if m := _BLOAT_ROW.match(line.strip()):
			rows[m.group('name')] = int(m.group('delta'))
		elif m := _BLOAT_TOTAL.match(line.strip()):
			before, after = int(m.group('before')), int(m.group('after'))
	return {'symbols': rows, 'before': before, 'after': after,
		'delta': None if before is None else after - before}


def run_code(runner: Runner, request: BenchRequest, record: dict) -> dict:
	"""bloat-o-meter and LFENCE sites of the changed objects; section 3's data."""
	base_dir, conv_dir = paths.OUT / 'user-baseline', paths.OUT / 'user-series'
	diff = runner.run(Command(('git', '-C', str(request.kdir), 'diff', '-U0', 'baseline', 'HEAD',
				   '--', '*.c', '*.h'), mutates=False), Output.CAPTURE).output
	by_file = {f: names for f, names in changed_functions(diff).items() if converted_file(f)}
	conversion = paths.REPO / 'reports' / f'linux-{_kernel_version(request.kdir)}' / 'conversion.json'
	for f, names in conversion_functions(conversion).items():
		if converted_file(f):
			by_file.setdefault(f, set()).update(names)
	sources = {n for names in by_file.values() for n in names}
	objects = objects_for(by_file, conv_dir)
	record.update(files=sorted(by_file), objects=objects,
		      conversion_json=_rel(conversion) if conversion.is_file() else None,
		      baseline_build=_rel(base_dir), converted_build=_rel(conv_dir),
		      bloat_command=f'{_rel(request.kdir)}/scripts/bloat-o-meter '
				    f'{_rel(base_dir)}/OBJ {_rel(conv_dir)}/OBJ',
		      lfence_command='objdump -d OBJ (lfence per function) and '
				     'objdump -s/-r -j .altinstructions, -d -j .altinstr_replacement '
				     '(alternatives per function)')
	functions: dict[str, dict] = {}
	total_delta = 0
	per_object = {}
	for obj in objects:
		old, new = base_dir / obj, conv_dir / obj
		if not old.is_file() or not new.is_file():
			per_object[obj] = {'missing': True}
			continue
		bloat = runner.run(Command((sys.executable, str(request.kdir / 'scripts' / 'bloat-o-meter'),
					    str(old), str(new)), mutates=False), Output.CAPTURE)
		parsed = parse_bloat(bloat.output)
		per_object[obj] = {'bytes_before': parsed['before'], 'bytes_after': parsed['after'],
				   'bytes_delta': parsed['delta']}
		total_delta += parsed['delta'] or 0
		before, after = object_code(runner, old), object_code(runner, new)
		for name in sorted(before.keys() | after.keys()):
			b, a = before.get(name, FunctionCode()), after.get(name, FunctionCode())
			if (b.size, b.lfence_total) == (a.size, a.lfence_total) and name not in sources:
				continue
			functions[f'{obj}:{name}'] = {
				'object': obj, 'function': name, 'source_changed': name in sources,
				'bytes_before': b.size, 'bytes_after': a.size,
				'bytes_delta': parsed['symbols'].get(name, a.size - b.size),
				'lfence_before': b.lfence_total, 'lfence_after': a.lfence_total,
				'lfence_alternatives_before': b.alt_lfence,
				'lfence_alternatives_after': a.alt_lfence,
			}
	record['inlined_or_absent'] = sorted(sources - {f['function'] for f in functions.values()})
	figures = {
		'total_bytes_delta': total_delta,
		'lfence_before': sum(f['lfence_before'] for f in functions.values()),
		'lfence_after': sum(f['lfence_after'] for f in functions.values()),
		'objects': per_object,
		'functions': functions,
	}
	runner.say(f'bench[code]: {len(objects)} objects, {len(functions)} functions changed: '
		   f'{total_delta:+d} bytes, LFENCE {figures["lfence_before"]} -> {figures["lfence_after"]}')
	return figures


def _kernel_version(kdir: Path) -> str:
	try:
		from scoped_uaccess.cocci import report
		return report.kernel_version(kdir)
	except Exception:	# the version only names an optional input
		return 'unknown'


# ---- section 4: tools ----

FLOOR_RULE = '''// SPDX-License-Identifier: GPL-2.0
/// The floor for timing scoped_uaccess.cocci: one trivial rule that
/// matches a single call, run with the checker's own options.
// Confidence: High
// Comments: written by converter/scoped_uaccess/bench.py
// Options: {options}

virtual report

@floor depends on report@
expression E1, E2;
position p;
@@

user_access_begin@p(E1, E2)

@script:python depends on report@
p << floor.p;
@@

pass
'''


def floor_rule(checker: Path) -> str:
	return FLOOR_RULE.format(options=' '.join(check.spatch_options(checker)))


# The converter also checks what it rewrote; some files take the checker
# minutes.  A benchmark run should end.
CONVERT_TIMEOUT = 1500


def converter_argv() -> tuple[Optional[list[str]], str]:
	"""The CLI arguments that time the converter, or None and why not.

	The converter works in its own worktree and writes its series to --out;
	with --core it converts baseline + the core series, which is the
	conversion's real workload once its patches are in patches/."""
	from scoped_uaccess.cli import main as cli
	parser = cli.build_parser()
	commands = next((a.choices for a in parser._actions	# argparse keeps them there
			 if isinstance(a, argparse._SubParsersAction)), {})
	convert = commands.get('convert')
	if convert is None:
		return None, 'the CLI has no `convert` command yet'
	options = {o for a in convert._actions for o in a.option_strings}
	if '--out' not in options:
		return None, '`convert` has no --out: it would write into the repository'
	argv = ['convert', '--out', str(WORK / 'convert')]
	if '--core' in options:
		argv.append('--core')
	if '--worktree' in options:
		# Its own scratch worktree: the default one is the converter's.
		argv += ['--worktree', str(paths.BUILD / 'wt-bench-convert')]
	return argv, ''


def run_tools(runner: Runner, request: BenchRequest, record: dict) -> dict:
	"""The checker and the floor over the same files, one after the other."""
	quiet = Runner(dry_run=runner.dry_run, echo=runner.echo, quiet=True)
	floor_cocci = WORK / 'floor.cocci'
	if not runner.dry_run:
		WORK.mkdir(parents=True, exist_ok=True)
		floor_cocci.write_text(floor_rule(check.COCCI))
	times = {}
	files = 0
	for label, cocci in (('floor', floor_cocci), ('checker', check.COCCI)):
		runner.say(f'bench[tools]: {label}: {_rel(cocci)} over the files of {_rel(request.kdir)} '
			   f'that use the API, {request.jobs} jobs')
		start = time.monotonic()
		result = check.run_check(quiet, check.CheckRequest(paths=[request.kdir], cocci=cocci,
								   root=request.kdir, jobs=request.jobs))
		times[label] = time.monotonic() - start
		files = len(result.files)
		runner.say(f'bench[tools]: {label}: {times[label]:.1f} s, {len(result.findings)} finding(s)')
	record.update(files=files, jobs=request.jobs, floor_rule=_rel(floor_cocci),
		      checker_command=f'converter/scoped-uaccess check --jobs {request.jobs} '
				      f'{_rel(request.kdir)}',
		      floor_command=f'converter/scoped-uaccess check --jobs {request.jobs} '
				    f'--cocci {_rel(floor_cocci)} {_rel(request.kdir)}',
		      what='`make report` runs `converter/scoped-uaccess report`, which is '
			   'check.run_check() over KDIR: one spatch per file that uses the API')
	figures = {'checker_seconds': round(times['checker'], 1),
		   'floor_seconds': round(times['floor'], 1),
		   'checker_over_floor': round(times['checker'] / times['floor'], 2) if times['floor'] else None}
	argv, reason = converter_argv()
	figures['convert_seconds'] = None
	if argv is None:
		record['convert_note'] = reason
		runner.say(f'bench[tools]: converter not timed: {reason}')
	else:
		command = Command(('timeout', str(CONVERT_TIMEOUT), sys.executable,
				   str(paths.REPO / 'converter' / 'scoped-uaccess'), *argv), cwd=paths.REPO)
		run = runner.run(command, Output.CAPTURE, check=False)
		record['convert_command'] = 'converter/scoped-uaccess ' + ' '.join(
			_rel(Path(a)) if a.startswith('/') else a for a in argv)
		record['convert_elapsed_seconds'] = round(run.elapsed, 1)
		if run.returncode == 0:
			figures['convert_seconds'] = round(run.elapsed, 1)
			record['convert_note'] = f'`{record["convert_command"]}`'
		elif run.returncode == 124:
			record['convert_note'] = (f'`{record["convert_command"]}` did not finish in '
						  f'{CONVERT_TIMEOUT} s')
		else:
			tail = (run.stderr or run.output).strip().splitlines()[-1:] or ['']
			record['convert_error'] = _relative_paths(tail[0])
			record['convert_note'] = (f'`{record["convert_command"]}` failed after '
						  f'{run.elapsed:.0f} s with status {run.returncode} '
						  f'(its error is in bench.json)')
		runner.say(f'bench[tools]: converter: {record["convert_note"]}, '
			   f'{figures["convert_seconds"]} s')
	return figures


# ---- the whole run ----

def host_facts() -> dict:
	facts = {'cpus': os.cpu_count()}
	try:
		facts['load_average'] = [round(x, 2) for x in os.getloadavg()]
	except OSError:
		pass
	try:
		model = next((line.split(':', 1)[1].strip() for line in
			      Path('/proc/cpuinfo').read_text().splitlines()
			      if line.startswith('model name')), None)
		facts['cpu'] = model
	except OSError:
		pass
	return facts


def run_bench(runner: Runner, request: BenchRequest) -> dict:
	"""Runs the sections asked for; writes bench.json and README.md to request.out."""
	unknown = [s for s in request.sections if s not in SECTIONS]
	if unknown:
		raise UsageError(f'unknown section(s): {" ".join(unknown)}', f'use {", ".join(SECTIONS)}')
	if min(request.iterations, request.repetitions, request.syscall_iterations,
	       request.rounds) <= 0:
		raise UsageError('iteration, repetition and round counts must be positive')
	for tool in ('qemu-system-x86_64', 'objdump', 'spatch', 'gcc', 'make'):
		if shutil.which(tool) is None:
			raise EnvironmentProblem(f'{tool} is not installed', 'run `make deps`')
	if not runner.dry_run:
		WORK.mkdir(parents=True, exist_ok=True)
	started = datetime.datetime.now(datetime.timezone.utc)
	data: dict = {
		'date': started.strftime('%Y-%m-%d %H:%M UTC'),
		'host': host_facts(),
		'request': {'iterations': request.iterations, 'repetitions': request.repetitions,
			    'syscall_iterations': request.syscall_iterations, 'rounds': request.rounds,
			    'sections': list(request.sections), 'jobs': request.jobs,
			    'accel': request.accel.value},
		'records': {},
	}
	if {'syscall', 'access', 'code'} & set(request.sections):
		data['converted_commit'] = prepare_worktrees(runner, request)
	if 'code' in request.sections and 'syscall' not in request.sections and request.build:
		# The syscall section builds both userspace kernels; code needs them too.
		_build_userspace_kernels(runner, request)
	# Code right after the syscall section: both use the userspace kernels.
	for section, fn in (('syscall', run_syscalls), ('code', run_code),
			    ('access', run_access), ('tools', run_tools)):
		if section not in request.sections:
			continue
		record: dict = {}
		start = time.monotonic()
		data[section] = fn(runner, request, record)
		record['seconds'] = round(time.monotonic() - start, 1)
		data['records'][section] = record
		# After every section, so that a later failure keeps what was measured.
		data['wall_seconds'] = round((datetime.datetime.now(datetime.timezone.utc) - started)
					     .total_seconds(), 1)
		write_reports(runner, request.out, data)
	if not runner.dry_run:
		runner.say(f'bench: wrote {_rel(request.out / "bench.json")} and '
			   f'{_rel(request.out / "README.md")}')
	return data


def render(out: Path) -> Path:
	"""Rewrites README.md from the bench.json beside it (after a wording change)."""
	source = out / 'bench.json'
	try:
		data = json.loads(source.read_text())
	except (OSError, ValueError) as e:
		raise UsageError(f'cannot read {source}: {e}', 'run `make bench` first') from e
	(out / 'README.md').write_text(readme(data))
	return out / 'README.md'


def write_reports(runner: Runner, out: Path, data: dict) -> None:
	if runner.dry_run:
		return
	out.mkdir(parents=True, exist_ok=True)
	(out / 'bench.json').write_text(json.dumps(data, indent=2, sort_keys=False) + '\n')
	(out / 'README.md').write_text(readme(data))


def _build_userspace_kernels(runner: Runner, request: BenchRequest) -> None:
	for worktree, name in ((request.baseline_tree, 'baseline'), (request.series_tree, 'series')):
		ur = userspace.UserspaceRequest(kdir=worktree, name=name, jobs=request.jobs, build=True)
		if not runner.dry_run:
			ur.build_dir.mkdir(parents=True, exist_ok=True)
			shutil.copyfile(ur.config, ur.build_dir / '.config')
		runner.run(userspace.config_command(ur), Output.CAPTURE)
		runner.run(userspace.build_command(ur), Output.LINES,
			   sink=kunit_run.build_progress(runner.say),
			   log=paths.RESULTS / f'userspace-{name}-build.log')


def _relative_paths(text: str) -> str:
	"""A command line or message with the repository's paths relative to it."""
	return text.replace(f'{paths.REPO}/', '')


def _rel(path: Path) -> str:
	try:
		return str(Path(path).resolve().relative_to(paths.REPO))
	except ValueError:
		return str(path)


# ---- README ----

def _fmt(x: Optional[float], digits: int = 2) -> str:
	return '-' if x is None else f'{x:.{digits}f}'


def readme(data: dict) -> str:
	"""reports/bench/README.md from bench.json's data."""
	req = data['request']
	out = ['# Benchmarks', '',
	       f'Written by `make bench` (`converter/scoped-uaccess bench`) on {data["date"]}; '
	       f'the figures are in `bench.json`. Host: {data["host"].get("cpus")} CPUs '
	       f'({data["host"].get("cpu") or "unknown"}), load average at the start '
	       f'{" ".join(str(x) for x in data["host"].get("load_average", []))}, shared with '
	       'other builds. Whole run: '
	       f'{data["wall_seconds"]:.0f} s. Converted kernel: build/linux HEAD '
	       f'{data.get("converted_commit", "?")[:12]} (tag `baseline` plus the series '
	       'in `patches/`).', '']
	access, rec = data.get('access'), data['records'].get('access', {})
	if access:
		accel = rec.get('accelerator')
		out += ['## 1. Cost per 8-byte user access (in-kernel)', '',
			f'`testcases/bench/uaccess_bench.c`, a KUnit suite built out of tree against the '
			f'converted kernel (`testcases/kernel/userspace.config` plus '
			f'`testcases/bench/bench.config`) and loaded with insmod in QEMU under '
			f'**{accel}** ({rec.get("accelerator_note")}). '
			f'{rec.get("iterations")} accesses per timed loop between two rdtsc_ordered(), '
			f'{rec.get("repetitions")} rounds over all variants in one boot; figures are '
			f'the median over rounds of cycles per access, with the interquartile range; '
			f'"net" subtracts the bare loop of the same round, the ratio divides by the '
			f'open-coded region of the same round. Masked access in the scopes '
			f'(can_do_masked_user_access()): '
			f'{ {True: "yes", False: "no"}.get(rec.get("masked"), "unknown")}.', '',
			'| variant | what | read cycles (IQR) | net | x open-coded | write cycles (IQR) | net | x open-coded |',
			'|---|---|---|---|---|---|---|---|']
		for variant in VARIANTS:
			cells = []
			for op in OPS:
				e = access.get(variant, {}).get(op)
				if not e:
					cells += ['-', '-', '-']
					continue
				c = e['cycles']
				cells += [f'{c["median"]:.1f} ({c["q1"]:.1f}-{c["q3"]:.1f})',
					  _fmt(e.get('net_cycles_median'), 1),
					  _fmt(e.get(f'ratio_to_{REFERENCE}'))]
			out.append(f'| {variant} | {VARIANT_TEXT[variant]} | ' + ' | '.join(cells) + ' |')
		out += ['', f'Command: `converter/scoped-uaccess bench --section access --iterations '
			f'{req["iterations"]} --repetitions {req["repetitions"]}`; the boot: '
			f'`{rec.get("command")}`; console: `{rec.get("log")}`.', '']
		if accel == Accelerator.TCG.value:
			out += ['**What limits these numbers.** Under TCG the guest\'s TSC is the host\'s '
				'time stamp counter read by the emulator, so "cycles" are host time spent '
				'emulating the loop, not cycles of a CPU executing it. TCG translates '
				'STAC, CLAC and LFENCE into almost nothing (it does not speculate), so '
				'the LFENCE that the open-coded region pays and the masked scope avoids '
				'costs nearly nothing here: the ratios show the instruction count and '
				'call overhead of each accessor under emulation, and say little about '
				'the speculation barrier a real CPU pays. Only KVM (or bare metal) can '
				'measure that; rerun with `--accel kvm` where KVM works.', '']
	sysc, rec = data.get('syscall'), data['records'].get('syscall', {})
	if sysc:
		out += ['## 2. Syscalls: converted against baseline kernel', '',
			f'The bench mode of `testcases/userspace/uaccess_syscalls.c`: '
			f'{rec.get("iterations")} calls each per boot, {rec.get("rounds")} rounds of '
			f'one boot of each kernel, interleaved (baseline, converted, baseline, ...), '
			f'same QEMU settings, under **{rec.get("accelerator")}**. The ratio is the median '
			f'over rounds of converted/baseline ns per call within a round; the range is '
			f'the smallest and largest round; "fastest/fastest" divides the fastest boot '
			f'of the converted kernel by the fastest of the baseline, the boots least '
			f'disturbed by the rest of the host.', '',
			'| syscall | baseline ns/call (median) | converted ns/call (median) | converted/baseline (range) | fastest/fastest |',
			'|---|---|---|---|---|']
		for name in SYSCALLS:
			e = sysc.get(name)
			if e:
				r = e['ratio']
				out.append(f'| {name} | {e["baseline_ns"]["median"]:.0f} | '
					   f'{e["converted_ns"]["median"]:.0f} | '
					   f'{r["median"]:.3f} ({r["min"]:.3f}-{r["max"]:.3f}) | '
					   f'{_fmt(e.get("ratio_of_fastest"), 3)} |')
		kernels = rec.get('kernels', {})
		out += ['']
		for kernel in ('baseline', 'converted'):
			k = kernels.get(kernel, {})
			out.append(f'- {kernel}: `{k.get("command")}` ({k.get("tree")} at '
				   f'{str(k.get("commit"))[:12]}, {k.get("build_dir")})')
		out += ['', 'What limits these numbers: every call runs emulated (TCG), so a '
			'few instructions saved in a user access are lost in the emulation cost of '
			'the whole syscall path; the host is shared, and one boot to the next varies '
			'by more than any difference the conversion could make. Read a ratio as '
			'"no difference measurable" unless its range excludes 1.', '']
	code, rec = data.get('code'), data['records'].get('code', {})
	if code:
		out += ['## 3. Code: size and LFENCE sites of the converted functions (x86_64)', '',
			f'Objects of the files the series converts ({", ".join(rec.get("files", []))}), '
			f'and those including a converted header: {", ".join(rec.get("objects", []))}. '
			f'Baseline objects from `{rec.get("baseline_build")}`, converted from '
			f'`{rec.get("converted_build")}` (both `userspace.config`, gcc). Sizes and '
			f'totals are `{rec.get("bloat_command")}`; LFENCE counts are the LFENCE '
			'instructions of the function plus those in the alternatives '
			'(`.altinstr_replacement`) that patch it, as `barrier_nospec()` is an '
			'alternative.', '',
			f'Total: **{code["total_bytes_delta"]:+d} bytes**, LFENCE sites '
			f'**{code["lfence_before"]} -> {code["lfence_after"]}**.', '',
			'| object | function | source changed | bytes before | after | delta | LFENCE before | after |',
			'|---|---|---|---|---|---|---|---|']
		for f in code['functions'].values():
			out.append(f'| {f["object"]} | {f["function"]} | '
				   f'{"yes" if f["source_changed"] else "no"} | '
				   f'{f["bytes_before"]} | {f["bytes_after"]} | {f["bytes_delta"]:+d} | '
				   f'{f["lfence_before"]} | {f["lfence_after"]} |')
		out += ['', 'A function whose own source the series did not touch ("no") changed '
			'through a converted helper inlined into it, or through the ASM GOTO wrappers '
			'of `unsafe_*_user()` that the series adds to the x86 API.']
		if rec.get('inlined_or_absent'):
			out += ['', 'Changed in the source but without a symbol of their own (inlined '
				'into the functions above): ' + ', '.join(rec['inlined_or_absent']) + '.']
		out += ['', 'The API headers themselves (`include/linux/uaccess.h`, '
			'`arch/x86/include/asm/uaccess.h`) are left out: the series changes them for '
			'every user, which is not a conversion.', '']
	tools, rec = data.get('tools'), data['records'].get('tools', {})
	if tools:
		out += ['## 4. Tools', '',
			f'{rec.get("what")}. Both runs over the same {rec.get("files")} files with '
			f'{rec.get("jobs")} jobs, one after the other in this run; the floor is '
			f'`{rec.get("floor_rule")}`, a rule that matches one call, with the checker\'s '
			'`// Options:`.', '',
			'| figure | seconds | command |', '|---|---|---|',
			f'| checker | {tools["checker_seconds"]} | `{rec.get("checker_command")}` |',
			f'| floor (trivial rule) | {tools["floor_seconds"]} | `{rec.get("floor_command")}` |',
			f'| checker / floor | {_fmt(tools["checker_over_floor"])} | |',
			f'| converter | {_fmt(tools["convert_seconds"], 1)} | '
			f'{rec.get("convert_note", "")} |', '',
			*([f'The converter\'s error: `{rec["convert_error"]}`', '']
			  if rec.get('convert_error') else []),
			'What limits these numbers: wall time on two cores shared with kernel builds '
			'of other engineers; spatch parses each file once per run, so the floor is '
			'mostly parsing and the ratio is what the rule itself adds.', '']
	out += ['## Rerun', '', '    make bench                       # all four sections',
		f'    converter/scoped-uaccess bench --section access --iterations {req["iterations"]} '
		f'--repetitions {req["repetitions"]}',
		'    converter/scoped-uaccess bench --quick      # a smoke run into build/results/bench/', '']
	return '\n'.join(out)


def headline(data: dict) -> str:
	"""One line with the figures README.md quotes."""
	parts = []
	access = data.get('access') or {}
	accel = data['records'].get('access', {}).get('accelerator')
	for op in OPS:
		e = access.get('scoped', {}).get(op)
		if e and 'ratio' in e:
			parts.append(f'scoped {op} x{e["ratio"]["median"]:.2f} of open-coded ({accel})')
	for name, e in (data.get('syscall') or {}).items():
		parts.append(f'{name} x{e["ratio"]["median"]:.3f}')
	code = data.get('code')
	if code:
		parts.append(f'code {code["total_bytes_delta"]:+d} bytes, LFENCE '
			     f'{code["lfence_before"]}->{code["lfence_after"]}')
	tools = data.get('tools')
	if tools and tools.get('checker_over_floor'):
		parts.append(f'checker x{tools["checker_over_floor"]:.2f} of floor')
	return '; '.join(parts) or 'nothing measured'
