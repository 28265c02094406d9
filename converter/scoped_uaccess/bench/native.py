# SPDX-License-Identifier: GPL-2.0
"""Section native: the kernel's region entry and exit, timed on this CPU in userspace."""

import math
import re
import shutil
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from scoped_uaccess.bench.common import WORK, BenchRequest, _rel, _relative_paths, spread
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.kernel import kbuild
from scoped_uaccess.userspace import syscalls

SOURCES = paths.REPO / 'testcases' / 'bench' / 'native'
KERNEL_FILES = ('Kbuild', 'native_regions.c')
PROGRAM = SOURCES / 'native_bench.c'
LINKER_SCRIPT = SOURCES / 'native.lds'
OBJECT = 'native_regions.o'

# The sequences of native_regions.c: <begin>_<op>_<count>, and the floor.
BEGINS = ('checked', 'masked', 'scoped')
OPS = ('read', 'write')
COUNTS = (1, 2, 8)
FLOOR = 'empty'
BEGIN_TEXT = {
	'checked': 'user_{read,write}_access_begin(): __access_ok() compare, STAC, LFENCE',
	'masked': 'masked_user_access_begin(): mask_user_address() CMP/CMOVA, STAC',
	'scoped': 'the series\' scoped_user_{read,write}_access_size()',
}


def _round(x: float) -> float:
	return round(x, 2)


def sequence_name(begin: str, op: str, count: int) -> str:
	return f'{begin}_{op}_{count}'


@dataclass(frozen=True)
class NativeTree:
	"""A tree whose headers the sequences are compiled from, and its build."""
	name: str		# baseline: pristine 6.12; series: with the series
	kdir: Path
	build_dir: Path		# configured with x86_64.config (user-<name>)

	@property
	def module_dir(self) -> Path:
		return self.build_dir / 'native_regions'

	@property
	def program(self) -> Path:
		return self.module_dir / 'native_bench'


def native_trees(request: BenchRequest) -> tuple[NativeTree, ...]:
	return (NativeTree('baseline', request.baseline_tree, paths.OUT / 'user-baseline'),
		NativeTree('series', request.series_tree, paths.OUT / 'user-series'))


@dataclass
class NativeRun:
	"""What native_bench printed."""
	cpu: Optional[int] = None
	rounds: int = 0
	regions: int = 0
	warmup: int = 0
	patched: dict[str, int] = field(default_factory=dict)
	checked: bool = False
	ticks: dict[str, list[int]] = field(default_factory=dict)	# per round, for `regions`


_HEADER = re.compile(r'^native cpu=(?P<cpu>\d+) rounds=(?P<rounds>\d+) regions=(?P<regions>\d+) '
		     r'warmup=(?P<warmup>\d+)$')
_PATCHED = re.compile(r'^native patched (?P<counts>.*)$')
_SEQ = re.compile(r'^native seq=(?P<name>\w+) ticks=(?P<ticks>[\d,]*)$')


def parse_native_output(lines: Iterable[str]) -> NativeRun:
	run = NativeRun()
	for line in lines:
		line = line.strip()
		if m := _HEADER.match(line):
			run.cpu, run.rounds = int(m.group('cpu')), int(m.group('rounds'))
			run.regions, run.warmup = int(m.group('regions')), int(m.group('warmup'))
		elif m := _PATCHED.match(line):
			run.patched = {k: int(v) for k, v in
				       (w.split('=', 1) for w in m.group('counts').split())}
		elif line == 'native check ok':
			run.checked = True
		elif m := _SEQ.match(line):
			run.ticks[m.group('name')] = [int(t) for t in m.group('ticks').split(',') if t]
	return run


def tsc_step(run: NativeRun) -> int:
	"""The step in which the TSC advanced: the gcd of all readings' differences."""
	return math.gcd(*(t for ticks in run.ticks.values() for t in ticks))


