# SPDX-License-Identifier: GPL-2.0
"""What the fixes change at run time: the pristine and the fixed kernel, booted with a test.

One record per boot test, a FixBoot: the program of testcases/fixes/
that runs as /init and prints KTAP, the architecture and kernel
configuration it needs, and which of its test points the pristine tree
must fail (the bug, shown) and the fixed one pass.  The tests that need
the same kernel share it: it is built in one directory,
build/out/fixes-<series>-boot-<arch>, first with the fixes (the
worktree fixes.py leaves at them), then at baseline, which rebuilds
only what the fixes touch.  The verdicts go to
build/results/fixes-<series>-boot.txt, and with --install to
reports/linux-<version>/fixes.md.
"""

import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.core.outcome import Outcome, relative, written
from scoped_uaccess.gates import fixes
from scoped_uaccess.kernel import cpio, kbuild, tree, worktree
from scoped_uaccess.kernel.architectures import ARCHES, Arch
from scoped_uaccess.kernel.git import git
from scoped_uaccess.kernel.qemu import ACCELERATORS, Accelerator, boot_command

TESTCASES = paths.REPO / 'testcases' / 'fixes'
CFLAGS = ('-static', '-O2', '-Wall', '-Werror')
_RESULT = re.compile(r'^(?P<ok>ok|not ok) (?P<n>\d+) (?P<text>.*)$')


@dataclass(frozen=True)
class FixBoot:
	"""One boot test of a fix."""
	name: str			# testcases/fixes/<name>.c
	arch: Arch
	config: Path			# the starting .config
	enable: tuple[str, ...]		# and what the test needs on top
	fix: str			# the fix patch whose effect the test shows
	shows_bug: tuple[int, ...]	# test points the pristine tree fails

	@property
	def source(self) -> Path:
		return TESTCASES / f'{self.name}.c'


# The fault sweep's small ppc64le kernel (KUAP on, rseq) with the uprobe
# events of tracefs: one kernel for every test below.
_PPC64LE = (ARCHES['powerpc'], paths.REPO / 'testcases' / 'kernel' / 'faultsweep-ppc64le.config',
	    ('FTRACE', 'PERF_EVENTS', 'UPROBE_EVENTS'))

BOOTS: tuple[FixBoot, ...] = (
	# emulate_dcbz() reached through a uprobe on a dcbz: uprobes emulate
	# the probed instruction.
	FixBoot('dcbz-uprobe', *_PPC64LE,
		'powerpc/sstep: Zero the aligned cache block in emulate_dcbz()', shows_bug=(2,)),
	# rseq_update_user_cs() reached by a signal inside a sequence: the fix
	# changes nothing architecturally, both kernels must pass.
	FixBoot('rseq-abort', *_PPC64LE,
		'rseq: Clamp the signature address against speculation', shows_bug=()),
)


@dataclass
class Run:
	"""One boot of one kernel with one test."""
	tree: str			# pristine, fixed
	results: dict[int, tuple[bool, str]] = field(default_factory=dict)
	problems: list[str] = field(default_factory=list)
	log: Path = Path()


def parse_console(text: str, name: str) -> tuple[dict[int, tuple[bool, str]], list[str]]:
	"""The KTAP test points between the program's `# fixes-... begin` and
	`end` lines, and what went wrong around them (no end line, a bail out,
	an oops)."""
	results: dict[int, tuple[bool, str]] = {}
	problems = []
	inside = done = False
	for raw in text.splitlines():
		line = raw.strip()
		if any(m in line for m in ('Oops', 'BUG:', 'Kernel panic')):
			problems.append(line)
		if re.fullmatch(r'# fixes-\S+ begin', line):
			inside = True
		elif re.fullmatch(r'# fixes-\S+ end', line):
			inside, done = False, True
		elif inside and line.startswith('Bail out!'):
			problems.append(line)
		elif inside and (m := _RESULT.match(line)):
			results[int(m['n'])] = (m['ok'] == 'ok', m['text'])
	if not done:
		problems.append(f'{name}: no end line on the console')
	return results, problems


def build_kernel(runner: Runner, boot: FixBoot, srctree: Path, out: Path, jobs: int) -> Path:
	build = kbuild.Build(srctree, out, boot.arch, ())
	kbuild.configure(runner, build, boot.config, boot.enable)
	assert boot.arch.qemu is not None
	image = boot.arch.qemu.kernel_image
	run = kbuild.build(runner, build, (Path(image).name,), jobs,
			   sink=kbuild.build_progress(runner.say))
	if run.returncode != 0:
		raise EnvironmentProblem(f'the {boot.arch.name} kernel for {boot.name} did not build '
					 f'({kbuild.failure_line(run.output)})', f'see {out}')
	return out / image


def initramfs(runner: Runner, boot: FixBoot, work: Path) -> Path:
	if shutil.which(boot.arch.gcc) is None:
		raise EnvironmentProblem(f'{boot.arch.gcc} is not installed', 'run `make deps`')
	program = work / boot.name
	if not runner.dry_run:
		work.mkdir(parents=True, exist_ok=True)
	runner.run(Command((boot.arch.gcc, *boot.arch.user_cflags, *CFLAGS, '-o', str(program),
			    str(boot.source))), Output.CAPTURE)
	initrd = work / f'{boot.name}.cpio'
	if not runner.dry_run:
		cpio.write(initrd, [cpio.directory('dev'), cpio.directory('proc'),
				    cpio.directory('sys'), cpio.char_device('dev/console', 5, 1),
				    cpio.file('init', program)])
	return initrd


