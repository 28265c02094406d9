# SPDX-License-Identifier: GPL-2.0
"""Boots a kernel with the fault sweep: the programs, the initramfs, QEMU, the records.

Per architecture one frozen record, a SweepTarget: which kernel it boots
(x86_64 boots the kernel of the userspace tests, the same configuration
and build directory; ppc64le a kernel of its own configuration, with
KUAP), which static programs go into the initramfs (x86_64 also the i386
one, for the compat syscalls) and how /init runs them.  The console goes
to a log; sweep_records.py reads it.
"""

import enum
import shutil
import time
from dataclasses import dataclass, field
from typing import Callable
from pathlib import Path

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem, UsageError
from scoped_uaccess.kernel import cpio, initramfs
from scoped_uaccess.kernel.architectures import ARCHES, Arch
from scoped_uaccess.kernel.qemu import (ACCELERATORS, Accelerator, AcceleratorParams,
					boot_command)
from scoped_uaccess.sweep import records as sweep_records
from scoped_uaccess.userspace import syscalls

SOURCE = paths.REPO / 'testcases' / 'faultsweep' / 'faultsweep.c'
PPC64LE_CONFIG = paths.REPO / 'testcases' / 'kernel' / 'faultsweep-ppc64le.config'
CFLAGS = ('-static', '-O2', '-Wall', '-Werror')
BEGIN_MARKER = '# faultsweep-init begin'


class InitKind(enum.Enum):
	"""Who is /init."""
	SHELL = 'shell'		# a busybox script runs each program in turn
	PROGRAM = 'program'	# the one program (faultsweep.c's be_init()): no ppc64el busybox


@dataclass(frozen=True)
class Program:
	"""One static build of faultsweep.c; arch is its compiler and flags."""
	arch: Arch
	record_arch: str	# what its records call the arch: x86_64, i386, ppc64le

	@property
	def name(self) -> str:
		return f'faultsweep-{self.record_arch}'

	def compile_command(self, output: Path) -> Command:
		return Command((self.arch.gcc, *self.arch.user_cflags, *CFLAGS, '-o', str(output),
				str(SOURCE)))


@dataclass(frozen=True)
class SweepTarget:
	"""One architecture's sweep: kernel, programs, /init, checks."""
	name: str
	kernel: Arch			# builds and QEMU
	programs: tuple[Program, ...]
	init: InitKind
	config: Path			# the kernel configuration, a whole starting .config
	build_prefix: str		# build/out/<prefix>-<kernel name>
	# Boots the userspace tests' kernels (paths.userspace_build_dir(run
	# name)); build_prefix is then unused.
	userspace_kernel: bool = False
	kuap: bool = False		# the boot log must say KUAP is on
	append: tuple[str, ...] = ()	# kernel command line

	@property
	def record_archs(self) -> tuple[str, ...]:
		return tuple(p.record_arch for p in self.programs)

	@property
	def image(self) -> str:
		"""The kernel image, relative to the build directory."""
		assert self.kernel.qemu is not None
		return self.kernel.qemu.kernel_image

	def build_dir(self, kernel_name: str, kdir: Path = paths.DEFAULT_KDIR) -> Path:
		"""Where the kernel <kernel_name> of kdir's sweep is built."""
		if self.userspace_kernel:
			return paths.userspace_build_dir(kernel_name, kdir)
		return paths.OUT / f'{self.build_prefix}-{kernel_name}{paths.tree_suffix(kdir)}'

	@property
	def work_dir(self) -> Path:
		"""Where the programs and the initramfs are built."""
		return paths.OUT / 'faultsweep' / self.name


TARGETS: dict[str, SweepTarget] = {t.name: t for t in (
	# The userspace tests' kernel (x86_64.config has IA32 emulation for
	# the i386 binary); the KUnit suites ran in the userspace boot already.
	SweepTarget('x86_64', ARCHES['x86_64'],
		    (Program(ARCHES['x86_64'], 'x86_64'), Program(ARCHES['i386'], 'i386')),
		    InitKind.SHELL, syscalls.CONFIG, 'user', userspace_kernel=True,
		    append=('kunit.enable=0', *syscalls.X86_QUIET_CLOCK)),
	SweepTarget('ppc64le', ARCHES['powerpc'], (Program(ARCHES['powerpc'], 'ppc64le'),),
		    InitKind.PROGRAM, PPC64LE_CONFIG, 'faultsweep-ppc64le', kuap=True),
)}


def target(name: str) -> SweepTarget:
	try:
		return TARGETS[name]
	except KeyError:
		raise UsageError(f'no fault sweep for {name}', 'use one of ' + ', '.join(TARGETS)) from None


def init_script(programs: tuple[Program, ...]) -> str:
	"""/init for InitKind.SHELL: mounts, quiets the console, runs each program."""
	runs = ''.join(f'/bin/{p.name}; echo "# faultsweep-init {p.record_arch} exit $?"\n'
		       for p in programs)
	return initramfs.busybox_init('''\
# /init of the fault sweep initramfs, written by
# converter/scoped_uaccess/sweep/guest.py.
''', f'''\
# Warnings and worse only (below 5: WARN() prints at KERN_WARNING, 4),
# and no "segfault at" lines for the children
# the sweep lets the kernel kill: nothing splits a record line.
echo 5 > /proc/sys/kernel/printk
echo 0 > /proc/sys/debug/exception-trace
echo '{BEGIN_MARKER}'
{runs}echo '# faultsweep-init end'
# -no-reboot turns the reboot into QEMU exiting.
$bb reboot -f
''', tmp=True)


