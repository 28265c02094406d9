# SPDX-License-Identifier: GPL-2.0
"""What the fixes change at run time: the pristine and the fixed kernel, booted with a test.

One record per boot test, a FixBoot: the program of testcases/fixes/
that runs as /init and prints KTAP, the architecture and kernel
configuration it needs, and which of its test points the pristine tree
must fail (the bug, shown) and the fixed one pass.  A test may name a
control: a wrong version of its fix (a patch in testcases/fixes/) that
a third kernel carries in the fix's place, and the points that kernel
must fail on that architecture, so that the report shows the test can
catch a wrong fix.  The tests that need the same kernel share it: it is
built in one directory, build/out/fixes-<series>-boot-<arch>, first
with the fixes (the worktree fixes.py leaves at them), then with the
control, then at baseline, each rebuilding only what differs.  The
verdicts go to build/results/fixes-<series>-boot.txt, and with
--install to reports/linux-<version>/fixes.md.
"""

import dataclasses
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import CommandFailed, EnvironmentProblem, TreeStateError, UsageError
from scoped_uaccess.core.outcome import Outcome, relative, written
from scoped_uaccess.gates import fixes
from scoped_uaccess.kernel import cpio, initramfs, kbuild, tree, worktree
from scoped_uaccess.kernel.architectures import ARCHES, Arch
from scoped_uaccess.kernel.git import git
from scoped_uaccess.kernel.qemu import ACCELERATORS, Accelerator, boot_command
from scoped_uaccess.kernel.series import read_series

TESTCASES = paths.REPO / 'testcases' / 'fixes'
KCONFIGS = paths.REPO / 'testcases' / 'kernel'
CFLAGS = ('-static', '-O2', '-Wall', '-Werror')
# A program built with the tree's nolibc: no C library, the kernel's uapi
# headers of its architecture (headers_install of the boot's build).
NOLIBC_CFLAGS = ('-static', '-nostdlib', '-fno-stack-protector', '-O2', '-Wall', '-Werror')
NOLIBC_HEADER = Path('tools/include/nolibc/nolibc.h')
_RESULT = re.compile(r'^(?P<ok>ok|not ok) (?P<n>\d+) (?P<text>.*)$')
_TASK_SIZE = re.compile(r'^# TASK_SIZE (?P<size>0x[0-9a-f]+)$')

PRISTINE, CONTROL, FIXED = 'pristine', 'control', 'fixed'


@dataclass(frozen=True)
class FixBoot:
	"""One boot test of a fix on one architecture."""
	name: str			# testcases/fixes/<name>.c
	arch: Arch
	config: Path			# the starting .config
	enable: tuple[str, ...]		# and what the test needs on top
	fix: str			# the subject of the fix patch whose effect the test shows
	shows_bug: tuple[int, ...]	# test points the pristine tree fails
	control: Optional[Path] = None	# a wrong version of that fix, booted in its place
	control_fails: tuple[int, ...] = ()	# the points the control kernel fails here
	nolibc: bool = False		# built with the tree's nolibc instead of a C library

	@property
	def source(self) -> Path:
		return TESTCASES / f'{self.name}.c'

	@property
	def key(self) -> str:
		return f'{self.name}-{self.arch.name}'

	@property
	def kernel(self) -> tuple[str, Path, tuple[str, ...]]:
		"""What selects the kernel the test boots: tests that agree share it."""
		return self.arch.name, self.config, self.enable

	def expected_failures(self, label: str) -> tuple[int, ...]:
		return {PRISTINE: self.shows_bug, CONTROL: self.control_fails, FIXED: ()}[label]


DCBZ_FIX = 'powerpc/sstep: Zero the aligned cache block in emulate_dcbz()'
RSEQ_FIX = 'rseq: Mask the signature address against speculation'
# The rseq fix with the generic array_index_nospec() against TASK_SIZE,
# which takes both operands to be at most LONG_MAX: on a 32-bit kernel
# with TASK_SIZE above 2 GiB and no array_index_mask_nospec() of its own
# it turns the signature address of every abort into 0.
RSEQ_CONTROL = TESTCASES / 'rseq-array-index-nospec.patch'

# The fault sweep's small ppc64le kernel (KUAP on, rseq) with the uprobe
# events of tracefs: one kernel for both ppc64le tests.
_PPC64LE = (ARCHES['powerpc'], KCONFIGS / 'faultsweep-ppc64le.config',
	    ('FTRACE', 'PERF_EVENTS', 'UPROBE_EVENTS'))
_X86_64 = (ARCHES['x86_64'], KCONFIGS / 'fixes-x86.config', ())
# Under qboot the 32-bit kernel without ACPI gets no timer interrupt and
# hangs after `clocksource: pit`; QEMU's default firmware, SeaBIOS, sets
# the PIC and PIT up so that it boots.
_I386_QEMU = dataclasses.replace(
	ARCHES['i386'].qemu, machine_args=tuple(a for a in ARCHES['i386'].qemu.machine_args
						if a not in ('-bios', 'qboot.rom')))