def boot_once(runner: Runner, boot: FixBoot, kernel: Path, initrd: Path, log: Path,
	      label: str) -> Run:
	run = Run(label, log=log)
	if runner.dry_run:
		return run
	log.parent.mkdir(parents=True, exist_ok=True)
	done = runner.run(boot_command(boot.arch, kernel, initrd, (), ACCELERATORS[Accelerator.TCG]),
			  Output.LINES, check=False, log=log,
			  sink=lambda line: runner.say(f'  {label}: {line.rstrip()}')
			  if _RESULT.match(line.strip()) else None)
	run.results, run.problems = parse_console(log.read_text(errors='replace'), boot.name)
	if done.returncode != 0:
		run.problems.append(f'QEMU exited with status {done.returncode}')
	return run


def verdict(boot: FixBoot, pristine: Run, fixed: Run) -> list[str]:
	"""What is wrong: the pristine kernel must fail exactly the points that
	show the bug, the fixed one none."""
	wrong = [f'{r.tree}: {p}' for r in (pristine, fixed) for p in r.problems]
	if not pristine.results or not fixed.results:
		return wrong + ['no test results']
	for n, (ok, text) in sorted(pristine.results.items()):
		if ok == (n in boot.shows_bug):
			wrong.append(f'pristine: {"passes" if ok else "fails"} {n} {text}')
	wrong += [f'fixed: fails {n} {text}' for n, (ok, text) in sorted(fixed.results.items())
		  if not ok]
	return wrong


def run_boots(runner: Runner, request: fixes.FixesRequest) -> list[tuple[FixBoot, Run, Run]]:
	"""Per kernel configuration, the kernel with the fixes booted with each
	of its tests, then the pristine kernel, rebuilt from it, likewise."""
	wt, _ = fixes.apply(runner, request)
	head = worktree.head(runner, wt)
	series = request.source.series
	logs = paths.RESULTS / f'fixes-{series}-boot'
	runs: dict[str, dict[str, Run]] = {b.name: {} for b in BOOTS}
	kernels: dict[tuple, list[FixBoot]] = {}
	for boot in BOOTS:
		kernels.setdefault((boot.arch.name, boot.config, boot.enable), []).append(boot)
	for (arch, _, _), boots in kernels.items():
		work = paths.OUT / f'fixes-{series}-boot-{arch}'
		initrds = {b.name: initramfs(runner, b, paths.OUT / f'fixes-{series}-programs')
			   for b in boots}
		for label, commit in (('fixed', head), ('pristine', tree.BASELINE_TAG)):
			runner.say(f'fixes: the {label} {arch} kernel')
			runner.run(git(wt, 'checkout', '-q', '--detach', commit, mutates=True))
			try:
				kernel = build_kernel(runner, boots[0], wt, work, request.jobs)
			finally:
				runner.run(git(wt, 'checkout', '-q', '--detach', head, mutates=True))
			for b in boots:
				runs[b.name][label] = boot_once(runner, b, kernel, initrds[b.name],
								logs / f'{b.name}-{label}.log', label)
	return [(b, runs[b.name]['pristine'], runs[b.name]['fixed']) for b in BOOTS]


def markdown(version: str, runs: list[tuple[FixBoot, Run, Run]], command: str) -> str:
	"""reports/linux-<version>/fixes.md: per boot test, each point on each
	kernel.  Nothing of this machine: no paths, no times."""
	lines = [f'# The fixes for Linux {version}, booted', '',
		 f'Written by `{command}`: each test of `testcases/fixes/` runs as /init of a kernel '
		 'of the pristine tree and of one with the fixes of `fixes/series` applied, in QEMU '
		 '(TCG).  The pristine kernel must fail the points that show the bug, the fixed '
		 'one none.', '']
	for boot, pristine, fixed in runs:
		shown = (f'Test {", ".join(map(str, boot.shows_bug))} shows the bug.' if boot.shows_bug
			 else 'The fix changes nothing architecturally: both kernels must pass.')
		lines += [f'## {boot.name} ({boot.arch.name}): {boot.fix}', '',
			  f'`testcases/fixes/{boot.name}.c`, kernel configuration '
			  f'`{relative(boot.config)}` with {", ".join("CONFIG_" + e for e in boot.enable)}.  '
			  f'{shown}', '',
			  '| test | pristine | fixed |', '|---|---|---|']
		for n in sorted(set(pristine.results) | set(fixed.results)):
			lines.append(f'| {n} | {_cell(pristine, n)} | {_cell(fixed, n)} |')
		lines.append('')
	return '\n'.join(lines)


def _cell(run: Run, n: int) -> str:
	ok, text = run.results.get(n, (False, 'no result'))
	return f'{"ok" if ok else "**not ok**"}: {text}'


def step(runner: Runner, request: fixes.FixesRequest, install: bool = False) -> Outcome:
	start = time.monotonic()
	runs = run_boots(runner, request)
	if runner.dry_run:
		return Outcome.ok('dry run')
	problems = [f'{b.name}: {w}' for b, p, f in runs for w in verdict(b, p, f)]
	version = tree.kernel_version(request.kdir)
	command = f'converter/scoped-uaccess fixes --kdir {relative(request.kdir)} --boot --install'
	text = markdown(version, runs, command)
	written(paths.RESULTS / f'fixes-{request.source.series}-boot.md', text)
	if install and not problems:
		written(paths.REPO / 'reports' / f'linux-{version}' / 'fixes.md', text)
	summary = (f'{len(runs)} boot test(s): the pristine kernel shows the bug and the fixed one '
		   f'does not' if not problems else '; '.join(problems))
	runner.say(f'fixes: boots took {time.monotonic() - start:.0f} s')
	return Outcome.ok(summary) if not problems else Outcome.findings(summary)