def sequence_figures(run: NativeRun) -> dict[str, dict]:
	"""TSC cycles per region of every sequence: min, median, quartiles; net of the floor."""
	n = run.regions or 1
	per = {name: [t / n for t in ticks] for name, ticks in run.ticks.items() if ticks}
	floor = statistics.median(per[FLOOR]) if FLOOR in per else None
	figures = {}
	for name, values in per.items():
		s = {k: (_round(v) if isinstance(v, float) else v) for k, v in spread(values).items()}
		entry = {'cycles': s, 'cycles_min': s['min'], 'cycles_median': s['median']}
		if floor is not None and name != FLOOR:
			entry['net_cycles_median'] = _round(s['median'] - floor)
		figures[name] = entry
	return figures


def pair_figures(figures: dict[str, dict], begin: str, reference: str = 'checked') -> dict:
	"""begin/reference per op and count, of the medians and of the minima;
	and reference - begin, the cycles a region saves."""
	ratios, saved = {}, {}
	for op in OPS:
		for count in COUNTS:
			a = figures.get(sequence_name(begin, op, count))
			b = figures.get(sequence_name(reference, op, count))
			if not a or not b:
				continue
			key = f'{op}_{count}'
			ratios[key] = {stat: (round(a[f'cycles_{stat}'] / b[f'cycles_{stat}'], 3)
					      if b[f'cycles_{stat}'] else None)
				       for stat in ('median', 'min')}
			saved[key] = {stat: _round(b[f'cycles_{stat}'] - a[f'cycles_{stat}'])
				      for stat in ('median', 'min')}
	return {'ratios': ratios, 'saved': saved}


@dataclass(frozen=True)
class SyscallPath:
	"""A converted x86_64 syscall path whose region the series moves from the
	checked begin to a masked scope, and how often one call enters it."""
	syscall: str
	functions: tuple[str, ...]	# the symbols that hold the region (section code)
	regions: int			# region entries per call
	sequence: str			# the measured <op>_<count> nearest to the region
	where: str			# the code that says so


# From the code of 6.12 (what the series converts); the code section's
# LFENCE counts of `functions` confirm the barrier is gone.  Paths whose
# region was masked in 6.12 already (pselect6's get_sigset_argpack()) or
# read with get_user() (the futex value: no LFENCE in 6.12's
# __get_user_4) save no barrier and are not listed.
SYSCALL_PATHS = (
	SyscallPath('waitid', ('__do_sys_waitid',), 1, 'write_8',
		    'kernel/exit.c SYSCALL_DEFINE5(waitid): one write region, 7 unsafe_put_user()'),
	SyscallPath('futex(FUTEX_WAKE_OP)', ('futex_wake_op',), 1, 'write_1',
		    'kernel/futex/waitwake.c futex_wake_op() -> arch_futex_atomic_op_inuser(): '
		    'one read-write region, one atomic op'),
	SyscallPath('futex(FUTEX_LOCK_PI), uncontended', ('futex_cmpxchg_value_locked',), 1,
		    'write_1', 'kernel/futex/pi.c futex_lock_pi_atomic() -> '
		    'futex_cmpxchg_value_locked(): one read-write region, one cmpxchg'),
	SyscallPath('futex(FUTEX_UNLOCK_PI), uncontended', ('futex_cmpxchg_value_locked',), 1,
		    'write_1', 'kernel/futex/pi.c futex_unlock_pi() -> '
		    'futex_cmpxchg_value_locked(): one read-write region, one cmpxchg'),
	SyscallPath('readdir (old, one entry per call)', ('fillonedir',), 1, 'write_8',
		    'fs/readdir.c fillonedir(): one write region, 3 unsafe_put_user() '
		    'and the name'),
	SyscallPath('recvmsg, per control message', ('put_cmsg',), 1, 'write_8',
		    'net/core/scm.c put_cmsg(): one write region per message, '
		    '3 unsafe_put_user() and the data'),
	SyscallPath('getdents64, per directory entry', ('filldir64',), 1, 'write_8',
		    'fs/readdir.c filldir64(): one write region per entry, '
		    '4 unsafe_put_user() and the name'),
	SyscallPath('poll', ('do_sys_poll',), 1, 'write_8',
		    'fs/select.c do_sys_poll(): one write region for the revents of '
		    'every block of pollfds (one block up to 30 fds)'),
	SyscallPath('readv, writev', ('copy_iovec_from_user',), 1, 'read_2',
		    'lib/iov_iter.c copy_iovec_from_user(): one read region, '
		    '2 unsafe_get_user() per iovec'),
	SyscallPath('signal delivery (x86_64)', ('x64_setup_rt_frame',), 1, 'write_8',
		    'arch/x86/kernel/signal_64.c x64_setup_rt_frame(): one region per '
		    'signal delivered'),
	SyscallPath('return to user after a migration, with rseq', ('__rseq_handle_notify_resume',),
		    1, 'write_8', 'kernel/rseq.c rseq_update_cpu_node_id(): one write region, '
		    '4 unsafe_put_user()'),
)


