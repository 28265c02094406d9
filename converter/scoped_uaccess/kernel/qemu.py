# SPDX-License-Identifier: GPL-2.0
"""QEMU: the accelerator choice and the boot command of a kernel and an initramfs."""

import enum
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.kernel.architectures import ARCHES, Arch

# A panic reboots at once, and QEMU's -no-reboot turns that into an exit
# instead of waiting for a timeout.
KERNEL_ARGS = ('panic=-1',)


class Accelerator(enum.Enum):
	KVM = 'KVM'
	TCG = 'TCG'


class AccelChoice(enum.Enum):
	"""What the user asked for (`make kunit ACCEL=...`)."""
	AUTO = 'auto'	# KVM if /dev/kvm opens and a probe boot works, else TCG
	KVM = 'kvm'
	TCG = 'tcg'


@dataclass(frozen=True)
class AcceleratorParams:
	"""How QEMU runs under one accelerator; TCG is far slower."""
	accelerator: Accelerator
	qemu_args: tuple[str, ...]	# besides the architecture's -cpu
	timeout: int		# seconds for boot plus all tests


ACCELERATORS = {
	Accelerator.KVM: AcceleratorParams(Accelerator.KVM, ('-enable-kvm',), 300),
	Accelerator.TCG: AcceleratorParams(Accelerator.TCG, (), 900),
}
# A working KVM prints the kernel banner within a second or two. Nested KVM
# can be present yet unusable (QEMU aborts on MSRs, or the guest hangs in
# the decompressor), so AUTO first boots the kernel once without tests;
# ten seconds leave a slow working KVM five times its usual time.
KVM_PROBE_SECONDS = 10
KVM_PROBE_BANNER = 'Linux version'


def cpu_args(arch: Arch, accel: AcceleratorParams) -> tuple[str, ...]:
	"""-cpu and the accelerator's arguments (with -cpu max on x86, SMAP is on)."""
	assert arch.qemu is not None
	return ('-cpu', arch.qemu.cpu, *accel.qemu_args)


def kvm_openable() -> bool:
	"""Whether /dev/kvm opens read/write for us."""
	try:
		os.close(os.open('/dev/kvm', os.O_RDWR | os.O_CLOEXEC))
		return True
	except OSError:
		return False


def kvm_probe_command(kernel: Path, arch: Arch = ARCHES['x86_64']) -> Command:
	"""Boots kernel under KVM with tests off; it panics without a rootfs."""
	assert arch.qemu is not None
	return Command(('timeout', str(KVM_PROBE_SECONDS), arch.qemu.binary,
			*arch.qemu.machine_args, '-kernel', str(kernel),
			'-append', f'{arch.qemu.console} panic=-1 kunit.enable=0',
			*cpu_args(arch, ACCELERATORS[Accelerator.KVM])),
		       mutates=False)


# Whether KVM boots a kernel of an architecture is a property of the
# machine: probed once per process (a `make test` boots a dozen kernels,
# and a failed probe costs KVM_PROBE_SECONDS each time).
_PROBED: dict[str, tuple[Accelerator, str]] = {}


def choose_accelerator(runner: Runner, choice: AccelChoice, kernel: Path,
		       arch: Arch = ARCHES['x86_64']) -> tuple[Accelerator, str]:
	"""The accelerator to boot with, and a note on why."""
	if choice is AccelChoice.TCG:
		return Accelerator.TCG, 'TCG requested'
	if choice is AccelChoice.KVM:
		return Accelerator.KVM, 'KVM requested'
	if arch.kernel_arch not in ('x86_64', 'i386'):
		return Accelerator.TCG, f'{arch.name} is emulated'
	if not kvm_openable():
		return Accelerator.TCG, '/dev/kvm cannot be opened read/write'
	if runner.dry_run:
		return Accelerator.KVM, '/dev/kvm opens; dry run, so not probed'
	if arch.name in _PROBED:
		accelerator, note = _PROBED[arch.name]
		return accelerator, f'{note} (probed earlier in this run)'
	_PROBED[arch.name] = _probe(runner, kernel, arch)
	return _PROBED[arch.name]


def _probe(runner: Runner, kernel: Path, arch: Arch) -> tuple[Accelerator, str]:
	probe = runner.run(kvm_probe_command(kernel, arch), Output.CAPTURE, check=False)
	if KVM_PROBE_BANNER in probe.output:
		return Accelerator.KVM, '/dev/kvm is usable'
	problem = next((line.strip() for line in (probe.stderr + probe.output).splitlines()
			if 'error' in line.lower()), '')
	if not problem:
		problem = (f'no kernel banner in {KVM_PROBE_SECONDS}s'
			   if probe.returncode == 124 else f'QEMU exited with {probe.returncode}')
	return Accelerator.TCG, f'KVM unusable, probe boot failed: {problem}'


def boot_command(arch: Arch, kernel: Path, initrd: Optional[Path], append: tuple[str, ...],
		 accel: AcceleratorParams) -> Command:
	"""QEMU booting kernel with initrd; append is the kernel command line
	after the console and KERNEL_ARGS.  The timeout ends a hung boot."""
	assert arch.qemu is not None
	initrd_args = ('-initrd', str(initrd)) if initrd is not None else ()
	return Command(('timeout', str(accel.timeout), arch.qemu.binary, *arch.qemu.machine_args,
			'-kernel', str(kernel), *initrd_args,
			'-append', ' '.join((arch.qemu.console, *KERNEL_ARGS, *append)),
			*cpu_args(arch, accel)))
