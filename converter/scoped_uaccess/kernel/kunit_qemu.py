# SPDX-License-Identifier: GPL-2.0
"""kunit.py's QEMU configurations: read from a tree, and how Debian builds and boots them.

tools/testing/kunit/qemu_configs/<arch>.py in the kernel tree says how
kunit.py boots an architecture: a kconfig fragment, the QEMU binary, the
kernel image, the kernel command line and QEMU's machine and CPU.  They
are read from the tree (read_config(), without running them: riscv.py
exits when its firmware is missing), so that the matrix boots what
kunit.py would boot on that tree.  What the tree cannot say, the Debian
packages of the cross compiler, QEMU and firmware, is one KunitArch
record per architecture below.
"""

import ast
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from scoped_uaccess.core.errors import EnvironmentProblem, UsageError
from scoped_uaccess.kernel.architectures import ARCHES, Arch

QEMU_CONFIGS = Path('tools/testing/kunit/qemu_configs')
# What kunit.py's QEMU command line has besides the configuration
# (kunit_kernel.py, LinuxSourceTreeOperationsQemu.start), less its
# `-accel kvm -accel hvf -accel tcg`: the accelerator is chosen apart.
KUNIT_QEMU_ARGS = ('-nodefaults', '-m', '1024', '-no-reboot', '-nographic', '-serial', 'stdio')


@dataclass(frozen=True)
class QemuConfig:
	"""One qemu_configs/<arch>.py: QemuArchParams's fields."""
	name: str			# the file's stem, kunit.py's --arch
	linux_arch: str
	kconfig: str
	qemu_arch: str
	kernel_path: str
	kernel_command_line: str
	extra_qemu_params: tuple[str, ...]

	@property
	def qemu_binary(self) -> str:
		return f'qemu-system-{self.qemu_arch}'

	@property
	def qemu_args(self) -> tuple[str, ...]:
		"""extra_qemu_params as argv: kunit.py hands QEMU a shell line, so
		an element may hold several words ('-machine virt')."""
		return tuple(w for p in self.extra_qemu_params for w in shlex.split(p))

	def option(self, name: str) -> Optional[str]:
		"""The value QEMU's option -name gets from the configuration."""
		args = self.qemu_args
		for flag in (f'-{name}', f'--{name}'):
			if flag in args[:-1]:
				return args[args.index(flag) + 1]
		return None

	@property
	def machine(self) -> str:
		"""-machine (or -M), or QEMU's default machine."""
		return self.option('machine') or self.option('M') or 'default'

	@property
	def cpu(self) -> str:
		"""-cpu, or QEMU's default CPU model of the machine."""
		return self.option('cpu') or 'default'


@dataclass(frozen=True)
class KunitArch:
	"""An architecture of qemu_configs/ as Debian builds and boots it."""
	name: str			# qemu_configs/<name>.py
	arch: Arch			# the compiler (kernel/architectures.py)
	packages: tuple[str, ...]	# QEMU and its firmware
	# Whether the configuration's CPU has SMAP (x86 only; else unused).
	smap: bool = False

	@property
	def cross_compile(self) -> str:
		return self.arch.cross_compile


KUNIT_ARCHES: dict[str, KunitArch] = {a.name: a for a in (
	# No -cpu: QEMU's qemu64 and qemu32 models, neither with SMAP.
	KunitArch('x86_64', ARCHES['x86_64'], ('qemu-system-x86',)),
	KunitArch('i386', ARCHES['i386'], ('qemu-system-x86',)),
	KunitArch('arm64', ARCHES['arm64'], ('qemu-system-arm',)),
	# qemu_configs/powerpc.py is a big-endian ppc64 kernel.
	KunitArch('powerpc', ARCHES['powerpc64'], ('qemu-system-ppc',)),
	KunitArch('powerpc32', ARCHES['powerpc32'], ('qemu-system-ppc', 'openbios-ppc')),
	KunitArch('riscv', ARCHES['riscv'], ('qemu-system-misc', 'opensbi')),
	KunitArch('s390', ARCHES['s390'], ('qemu-system-misc',)),
)}