def estimates(figures: dict, code: Optional[dict]) -> dict:
	"""Estimated TSC cycles one call saves: region entries x cycles saved per
	region of the nearest measured sequence; confirmed when the code section
	shows the functions' LFENCEs gone."""
	saved = figures.get('saved_cycles_per_region', {})
	rows = {}
	for path in SYSCALL_PATHS:
		s = saved.get(path.sequence)
		if not s:
			continue
		row = {'functions': list(path.functions), 'regions_per_call': path.regions,
		       'sequence': path.sequence, 'where': path.where,
		       'saved_cycles_median': _round(path.regions * s['median']),
		       'saved_cycles_min': _round(path.regions * s['min'])}
		if code:
			# The converted objects' table, else the tree-wide one.
			found = ([f for f in code.get('functions', {}).values()
				  if f['function'] in path.functions]
				 or [f for f in code.get('tree', {}).get('lfence_functions', {}).values()
				     if f['function'] in path.functions])
			row['lfence_before'] = sum(f['lfence_before'] for f in found) if found else None
			row['lfence_after'] = sum(f['lfence_after'] for f in found) if found else None
		rows[path.syscall] = row
	return rows


def native_figures(runs: dict[str, NativeRun]) -> dict:
	"""bench.json's native section: the baseline tree's sequences (6.12's
	checked and masked begins) at the top, the series' scopes beside them."""
	base = sequence_figures(runs['baseline']) if 'baseline' in runs else {}
	figures: dict = dict(base)
	pairs = pair_figures(base, 'masked')
	figures['ratio_masked_over_checked'] = pairs['ratios']
	figures['saved_cycles_per_region'] = pairs['saved']
	if 'series' in runs:
		series = sequence_figures(runs['series'])
		figures['series'] = series
		for name, entry in series.items():
			if name.startswith('scoped_'):
				figures[name] = entry
		figures['ratio_scoped_over_checked'] = pair_figures(series, 'scoped')['ratios']
		figures['ratio_scoped_over_masked'] = pair_figures(series, 'scoped', 'masked')['ratios']
	return figures


def cpu_facts(cpuinfo: str) -> dict:
	"""The first CPU of /proc/cpuinfo: model, family/model/stepping, and flags
	that qualify a TSC figure."""
	facts: dict = {}
	for line in cpuinfo.splitlines():
		if not line.strip():
			if facts:
				break
			continue
		key, _, value = (s.strip() for s in line.partition(':'))
		if key in ('model name', 'vendor_id', 'cpu family', 'model', 'stepping', 'microcode'):
			facts[key.replace(' ', '_')] = value
		elif key == 'flags':
			flags = set(value.split())
			facts['flags'] = sorted(flags & {'hypervisor', 'constant_tsc', 'nonstop_tsc',
							 'tsc_known_freq', 'smap', 'rdtscp'})
	return facts


