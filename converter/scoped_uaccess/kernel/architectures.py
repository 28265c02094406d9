# SPDX-License-Identifier: GPL-2.0
"""One record per architecture: its compiler, its QEMU machine, its console.

The builds (kbuild.py), the boots (qemu.py) and the package list (deps.py)
read this table and nothing else about architectures; what a gate builds
for an architecture (which defconfig, which options) is the gate's own
data and names the record here.  The model is virtme-ng's
virtme/architectures.py.
"""

from dataclasses import dataclass
from typing import Optional

from scoped_uaccess.core.errors import UsageError


@dataclass(frozen=True)
class Qemu:
	"""How the architecture boots a kernel in QEMU."""
	binary: str			# qemu-system-*
	package: str			# the Debian package that has it
	machine_args: tuple[str, ...]	# machine, memory, firmware, serial
	console: str			# the kernel's console= for the serial line
	kernel_image: str		# relative to the build directory
	cpu: str = 'max'		# -cpu for TCG and KVM


@dataclass(frozen=True)
class Arch:
	name: str			# what the tools call it
	kernel_arch: str		# ARCH=
	cross_compile: str		# CROSS_COMPILE=, '' for the native compiler
	compiler_package: str		# the Debian package of the (cross) compiler
	qemu: Optional[Qemu] = None
	# Static userspace test programs: the packages and compiler flags.
	user_packages: tuple[str, ...] = ()
	user_cflags: tuple[str, ...] = ()	# userspace programs: compiler flags

	@property
	def srcarch(self) -> str:
		"""The directory under arch/ (kbuild's SRCARCH): ARCH=x86_64 and
		ARCH=i386 build arch/x86."""
		return 'x86' if self.kernel_arch in ('x86_64', 'i386') else self.kernel_arch

	@property
	def gcc(self) -> str:
		return f'{self.cross_compile}gcc'

	@property
	def objdump(self) -> str:
		return f'{self.cross_compile}objdump'

	@property
	def nm(self) -> str:
		return f'{self.cross_compile}nm'

	def make_vars(self) -> tuple[str, ...]:
		"""ARCH= and CROSS_COMPILE= for make."""
		cross = (f'CROSS_COMPILE={self.cross_compile}',) if self.cross_compile else ()
		return (f'ARCH={self.kernel_arch}', *cross)


# qboot boots faster than SeaBIOS and leaves the console alone; a panic
# reboots at once, which -no-reboot turns into QEMU exiting.
_X86_QEMU = Qemu(binary='qemu-system-x86_64', package='qemu-system-x86',
		 machine_args=('-nodefaults', '-m', '512', '-nographic', '-no-reboot',
			       '-serial', 'stdio', '-bios', 'qboot.rom'),
		 console='console=ttyS0', kernel_image='arch/x86/boot/bzImage')

# The pseries machine with a POWER9, whose Radix MMU has KUAP; hvc0 is the
# hypervisor console.  TCG lacks the Spectre workarounds pseries asks for
# by default (QEMU warns and goes on) and transactional memory (cap-htm
# off, or the machine refuses to start).
_PPC64_QEMU = Qemu(binary='qemu-system-ppc64', package='qemu-system-ppc',
		   machine_args=('-M', 'pseries,cap-htm=off', '-m', '1024', '-nodefaults',
				 '-nographic', '-no-reboot', '-serial', 'stdio'),
		   console='console=hvc0', kernel_image='vmlinux', cpu='power9')

# QEMU's generic e500 board (the kernel's PPC_QEMU_E500 platform) with
# an e500v2 core, which has SPE; the SoC's 16550 UART is ttyS0.  The
# board loads a kernel as an ELF or a uImage and jumps to its entry
# with the MMU mapping physical addresses 1:1, so it boots the uImage
# (mkimage, u-boot-tools), whose entry is physical address 0.
_PPCE500_QEMU = Qemu(binary='qemu-system-ppc', package='qemu-system-ppc',
		     machine_args=('-M', 'ppce500', '-m', '256', '-nodefaults', '-nographic',
				   '-no-reboot', '-serial', 'stdio'),
		     console='console=ttyS0', kernel_image='arch/powerpc/boot/uImage',
		     cpu='e500v2_v30')

ARCHES: dict[str, Arch] = {a.name: a for a in (
	Arch('x86_64', 'x86_64', '', 'gcc', qemu=_X86_QEMU, user_packages=('libc6-dev',)),
	# 32-bit x86: files only a 32-bit kernel builds, and the ia32 test
	# programs that run on the x86_64 kernel's IA32 emulation.  Not the
	# gcc-multilib metapackage: bookworm's conflicts with every cross gcc,
	# so installing it removes the other architectures' compilers.  Its
	# multilib has no asm/ headers for -m32: the x86 uapi ones serve both.
	Arch('i386', 'i386', '', 'gcc', qemu=_X86_QEMU,
	     user_packages=('gcc-12-multilib', 'libc6-dev-i386'),
	     user_cflags=('-m32', '-idirafter', '/usr/include/x86_64-linux-gnu')),
	Arch('arm', 'arm', 'arm-linux-gnueabihf-', 'gcc-arm-linux-gnueabihf'),
	Arch('arm64', 'arm64', 'aarch64-linux-gnu-', 'gcc-aarch64-linux-gnu'),
	# ppc64le, the powerpc Debian cross-compiles for; its static programs
	# link against Debian's ppc64el cross libc (POWER8 and up).
	Arch('powerpc', 'powerpc', 'powerpc64le-linux-gnu-', 'gcc-powerpc64le-linux-gnu',
	     qemu=_PPC64_QEMU, user_packages=('libc6-dev-ppc64el-cross',)),
	# 32-bit powerpc (e500: SPE, whose emulation align.c has; KUAP).
	Arch('powerpc32', 'powerpc', 'powerpc-linux-gnu-', 'gcc-powerpc-linux-gnu',
	     qemu=_PPCE500_QEMU),
	Arch('riscv', 'riscv', 'riscv64-linux-gnu-', 'gcc-riscv64-linux-gnu'),
	# Big-endian ppc64, as kunit.py's qemu_configs/powerpc.py builds it.
	Arch('powerpc64', 'powerpc', 'powerpc64-linux-gnu-', 'gcc-powerpc64-linux-gnu'),
	# s390x: user space is an address space of its own.
	Arch('s390', 's390', 's390x-linux-gnu-', 'gcc-s390x-linux-gnu'),
)}


def arch(name: str) -> Arch:
	"""Looks up an architecture by name."""
	try:
		return ARCHES[name]
	except KeyError:
		raise UsageError(f'unknown architecture {name}',
				 'use one of ' + ', '.join(ARCHES)) from None


def packages() -> tuple[str, ...]:
	"""The compilers, QEMU binaries and userspace libraries of every
	architecture."""
	found: list[str] = []
	for a in ARCHES.values():
		for p in (a.compiler_package, a.qemu.package if a.qemu else None, *a.user_packages):
			if p and p not in found:
				found.append(p)
	return tuple(found)
