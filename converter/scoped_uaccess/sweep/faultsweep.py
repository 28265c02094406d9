# SPDX-License-Identifier: GPL-2.0
"""The differential fault sweep: baseline and converted kernels, record by record.

For each target of sweep/guest.py (x86_64 with its i386 binary,
ppc64le with KUAP) the baseline and the converted kernel are built with
the same configuration, booted with the sweep, and their records
compared (sweep/records.py): the walks' records and the argument
sweep's (sweep/argreport.py).  Any difference fails, and so does a
console with a KUAP "Bug:", a WARNING or an oops, a program that did not
finish, or a ppc64le boot that does not say KUAP is on.  A target that
cannot boot (its compiler or QEMU missing) is reported as not run, in the
reports too, and the command exits with an environment error.

The baseline is the series up to its API (kernel/baseline.py): its
kernel is built incrementally in the converted kernel's build directory
and its image kept apart.  x86_64 boots the kernels of the userspace
tests (the gcc KUnit kernel and build/out/user-<name>): inside `make
validate` they were just built, so the sweep costs two boots there.
ppc64le builds build/out/faultsweep-ppc64le-converted from validate's
converted worktree and keeps its baseline's image in
build/out/faultsweep-ppc64le-baseline.
"""

import concurrent.futures
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem, UsageError
from scoped_uaccess.core.outcome import Outcome, format_seconds, relative, written
from scoped_uaccess.kernel import baseline, kbuild, sources, tree, treefacts, worktree
from scoped_uaccess.kernel.git import git
from scoped_uaccess.kernel.qemu import ACCELERATORS, AccelChoice, choose_accelerator
from scoped_uaccess.kernel.toolchains import GCC
from scoped_uaccess.sweep import argreport, guest, records as sweep_records
from scoped_uaccess.sweep import report as sweep_report
from scoped_uaccess.userspace import syscalls
from scoped_uaccess.sweep.guest import SweepTarget
from scoped_uaccess.sweep.records import Difference, SweepConsole

RESULTS = paths.RESULTS / 'faultsweep'
SIDES = ('baseline', 'converted')
# Differences printed in full on the terminal; all of them go to the file.
SHOWN = 20


@dataclass(frozen=True)
class SweepKernel:
	"""One kernel to boot: the tree it is built from and its build directory
	(for the baseline, where its image is kept: baseline.ensure() builds it)."""
	side: str			# baseline or converted
	srctree: Path
	build_dir: Path
	build: bool = True		# False: boot what build_dir holds


@dataclass(frozen=True)
class FaultsweepRequest:
	converted_tree: Path
	base: str			# the baseline's commit: baseline.boot_base()
	targets: tuple[str, ...] = tuple(guest.TARGETS)
	# The userspace runs whose kernels x86_64 boots (paths.userspace_build_dir).
	x86_names: tuple[str, str] = (paths.BASELINE_RUN, paths.CONVERTED_RUN)
	build_x86: bool = True		# False: they were just built (validate)
	build: bool = True		# False: boot what is built
	jobs: int = kbuild.JOBS
	accel: AccelChoice = AccelChoice.AUTO
	results: Path = RESULTS
	from_logs: bool = False		# no build, no boot: the consoles of the last run
	# The tree converted_tree is a worktree of: its kernels are built apart
	# from those of build/linux (paths.tree_suffix()).
	tree: Path = paths.DEFAULT_KDIR
	report_dir: Optional[Path] = None	# write faultsweep.json and .md there