_I386 = (dataclasses.replace(ARCHES['i386'], qemu=_I386_QEMU), KCONFIGS / 'fixes-x86.config', ())
_E500 = (ARCHES['powerpc32'], KCONFIGS / 'fixes-e500.config', ())


def _rseq(platform: tuple[Arch, Path, tuple[str, ...]], control_fails: tuple[int, ...] = ()
	  ) -> FixBoot:
	"""rseq_update_user_cs() reached by a preemption inside a sequence: the
	fix changes nothing architecturally, both kernels must pass; the
	control kills the task on every abort where array_index_nospec() is
	wrong for valid user addresses."""
	return FixBoot('rseq-abort', *platform, RSEQ_FIX, shows_bug=(), control=RSEQ_CONTROL,
		       control_fails=control_fails, nolibc=True)


BOOTS: tuple[FixBoot, ...] = (
	# 32-bit, TASK_SIZE 0xbffe0000, the generic array_index_mask_nospec():
	# the control reads the signature of every abort from address 0.
	_rseq(_E500, control_fails=(1,)),
	# 32-bit, TASK_SIZE 3 GiB: x86's array_index_mask_nospec() compares
	# unsigned (cmp, sbb), so the control passes here.
	_rseq(_I386),
	_rseq(_X86_64),
	# emulate_dcbz() reached through a uprobe on a dcbz: uprobes emulate
	# the probed instruction.
	FixBoot('dcbz-uprobe', *_PPC64LE, DCBZ_FIX, shows_bug=(2,)),
	_rseq(_PPC64LE),
)


@dataclass
class Run:
	"""One boot of one kernel with one test."""
	tree: str			# pristine, control, fixed
	results: dict[int, tuple[bool, str]] = field(default_factory=dict)
	problems: list[str] = field(default_factory=list)
	task_size: str = ''		# as the test found it, when it reports it
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


def task_size(text: str) -> str:
	"""The TASK_SIZE a test printed as `# TASK_SIZE 0x...`, or ''."""
	for raw in text.splitlines():
		if m := _TASK_SIZE.match(raw.strip()):
			return m['size']
	return ''


def patch_subject(patch: Path) -> str:
	"""The Subject: of a format-patch file, without its [PATCH n/m] tag."""
	m = re.search(r'^Subject: (.*(?:\n .*)*)', patch.read_text(errors='replace'), re.MULTILINE)
	if not m:
		return ''
	return re.sub(r'^\[PATCH[^\]]*\] ', '', ' '.join(m[1].split()))


def control_series(series: list[Path], boot: FixBoot) -> list[Path]:
	"""The fixes with boot.control in the place of the patch boot.fix names."""
	assert boot.control is not None
	if not boot.control.is_file():
		raise UsageError(f'{relative(boot.control)} does not exist',
				 f'restore it, or drop control= from the {boot.key} record')
	found = [p for p in series if patch_subject(p) == boot.fix]
	if not found:
		raise UsageError(f'no patch of the fixes series has the subject "{boot.fix}"',
				 f'update the {boot.key} record in gates/fixes_boot.py')
	return [boot.control if p == found[0] else p for p in series]


def apply_at_baseline(runner: Runner, wt: Path, patches: list[Path]) -> None:
	"""Detaches wt at baseline and applies patches with git am."""
	runner.run(git(wt, 'checkout', '-q', '--detach', tree.BASELINE_TAG, mutates=True))
	for patch in patches:
		try:
			runner.run(git(wt, '-c', 'commit.gpgsign=false', 'am', '--quiet',
					str(patch.resolve()), mutates=True), Output.CAPTURE)
		except CommandFailed as e:
			runner.run(git(wt, 'am', '--abort', mutates=True), Output.CAPTURE, check=False)
			raise TreeStateError(f'{relative(patch)} does not apply with the fixes before it '
					     f'({e.problem})', 'rebase the control on the fixes') from e


def build_kernel(runner: Runner, boot: FixBoot, srctree: Path, out: Path,
		 jobs: int) -> tuple[kbuild.Build, Path]:
	build = kbuild.Build(srctree, out, boot.arch, ())
	kbuild.configure(runner, build, boot.config, boot.enable)
	assert boot.arch.qemu is not None
	image = boot.arch.qemu.kernel_image
	run = kbuild.build(runner, build, (Path(image).name,), jobs,
			   sink=kbuild.build_progress(runner.say))
	if run.returncode != 0:
		raise EnvironmentProblem(f'the {boot.arch.name} kernel for {boot.name} did not build '
					 f'({kbuild.failure_line(run.output)})', f'see {out}')
	return build, out / image