def _cpu_text(facts: dict) -> str:
	text = facts.get('model_name', 'unknown CPU')
	if 'cpu_family' in facts:
		text += (f' (family {facts["cpu_family"]}, model {facts.get("model")}, stepping '
			 f'{facts.get("stepping")})')
	return text


def compiler_text(config: str) -> Optional[str]:
	"""CONFIG_CC_VERSION_TEXT of a .config: the compiler of the build."""
	m = re.search(r'^CONFIG_CC_VERSION_TEXT="(?P<text>.*)"$', config, re.MULTILINE)
	return m.group('text') if m else None


_FUNC = re.compile(r'^[0-9a-f]+ <(?P<name>[^>]+)>:$')
_INSN = re.compile(r'^\s*[0-9a-f]+:\s+(?P<insn>.*\S)\s*$')
_TARGET = re.compile(r'[0-9a-f]+ <[^>+]+(?P<offset>\+0x[0-9a-f]+)?>')


def region_code(disassembly: str) -> dict[str, list[str]]:
	"""region_<sequence> -> its instructions, from `objdump -d --no-show-raw-insn`,
	branch targets as offsets into the function, so that two functions compare."""
	code: dict[str, list[str]] = {}
	current: Optional[list[str]] = None
	for line in disassembly.splitlines():
		if m := _FUNC.match(line):
			name = m.group('name')
			current = code.setdefault(name[len('region_'):], []) if name.startswith('region_') else None
		elif current is not None and (m := _INSN.match(line)):
			current.append(_TARGET.sub(lambda t: f'<{t.group("offset") or "+0x0"}>',
						   m.group('insn')))
	# Trailing padding (int3 or nop up to the next function's alignment).
	for insns in code.values():
		while insns and insns[-1].split()[0] in ('nop', 'nopl', 'nopw', 'int3', 'xchg', 'cs', 'data16'):
			insns.pop()
	return code


def same_code(baseline: dict[str, list[str]], series: dict[str, list[str]]) -> dict:
	"""Which sequences compile to the same instructions: the series' scopes
	against its masked begins, and the series' checked and masked begins
	against 6.12's (the series changes the x86 accessors underneath)."""
	result: dict = {'scoped_as_masked': {}, 'series_as_baseline': {}}
	for op in OPS:
		for count in COUNTS:
			key = f'{op}_{count}'
			scoped = series.get(sequence_name('scoped', op, count))
			if scoped is not None:
				result['scoped_as_masked'][key] = scoped == series.get(
					sequence_name('masked', op, count))
			for begin in ('checked', 'masked'):
				name = sequence_name(begin, op, count)
				if name in baseline and name in series:
					result['series_as_baseline'][name] = baseline[name] == series[name]
	return result


def build_commands(tree: NativeTree) -> tuple[Command, Command]:
	"""The kbuild command for the object and the link of the program."""
	build = kbuild.Build(tree.kdir, tree.build_dir)
	obj = build.make(f'M={tree.module_dir.resolve()}', OBJECT, nice=True)
	return obj, link_command(tree.module_dir / OBJECT, tree.program)


def link_command(regions: Path, program: Path) -> Command:
	"""native_bench.c linked with the sequences (an object, or a stand-in source)."""
	return Command(('gcc', '-O2', '-Wall', '-Wextra', '-no-pie', '-o', str(program),
			str(PROGRAM), str(regions), f'-Wl,-T,{LINKER_SCRIPT}'))


def run_command(program: Path, rounds: int, regions: int, warmup: int) -> Command:
	return Command((str(program), '-r', str(rounds), '-n', str(regions), '-w', str(warmup)))