@dataclass
class TargetResult:
	target: SweepTarget
	consoles: dict[str, SweepConsole] = field(default_factory=dict)
	differences: list[Difference] = field(default_factory=list)
	# Top-walk positions where the masking kernel faults as at a hole
	# (sweep_records.top_as_hole()): reported, not differences.
	as_hole: list[tuple[str, str, str]] = field(default_factory=list)
	problems: list[str] = field(default_factory=list)
	build_seconds: dict[str, float] = field(default_factory=dict)
	boot_seconds: dict[str, float] = field(default_factory=dict)
	accelerator: str = ''
	not_run: str = ''		# why the target was not booted (a tool missing)

	@property
	def passed(self) -> bool:
		return not (self.differences or self.problems or self.not_run)

	def summary(self) -> str:
		if self.not_run:
			return f'{self.target.name}: NOT RUN: {self.not_run}'
		console = self.consoles.get('converted')
		counts = ', '.join(f'{arch} {console.walk_records(arch)}'
				   for arch in self.target.record_archs) if console else 'no records'
		args = ', '.join(f'{arch} {len(console.arg_records(arch=arch))}'
				 for arch in self.target.record_archs) if console else 'none'
		kuap = '; KUAP on' if self.target.kuap and console and console.kuap_on else ''
		as_hole = (f', {len(self.as_hole)} top position(s) faulting as at a hole (masked)'
			   if self.as_hole else '')
		arg_diffs = sum(1 for d in self.differences if sweep_records.is_arg(d.pos))
		return (f'{self.target.name}: {counts} records, argument sweep {args}{kuap}, '
			f'{len(self.differences)} difference(s) ({arg_diffs} in the argument sweep)'
			f'{as_hole}, {len(self.problems)} problem(s)')

	def arch_runs(self) -> list[argreport.ArchRun]:
		"""Per arch of the target, its consoles or why the argument sweep did
		not run there."""
		runs = []
		for arch in self.target.record_archs:
			base, conv = self.consoles.get('baseline'), self.consoles.get('converted')
			runs.append(argreport.ArchRun(arch, base, conv, argreport.not_run_reason(
				arch, base, conv, self.problems, self.not_run)))
		return runs

	def compare(self, masking: tuple[str, ...]) -> None:
		"""The differences of the two consoles; masking: the kernel
		architectures that mask user pointers (treefacts.masking_arches())."""
		base, conv = self.consoles['baseline'], self.consoles['converted']
		archs = self.target.record_archs
		if self.target.kernel.srcarch in masking:
			self.as_hole = sweep_records.top_as_hole(base, conv, archs)
		self.differences = sweep_records.compare(base, conv, archs, self.as_hole)


@dataclass
class SweepResult:
	targets: list[TargetResult] = field(default_factory=list)

	@property
	def passed(self) -> bool:
		return all(t.passed for t in self.targets)

	@property
	def not_run(self) -> list[str]:
		return [f'{t.target.name}: {t.not_run}' for t in self.targets if t.not_run]

	def summary(self) -> str:
		return '; '.join(t.summary() for t in self.targets)


def request_for(runner: Runner, kdir: Path, targets: tuple[str, ...] = tuple(guest.TARGETS),
		baseline_run: str = paths.BASELINE_RUN, build: bool = True,
		jobs: int = kbuild.JOBS, accel: AccelChoice = AccelChoice.AUTO) -> FaultsweepRequest:
	"""The sweep of kdir as validate boots it: its converted worktree at
	kdir's HEAD, the baseline kernels built from the series up to its API;
	build directories and results of kdir's own (paths.tree_suffix())."""
	tree.require_baseline(runner, kdir)
	converted = worktree.converted_worktree(runner, kdir)
	return FaultsweepRequest(
		converted_tree=converted, base=baseline.boot_base(runner, converted), targets=targets,
		x86_names=(baseline_run, paths.CONVERTED_RUN), build=build, jobs=jobs, accel=accel,
		tree=kdir, results=paths.of_tree(RESULTS, kdir))


def kernels(t: SweepTarget, request: FaultsweepRequest) -> tuple[SweepKernel, SweepKernel]:
	"""The baseline and the converted kernel of a target; both come from the
	converted worktree, the baseline through baseline.ensure()."""
	if t.userspace_kernel:
		names, build = request.x86_names, request.build and request.build_x86
	else:
		names, build = SIDES, request.build
	base, conv = (SweepKernel(side, request.converted_tree, t.build_dir(name, request.tree), build)
		      for side, name in zip(SIDES, names))
	return base, conv


def baseline_pair(t: SweepTarget, request: FaultsweepRequest) -> baseline.Pair:
	"""What baseline.ensure() needs for t: the converted kernel's build, the
	configuration, the image and the baseline's directory."""
	base, conv = kernels(t, request)
	return baseline.Pair(kernel_build(t, conv), t.config, t.image, base.build_dir)