def compile_command(boot: FixBoot, program: Path, sysroot: Path, srctree: Path) -> Command:
	"""The compiler line of a test program: with the system's C library,
	or with nolibc and the uapi headers in sysroot."""
	arch = boot.arch
	if not boot.nolibc:
		return Command((arch.gcc, *arch.user_cflags, *CFLAGS, '-o', str(program),
				str(boot.source)))
	return Command((arch.gcc, *arch.user_cflags, *NOLIBC_CFLAGS,
			'-I', str(sysroot / 'include'), '-include', str(srctree / NOLIBC_HEADER),
			'-o', str(program), str(boot.source), '-lgcc'))


def build_initramfs(runner: Runner, boot: FixBoot, work: Path, build: kbuild.Build) -> Path:
	"""The test program as /init of an uncompressed cpio."""
	if shutil.which(boot.arch.gcc) is None:
		raise EnvironmentProblem(f'{boot.arch.gcc} is not installed', 'run `make deps`')
	program = work / boot.name
	sysroot = work / 'sysroot'
	if not runner.dry_run:
		work.mkdir(parents=True, exist_ok=True)
	if boot.nolibc and not (sysroot / 'include').is_dir():
		runner.run(build.make('-s', 'headers_install',
				      f'INSTALL_HDR_PATH={sysroot.resolve()}'), Output.CAPTURE)
	runner.run(compile_command(boot, program, sysroot, build.srctree.resolve()),
		   Output.CAPTURE)
	initrd = work / f'{boot.name}.cpio'
	if not runner.dry_run:
		cpio.write(initrd, initramfs.skeleton() + [cpio.file('init', program)])
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
	text = log.read_text(errors='replace')
	run.results, run.problems = parse_console(text, boot.name)
	run.task_size = task_size(text)
	if done.returncode != 0:
		run.problems.append(f'QEMU exited with status {done.returncode}')
	return run


def verdict(boot: FixBoot, runs: dict[str, Run]) -> list[str]:
	"""What is wrong: each kernel must fail exactly the points it is
	expected to (the pristine one the bug, the control its own, the fixed
	one none)."""
	wrong = [f'{r.tree}: {p}' for r in runs.values() for p in r.problems]
	for label, run in runs.items():
		if not run.results:
			wrong.append(f'{label}: no test results')
			continue
		expected = boot.expected_failures(label)
		for n, (ok, text) in sorted(run.results.items()):
			if ok == (n in expected):
				wrong.append(f'{label}: {"passes" if ok else "fails"} {n} {text}')
	return wrong


def _kernels(head: str, series: list[Path], boots: list[FixBoot]
	     ) -> list[tuple[str, Optional[list[Path]], list[FixBoot]]]:
	"""The kernels of one configuration in build order, each with the
	patches to apply at baseline (None: the fixes' head as it is) and the
	tests it boots."""
	controls = {b.control for b in boots if b.control is not None}
	if len(controls) > 1:
		raise UsageError(f'the tests of the {boots[0].arch.name} kernel name '
				 f'{len(controls)} controls', 'give the tests of one kernel one control')
	kernels: list[tuple[str, Optional[list[Path]], list[FixBoot]]] = [(FIXED, None, boots)]
	if controls:
		with_control = [b for b in boots if b.control is not None]
		kernels.append((CONTROL, control_series(series, with_control[0]), with_control))
	kernels.append((PRISTINE, [], boots))
	return kernels


def run_boots(runner: Runner, request: fixes.FixesRequest) -> list[tuple[FixBoot, dict[str, Run]]]:
	"""Per kernel configuration, the kernel with the fixes booted with each
	of its tests, then the control kernel and the pristine kernel, rebuilt
	from it, likewise."""
	wt, _ = fixes.apply(runner, request)
	head = worktree.head(runner, wt)
	series = request.source.series
	fix_patches = list(request.series) or read_series(request.patches)
	logs = paths.RESULTS / f'fixes-{series}-boot'
	runs: dict[str, dict[str, Run]] = {b.key: {} for b in BOOTS}
	groups: dict[tuple, list[FixBoot]] = {}
	for boot in BOOTS:
		groups.setdefault(boot.kernel, []).append(boot)
	for boots in groups.values():
		arch = boots[0].arch.name
		out = paths.OUT / f'fixes-{series}-boot-{arch}'
		work = paths.OUT / f'fixes-{series}-programs' / arch
		initrds: dict[str, Path] = {}
		for label, patches, booted in _kernels(head, fix_patches, boots):
			runner.say(f'fixes: the {label} {arch} kernel')
			try:
				if patches is None:
					runner.run(git(wt, 'checkout', '-q', '--detach', head, mutates=True))
				else:
					apply_at_baseline(runner, wt, patches)
				build, kernel = build_kernel(runner, boots[0], wt, out, request.jobs)
				for b in boots if not initrds else ():
					initrds[b.name] = build_initramfs(runner, b, work, build)
			finally:
				runner.run(git(wt, 'checkout', '-q', '--detach', head, mutates=True))
			for b in booted:
				runs[b.key][label] = boot_once(runner, b, kernel, initrds[b.name],
							       logs / f'{b.key}-{label}.log', label)
	return [(b, runs[b.key]) for b in BOOTS]