def kunit_arch(name: str) -> KunitArch:
	try:
		return KUNIT_ARCHES[name]
	except KeyError:
		raise UsageError(f'no kunit.py configuration {name} in the matrix',
				 'use one of ' + ', '.join(KUNIT_ARCHES)) from None


def packages() -> tuple[str, ...]:
	"""The cross compilers, QEMU binaries and firmware of the matrix."""
	found: list[str] = []
	for a in KUNIT_ARCHES.values():
		for p in (a.arch.compiler_package, *a.packages):
			if p not in found:
				found.append(p)
	return tuple(found)


def missing_tools(arch: KunitArch, config: QemuConfig) -> list[str]:
	"""What this machine lacks to build and boot arch: its compiler, its
	QEMU binary, the firmware the configuration names; each with its
	package."""
	missing = []
	if shutil.which(arch.arch.gcc) is None:
		missing.append(f'{arch.arch.gcc} (package {arch.arch.compiler_package})')
	if shutil.which(config.qemu_binary) is None:
		missing.append(f'{config.qemu_binary} (package {arch.packages[0]})')
	bios = config.option('bios')
	if bios and bios.startswith('/') and not Path(bios).exists():
		missing.append(f'{bios} (package {" or ".join(arch.packages[1:]) or arch.packages[0]})')
	return missing


class _Evaluator(ast.NodeVisitor):
	"""The literal value of an expression of a qemu_configs file: strings,
	lists, names bound earlier in the file and `+` of those."""

	def __init__(self, names: dict[str, object]) -> None:
		self.names = names

	def value(self, node: ast.AST) -> object:
		if isinstance(node, ast.Constant):
			return node.value
		if isinstance(node, (ast.List, ast.Tuple)):
			return [self.value(e) for e in node.elts]
		if isinstance(node, ast.Name) and node.id in self.names:
			return self.names[node.id]
		if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
			left, right = self.value(node.left), self.value(node.right)
			if isinstance(left, (str, list)) and type(left) is type(right):
				return left + right	# type: ignore[operator]
		raise ValueError(f'line {getattr(node, "lineno", "?")}: not a literal')


def parse_config(name: str, source: str) -> QemuConfig:
	"""The QemuArchParams(...) of a qemu_configs file's text."""
	names: dict[str, object] = {}
	evaluator = _Evaluator(names)
	for node in ast.parse(source).body:
		if not (isinstance(node, ast.Assign) and len(node.targets) == 1
			and isinstance(node.targets[0], ast.Name)):
			continue
		call = node.value
		if isinstance(call, ast.Call) and getattr(call.func, 'id', '') == 'QemuArchParams':
			fields = {k.arg: evaluator.value(k.value) for k in call.keywords if k.arg}
			try:
				return QemuConfig(name=name, linux_arch=str(fields['linux_arch']),
						  kconfig=str(fields['kconfig']),
						  qemu_arch=str(fields['qemu_arch']),
						  kernel_path=str(fields['kernel_path']),
						  kernel_command_line=str(fields['kernel_command_line']),
						  extra_qemu_params=tuple(str(p) for p in
									  fields.get('extra_qemu_params', [])))
			except KeyError as e:
				raise ValueError(f'QemuArchParams without {e.args[0]}') from None
		try:
			names[node.targets[0].id] = evaluator.value(call)
		except ValueError:
			pass	# not a literal: only an error if QemuArchParams uses it
	raise ValueError('no QemuArchParams(...) assignment')


def read_config(kdir: Path, name: str) -> QemuConfig:
	"""qemu_configs/<name>.py of the tree in kdir."""
	path = kdir / QEMU_CONFIGS / f'{name}.py'
	if not path.is_file():
		raise EnvironmentProblem(f'the tree has no kunit.py configuration {name} '
					 f'({QEMU_CONFIGS}/{name}.py)')
	try:
		return parse_config(name, path.read_text())
	except (SyntaxError, ValueError) as e:
		raise EnvironmentProblem(f'{path}: cannot read its QemuArchParams ({e})',
					 'extend kernel/kunit_qemu.py for what the file computes') from None