def kernel_build(t: SweepTarget, k: SweepKernel) -> kbuild.Build:
	"""The same Build as userspace/syscalls.py's for x86_64 (so the configure stamp
	matches and nothing rebuilds); a cross build without CC= for ppc64le."""
	options = GCC.make_options if t.kernel.cross_compile == '' else ()
	return kbuild.Build(k.srctree, k.build_dir, t.kernel, options)


def build_kernel(runner: Runner, t: SweepTarget, k: SweepKernel, jobs: int,
		 log: Path) -> tuple[list[str], float]:
	"""Configures (once) and builds k's image; returns problems and seconds."""
	build = kernel_build(t, k)
	runner.say(f'faultsweep[{t.name}]: {k.side} kernel {relative(k.build_dir)} from '
		   f'{relative(k.srctree)}, {t.config.name}')
	kbuild.configure(runner, build, t.config)
	if not runner.dry_run:
		report = syscalls.check_config(t.config, k.build_dir / '.config', k.srctree)
		if report.missing:
			return [f'{k.side}: not satisfiable in {t.config.name}: '
				f'{" ".join(report.missing)}'], 0.0
	built = kbuild.build(runner, build, (Path(t.image).name,), jobs, log=log,
			     sink=kbuild.build_progress(runner.say))
	if built.returncode != 0:
		return [f'{k.side}: kernel build failed: {kbuild.failure_line(built.output)}'], \
			built.elapsed
	return [], built.elapsed


def run_target(runner: Runner, t: SweepTarget, request: FaultsweepRequest) -> TargetResult:
	"""Builds (when asked), boots both kernels, compares."""
	result = TargetResult(t)
	pair = kernels(t, request)
	if pair[0].build:
		start = time.monotonic()
		baseline.ensure(runner, request.base, [baseline_pair(t, request)], request.jobs,
				request.results, runner.say)
		result.build_seconds['baseline'] = time.monotonic() - start
	for k in pair[1:]:
		if k.build:
			problems, result.build_seconds[k.side] = build_kernel(
				runner, t, k, request.jobs, request.results / f'{t.name}-{k.side}-build.log')
			result.problems += problems
	missing = [k for k in pair if not (k.build_dir / t.image).is_file()]
	if missing and not runner.dry_run:
		result.problems += [f'{k.side}: no kernel {relative(k.build_dir / t.image)}'
				    for k in missing]
	if result.problems:
		return result
	try:
		initrd = guest.build_initramfs(runner, t)
		guest.require_qemu(runner, t)
	except EnvironmentProblem as e:
		# Reported as not run, in the reports too: never as 0 differences.
		result.not_run = e.one_line()
		result.problems.append(f'not run: {result.not_run}')
		return result
	accelerator, note = choose_accelerator(runner, request.accel, pair[1].build_dir / t.image,
					       t.kernel)
	result.accelerator = f'{accelerator.value} ({note})'
	def boot(k: SweepKernel) -> guest.Boot:
		runner.say(f'faultsweep[{t.name}]: booting the {k.side} kernel under {result.accelerator}')
		return guest.boot(runner, t, k.build_dir / t.image, initrd,
				       request.results / f'{t.name}-{k.side}.log', ACCELERATORS[accelerator])

	# Both kernels at once: a TCG guest runs on one host thread, and the
	# two boots share nothing but the initramfs they read.
	with concurrent.futures.ThreadPoolExecutor(max_workers=len(pair)) as pool:
		boots = list(pool.map(boot, pair))
	for k, booted in zip(pair, boots):
		result.boot_seconds[k.side] = booted.seconds
		result.consoles[k.side] = booted.console
		if not runner.dry_run:
			result.problems += [f'{k.side}: {p}' for p in booted.problems(t)]
	if not runner.dry_run:
		result.compare(treefacts.masking_arches(request.converted_tree))
	return result