def _machine(arch: Arch) -> str:
	"""QEMU's machine: its -M, or the PC QEMU starts without one."""
	assert arch.qemu is not None
	args = arch.qemu.machine_args
	return args[args.index('-M') + 1].split(',')[0] if '-M' in args else 'pc'


def _summary_cell(run: Optional[Run]) -> str:
	if run is None:
		return '-'
	failed = [n for n, (ok, _) in sorted(run.results.items()) if not ok]
	text = (f'{len(run.results) - len(failed)}/{len(run.results)} ok' if not failed else
		f'**not ok {", ".join(map(str, failed))}**')
	return text if run.results else '**no result**'


def markdown(version: str, runs: list[tuple[FixBoot, dict[str, Run]]], command: str) -> str:
	"""reports/linux-<version>/fixes.md: a table of every boot, then per
	boot test each point on each kernel.  Nothing of this machine: no
	paths, no times."""
	controls = sorted({relative(b.control) for b, _ in runs if b.control is not None})
	lines = [f'# The fixes for Linux {version}, booted', '',
		 f'Written by `{command}`: each test of `testcases/fixes/` runs as /init of a kernel '
		 'of the pristine tree and of one with the fixes of `fixes/series` applied, in QEMU '
		 '(TCG).  The pristine kernel must fail the points that show the bug, the fixed '
		 'one none.  A test with a control also boots a third kernel, with a wrong version '
		 'of its fix in the fix\'s place (' + ', '.join(f'`{c}`' for c in controls) +
		 '), which must fail the points given for its architecture: the proof that the '
		 'test can catch that mistake.  TASK_SIZE is what the test finds on the fixed '
		 'kernel: the lowest address at which no page can be mapped.', '',
		 '| test | arch | QEMU machine | TASK_SIZE | pristine | control | fixed |',
		 '|---|---|---|---|---|---|---|']
	for boot, r in runs:
		fixed = r.get(FIXED)
		lines.append(f'| {boot.name} | {boot.arch.name} | {_machine(boot.arch)} | '
			     f'{(fixed.task_size if fixed else "") or "-"} | '
			     f'{_summary_cell(r.get(PRISTINE))} | '
			     f'{_summary_cell(r.get(CONTROL))} | {_summary_cell(fixed)} |')
	lines.append('')
	for boot, r in runs:
		labels = [label for label in (PRISTINE, CONTROL, FIXED) if label in r]
		shown = (f'Test {", ".join(map(str, boot.shows_bug))} shows the bug.' if boot.shows_bug
			 else 'The fix changes nothing architecturally: both kernels must pass.')
		if boot.control is not None:
			fails = boot.control_fails
			shown += (f'  The control, `{relative(boot.control)}`, must fail '
				  + (f'test {", ".join(map(str, fails))} here.' if fails else
				     'nothing here.'))
		enable = ''.join(f', CONFIG_{e}' for e in boot.enable)
		lines += [f'## {boot.name} ({boot.arch.name}): {boot.fix}', '',
			  f'`testcases/fixes/{boot.name}.c`, kernel configuration '
			  f'`{relative(boot.config)}`{enable}.  {shown}', '',
			  '| test | ' + ' | '.join(labels) + ' |', '|---' * (len(labels) + 1) + '|']
		points = sorted({n for label in labels for n in r[label].results})
		for n in points:
			lines.append(f'| {n} | ' + ' | '.join(_cell(r[label], n) for label in labels) + ' |')
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
	problems = [f'{b.key}: {w}' for b, r in runs for w in verdict(b, r)]
	version = tree.kernel_version(request.kdir)
	command = f'converter/scoped-uaccess fixes --kdir {relative(request.kdir)} --boot --install'
	text = markdown(version, runs, command)
	written(paths.RESULTS / f'fixes-{request.source.series}-boot.md', text)
	if install and not problems:
		written(paths.REPO / 'reports' / f'linux-{version}' / 'fixes.md', text)
	summary = (f'{len(runs)} boot test(s): each kernel fails exactly the points it should'
		   if not problems else '; '.join(problems))
	runner.say(f'fixes: boots took {time.monotonic() - start:.0f} s')
	return Outcome.ok(summary) if not problems else Outcome.findings(summary)