def initramfs_entries(t: SweepTarget, built: dict[str, Path]) -> list[cpio.Entry]:
	"""The archive: the skeleton with /tmp, and either busybox, the
	programs and the script, or the program as /init."""
	if t.init is InitKind.PROGRAM:
		(program,) = t.programs
		return initramfs.skeleton(tmp=True) + [cpio.file('init', built[program.name])]
	return initramfs.skeleton(busybox=initramfs.BUSYBOX, tmp=True) + [
		*(cpio.file(f'bin/{p.name}', built[p.name]) for p in t.programs),
		cpio.text_file('init', init_script(t.programs)),
	]


def build_initramfs(runner: Runner, t: SweepTarget) -> Path:
	"""Compiles the programs and writes the archive; returns its path."""
	for tool in {p.arch.gcc for p in t.programs}:
		if shutil.which(tool) is None:
			raise EnvironmentProblem(f'{tool} is not installed', 'run `make deps`')
	if t.init is InitKind.SHELL:
		initramfs.require_busybox()
	initrd = t.work_dir / 'initramfs.cpio'
	if not runner.dry_run:
		t.work_dir.mkdir(parents=True, exist_ok=True)
	built = {}
	for p in t.programs:
		built[p.name] = t.work_dir / p.name
		runner.run(p.compile_command(built[p.name]), Output.CAPTURE,
			   fix=f'{SOURCE.name} must build for {p.record_arch} with {" ".join(CFLAGS)}; '
			   f'packages: {" ".join(p.arch.user_packages) or p.arch.compiler_package}')
	if runner.dry_run:
		runner.say(f'# would write {initrd}: {", ".join(p.name for p in t.programs)}')
		return initrd
	size = cpio.write(initrd, initramfs_entries(t, built))
	runner.say(f'faultsweep[{t.name}]: initramfs {initrd} ({size // 1024} KiB)')
	return initrd


@dataclass
class Boot:
	"""One boot of one kernel with the sweep."""
	kernel: Path
	log: Path
	returncode: int = 0
	seconds: float = 0.0
	console: sweep_records.SweepConsole = field(default_factory=sweep_records.SweepConsole)

	def problems(self, t: SweepTarget) -> list[str]:
		found = []
		if self.returncode != 0:
			why = 'timed out' if self.returncode == 124 else f'exited with status {self.returncode}'
			found.append(f'QEMU {why}')
		return found + self.console.problems(t.record_archs, kuap=t.kuap)


def console_progress(runner: Runner, tag: str) -> Callable[[str], None]:
	"""A line sink: the init markers, sweep-done and kernel problems, not every record."""
	def sink(line: str) -> None:
		text = sweep_records.clean_lines([line])[0].strip()
		if (text.startswith(('# faultsweep-init', '# sweep-done', '# sweep-error')) or
		    any(m in text for m in sweep_records.PROBLEM_MARKERS)):
			runner.say(f'  {tag}: {text}')
	return sink


def machine(t: SweepTarget) -> str:
	"""The QEMU machine the target boots (-M), 'pc' when QEMU's default."""
	assert t.kernel.qemu is not None
	args = t.kernel.qemu.machine_args
	named = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ('-M', '-machine')]
	return named[0].split(',')[0] if named else 'pc'


def require_qemu(runner: Runner, t: SweepTarget) -> None:
	"""Raises EnvironmentProblem when the target's QEMU is not installed or
	lacks its machine (`-machine help` does not list it)."""
	assert t.kernel.qemu is not None
	qemu = t.kernel.qemu
	if shutil.which(qemu.binary) is None:
		raise EnvironmentProblem(f'{qemu.binary} is not installed',
					 f'install {qemu.package} (`make deps`)')
	listed = runner.run(Command((qemu.binary, '-machine', 'help'), mutates=False),
			    Output.CAPTURE, check=False)
	if runner.dry_run and listed.dry_run:
		return
	names = {line.split()[0] for line in listed.output.splitlines()[1:] if line.strip()}
	if machine(t) not in names:
		raise EnvironmentProblem(f'{qemu.binary} has no machine {machine(t)}',
					 f'install a QEMU with it ({qemu.package})')


def boot(runner: Runner, t: SweepTarget, kernel: Path, initrd: Path, log: Path,
	 accel: AcceleratorParams = ACCELERATORS[Accelerator.TCG]) -> Boot:
	"""Boots kernel with the sweep's initramfs; the console goes to log."""
	assert t.kernel.qemu is not None
	if shutil.which(t.kernel.qemu.binary) is None:
		raise EnvironmentProblem(f'{t.kernel.qemu.binary} is not installed', 'run `make deps`')
	if not kernel.is_file() and not runner.dry_run:
		raise EnvironmentProblem(f'{kernel} does not exist', 'build the kernel first')
	result = Boot(kernel, log)
	if not runner.dry_run:
		log.parent.mkdir(parents=True, exist_ok=True)
	start = time.monotonic()
	run = runner.run(boot_command(t.kernel, kernel, initrd, t.append, accel), Output.LINES,
			 check=False, sink=console_progress(runner, f'{t.name}'), log=log)
	result.seconds = time.monotonic() - start
	result.returncode = run.returncode
	if not runner.dry_run:
		result.console = parse_log(log)
	return result


def parse_log(log: Path) -> sweep_records.SweepConsole:
	return sweep_records.parse_console(log.read_text(errors='backslashreplace').splitlines())