def run_sweep(runner: Runner, request: FaultsweepRequest,
	      say: Optional[Callable[[str], None]] = None) -> SweepResult:
	say = say or runner.say
	result = SweepResult()
	if not runner.dry_run:
		request.results.mkdir(parents=True, exist_ok=True)
	for name in request.targets:
		start = time.monotonic()
		target_result = run_target(runner, guest.target(name), request)
		result.targets.append(target_result)
		say(f'faultsweep: {target_result.summary()} '
		    f'({format_seconds(time.monotonic() - start)})')
		for d in target_result.differences[:SHOWN]:
			say(f'  differs: {d}')
		if len(target_result.differences) > SHOWN:
			say(f'  ... {len(target_result.differences) - SHOWN} more in '
			    f'{relative(request.results / "faultsweep.txt")}')
		for p in target_result.problems:
			say(f'  {p}')
	if not runner.dry_run:
		write_results(request.results, result)
	return result


def report(result: SweepResult) -> str:
	"""The text of build/results/faultsweep/faultsweep.txt: verdicts,
	problems, every difference, records per path and arch."""
	lines = []
	for tr in result.targets:
		lines.append(f'{"PASS" if tr.passed else "FAIL"} {tr.summary()}')
		for side in SIDES:
			if side in tr.build_seconds or side in tr.boot_seconds:
				lines.append(f'  {side}: build {tr.build_seconds.get(side, 0):.0f} s, boot '
					     f'{tr.boot_seconds.get(side, 0):.0f} s ({tr.accelerator})')
		lines += [f'  {p}' for p in tr.problems]
		lines += [f'  differs: {d}' for d in tr.differences]
		lines += [f'  faults as at a hole (masked): {" ".join(k)}' for k in tr.as_hole]
	lines.append(f'verdict: {"PASS" if result.passed else "FAIL"}')
	for tr in result.targets:
		console = tr.consoles.get('converted')
		if console is None:
			continue
		lines += ['', f'=== {tr.target.name}: records per path (converted kernel)']
		for path, arch in console.paths():
			if (path, arch) in console.skips:
				lines.append(f'{path:28} {arch:8} skip: {console.skips[(path, arch)]}')
			else:
				lines.append(f'{path:28} {arch:8} {len(console.records_of(path, arch))}')
		lines += ['', f'=== {tr.target.name}: argument sweep, values per row (converted kernel)']
		for key in console.arg_keys():
			path, arch, arg = key
			what = (f'skip: {console.arg_skips[key]}' if key in console.arg_skips
				else str(len(console.arg_records(key))))
			lines.append(f'{path + " " + arg:40} {arch:8} {what}')
	return '\n'.join(lines) + '\n'


def write_results(out: Path, result: SweepResult) -> None:
	"""faultsweep.txt, and summary.json: what the report renders."""
	written(out / 'faultsweep.txt', report(result))
	written(out / 'summary.json', json.dumps(summary_data(result), indent=1) + '\n')


def summary_data(result: SweepResult) -> dict:
	"""Per target: the logs it compared (relative) and whether it passed."""
	return {'targets': [{
		'target': tr.target.name,
		'archs': list(tr.target.record_archs),
		'kuap': tr.target.kuap,
		'passed': tr.passed,
		'problems': tr.problems,
		'logs': {side: f'{tr.target.name}-{side}.log' for side in tr.consoles},
	} for tr in result.targets]}


def from_logs(results: Path, targets: tuple[str, ...], masking: tuple[str, ...]) -> SweepResult:
	"""A sweep's result again from the consoles it kept: no build, no boot."""
	result = SweepResult()
	for name in targets:
		tr = TargetResult(guest.target(name))
		for side in SIDES:
			log = results / f'{name}-{side}.log'
			if not log.is_file():
				raise UsageError(f'{relative(log)} does not exist', 'run `make faultsweep` first')
			tr.consoles[side] = guest.parse_log(log)
			tr.problems += [f'{side}: {p}' for p in
					tr.consoles[side].problems(tr.target.record_archs, tr.target.kuap)]
		tr.compare(masking)
		result.targets.append(tr)
	return result


def kernels_description(runner: Runner, converted_tree: Path, base: str) -> tuple[str, str]:
	"""What the baseline and the converted kernel are built from."""
	count = runner.run(git(converted_tree, 'rev-list', '--count', f'{tree.BASELINE_TAG}..HEAD'),
			   Output.CAPTURE).output.strip()
	return (baseline.describe(runner, converted_tree, base),
		f'baseline + the {count} commits of the series '
		f'({relative(sources.patches_for(converted_tree) / "series")})')