def build_native(runner: Runner, request: BenchRequest, tree: NativeTree) -> None:
	"""Configures (when needed) and prepares the tree's build, compiles the
	sequences with kbuild, links the program."""
	build = kbuild.Build(tree.kdir, tree.build_dir)
	if request.build:
		kbuild.configure(runner, build, syscalls.CONFIG)
		prepared = runner.run(build.make('prepare', jobs=request.jobs, nice=True),
				      Output.CAPTURE, check=False)
		if prepared.returncode != 0:
			raise EnvironmentProblem(f'{tree.name}: make prepare failed: '
						 f'{kbuild.failure_line(prepared.output + prepared.stderr)}')
	if not runner.dry_run:
		tree.module_dir.mkdir(parents=True, exist_ok=True)
		for name in KERNEL_FILES:
			shutil.copyfile(SOURCES / name, tree.module_dir / name)
	obj, link = build_commands(tree)
	runner.run(obj, Output.CAPTURE, fix=f'the {tree.name} build must be configured '
		   '(drop --no-build)')
	runner.run(link, Output.CAPTURE)


def run_native(runner: Runner, request: BenchRequest, record: dict) -> dict:
	"""Builds and runs the program against the baseline and the series tree."""
	tag = 'bench[native]'
	runs: dict[str, NativeRun] = {}
	record['trees'] = {}
	for tree in native_trees(request):
		runner.say(f'{tag}: {tree.name}: the sequences of {_rel(tree.kdir)}\'s headers')
		build_native(runner, request, tree)
		command = run_command(tree.program, request.native_rounds, request.native_regions,
				      request.native_warmup)
		result = runner.run(command, Output.CAPTURE, check=False)
		obj, link = build_commands(tree)
		record['trees'][tree.name] = {
			'tree': _rel(tree.kdir), 'build_dir': _rel(tree.build_dir),
			'build_command': _relative_paths(obj.shell_line()),
			'link_command': _relative_paths(link.shell_line()),
			'run_command': _relative_paths(command.shell_line())}
		if runner.dry_run:
			continue
		output = WORK / f'native-{tree.name}.txt'
		output.write_text(result.output)
		run = parse_native_output(result.output.splitlines())
		if result.returncode != 0 or not run.checked:
			raise EnvironmentProblem(f'native_bench ({tree.name}) failed: '
						 f'{result.stderr.strip() or "no check"}',
						 f'see {_rel(output)}')
		dotconfig = tree.build_dir / '.config'
		config = dotconfig.read_text() if dotconfig.is_file() else ''
		record['trees'][tree.name].update(
			output=_rel(output), patched=run.patched, tsc_step=tsc_step(run),
			asm_goto_output_broken=kbuild.config_value(config, 'GCC_ASM_GOTO_OUTPUT_BROKEN') == 'y',
			compiler=compiler_text(config))
		record.update(cpu=run.cpu, rounds=run.rounds, regions=run.regions, warmup=run.warmup)
		runs[tree.name] = run
	try:
		record['cpu_facts'] = cpu_facts(Path('/proc/cpuinfo').read_text())
	except OSError:
		record['cpu_facts'] = {}
	if runner.dry_run:
		return {}
	figures = native_figures(runs)
	code = {tree.name: region_code(runner.run(Command(
			('objdump', '-d', '--no-show-raw-insn', str(tree.module_dir / OBJECT)),
			mutates=False), Output.CAPTURE).output)
		for tree in native_trees(request)}
	figures['same_code'] = same_code(code['baseline'], code['series'])
	record['same_code_command'] = ('objdump -d --no-show-raw-insn '
				       'build/out/user-{baseline,series}/native_regions/native_regions.o')
	for key, r in figures['ratio_masked_over_checked'].items():
		runner.say(f'{tag}: {key:8} masked/checked {r["median"]:.3f} (median), '
			   f'{r["min"]:.3f} (min); saved {figures["saved_cycles_per_region"][key]["median"]} '
			   'TSC cycles per region')
	return figures