def report_kdir(runner: Runner, kdir: Path) -> Path:
	"""The tree a report's command names: kdir, or the tree kdir is a git
	worktree of when both are at the same commit (a worktree of a tree's
	HEAD builds what the tree would)."""
	common = runner.run(git(kdir, 'rev-parse', '--path-format=absolute', '--git-common-dir'),
			    Output.CAPTURE).output.strip()
	main = Path(common).parent
	if main.resolve() == Path(kdir).resolve():
		return kdir
	heads = [runner.run(git(d, 'rev-parse', 'HEAD'), Output.CAPTURE).output.strip()
		 for d in (kdir, main)]
	return main if heads[0] == heads[1] else kdir


def write_report(runner: Runner, result: SweepResult, out: Path, converted_tree: Path,
		 base: str, kdir: Path = paths.DEFAULT_KDIR) -> list[str]:
	"""reports/linux-<version>/faultsweep.json and .md; returns their paths."""
	version = tree.kernel_version(converted_tree)
	conversion_file = out / 'conversion.json'
	conversion = json.loads(conversion_file.read_text()) if conversion_file.is_file() else None
	targets, consoles, diffs = [], {}, []
	as_hole: list[tuple[str, str, str]] = []
	runs: list[argreport.ArchRun] = []
	for tr in result.targets:
		runs += tr.arch_runs()
		walk_diffs = [d for d in tr.differences if not sweep_records.is_arg(d.pos)]
		if tr.not_run:
			targets.append({'target': tr.target.name, 'archs': list(tr.target.record_archs),
					'config': relative(tr.target.config), 'kuap': tr.target.kuap,
					'not_run': tr.not_run, 'problems': tr.problems})
			continue
		before, conv = tr.consoles['baseline'], tr.consoles['converted']
		targets.append({
			'target': tr.target.name, 'archs': list(tr.target.record_archs),
			'config': relative(tr.target.config), 'kuap': tr.target.kuap,
			'kuap_on': before.kuap_on and conv.kuap_on,
			'records': {a: conv.walk_records(a) for a in tr.target.record_archs},
			'differences': len(walk_diffs), 'as_hole': len(tr.as_hole),
			'problems': tr.problems})
		consoles.update({a: conv for a in tr.target.record_archs})
		diffs += walk_diffs
		as_hole += tr.as_hole
	kernels = kernels_description(runner, converted_tree, base)
	named = report_kdir(runner, kdir)
	command = (sweep_report.COMMAND if not paths.tree_suffix(named) else
		   f'converter/scoped-uaccess faultsweep --kdir {relative(named)} --install')
	data = sweep_report.report_data(version, kernels, targets, consoles, diffs, as_hole,
					conversion, command)
	args = argreport.report_data(version, kernels, runs,
				     [d for tr in result.targets for d in tr.differences], command)
	return [written(out / 'faultsweep.json', sweep_report.render_json(data)),
		written(out / 'faultsweep.md', sweep_report.render_markdown(data)),
		written(out / 'argsweep.json', argreport.render_json(args)),
		written(out / 'argsweep.md', argreport.render_markdown(args))]


def step(runner: Runner, request: FaultsweepRequest) -> Outcome:
	"""`scoped-uaccess faultsweep`: build/results/faultsweep/ and a summary;
	with report_dir, the report too (written when the sweep fails as well:
	it shows the differences)."""
	if request.from_logs:
		result = from_logs(request.results, request.targets,
				   treefacts.masking_arches(request.converted_tree))
	else:
		result = run_sweep(runner, request)
		if runner.dry_run:
			return Outcome.ok('dry run')
	if request.report_dir is not None:
		files = write_report(runner, result, request.report_dir, request.converted_tree,
				     request.base, request.tree)
		runner.say(f'faultsweep: wrote {", ".join(files)}')
	summary = result.summary()
	runner.say(f'faultsweep: details: {relative(request.results / "faultsweep.txt")}')
	if result.not_run:
		raise EnvironmentProblem(f'fault and argument sweep not run on {"; ".join(result.not_run)}',
					 'install what is missing (`make deps`) and run it again')
	if not result.passed:
		return Outcome.findings(summary)
	return Outcome.ok(summary)
