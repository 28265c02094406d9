# SPDX-License-Identifier: GPL-2.0
"""Builds the series' objects for other architectures with Debian's cross compilers."""

import re
from dataclasses import dataclass, field
from pathlib import Path

from scoped_uaccess.gates import negative
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem


@dataclass(frozen=True)
class CrossArch:
	"""One architecture: how to configure it and what to build for it."""
	name: str
	arch: str			# ARCH=
	cross_compile: str		# CROSS_COMPILE=
	package: str			# the Debian package of the cross compiler
	defconfig: str
	# (symbol, values) the configuration must end up with: 'y', 'm' or 'n'
	require: tuple[tuple[str, str], ...] = ()
	# Extra files compiled with the kbuild command of REFERENCE_OBJECT, each
	# with the undefined symbols its object must not reference.
	probes: tuple[tuple[str, tuple[str, ...]], ...] = ()


# What every architecture builds: the suite, and the generic C files the
# series converts.  Architecture specific files are listed per record.
OBJECTS = ('lib/scoped_uaccess_kunit.o', 'fs/select.o', 'kernel/futex/core.o',
	   'kernel/futex/pi.o', 'kernel/futex/requeue.o', 'kernel/futex/waitwake.o')
REFERENCE_OBJECT = 'lib/scoped_uaccess_kunit.o'
# The suite's prompt sits under RUNTIME_TESTING_MENU, which riscv's defconfig
# turns off; with KUNIT_ALL_TESTS=m (powerpc) the suite is a module.
ENABLE = ('KUNIT', 'RUNTIME_TESTING_MENU', 'SCOPED_UACCESS_KUNIT_TEST')

ARCHES: dict[str, CrossArch] = {a.name: a for a in (
	# versatile is an ARMv5 board: no CONFIG_CPU_SPECTRE, so __get_user()
	# is the inline one that lacked an 8-byte variant.
	CrossArch('arm', 'arm', 'arm-linux-gnueabihf-', 'gcc-arm-linux-gnueabihf',
		  'versatile_defconfig', require=(('CPU_SPECTRE', 'n'),),
		  probes=(('testcases/cross/arm-get-user-u64.c', ('__get_user_bad',)),)),
	CrossArch('arm64', 'arm64', 'aarch64-linux-gnu-', 'gcc-aarch64-linux-gnu',
		  'defconfig'),
	CrossArch('powerpc', 'powerpc', 'powerpc64le-linux-gnu-',
		  'gcc-powerpc64le-linux-gnu', 'ppc64le_defconfig'),
	CrossArch('riscv', 'riscv', 'riscv64-linux-gnu-', 'gcc-riscv64-linux-gnu',
		  'defconfig'),
)}

_DIAG = re.compile(r'\b(warning|error):')


@dataclass
class ArchResult:
	arch: CrossArch
	problems: list[str] = field(default_factory=list)
	log: str = ''

	@property
	def passed(self) -> bool:
		return not self.problems


def config_value(config: str, symbol: str) -> str:
	"""'y', 'm' or 'n' for CONFIG_<symbol> in a .config text."""
	m = re.search(rf'^CONFIG_{symbol}=(\S+)$', config, re.MULTILINE)
	return m.group(1) if m else 'n'


def undefined_symbols(nm_output: str) -> set[str]:
	"""The undefined symbols in `nm` output."""
	return {line.split()[-1] for line in nm_output.splitlines()
		if line.split()[:1] == ['U']}


def build_arch(runner: Runner, kdir: Path, arch: CrossArch,
	       out: Path) -> ArchResult:
	"""Configures out for arch and builds OBJECTS and the probes there."""
	result = ArchResult(arch)
	make = ('make', '-C', str(kdir), f'O={out.resolve()}', f'ARCH={arch.arch}',
		f'CROSS_COMPILE={arch.cross_compile}')
	out.mkdir(parents=True, exist_ok=True)
	runner.run(Command((*make, '-s', arch.defconfig)),
		   fix=f'install {arch.package} with `make deps`')
	runner.run(Command((str(kdir / 'scripts/config'), '--file', str(out / '.config'),
			    *[w for s in ENABLE for w in ('--enable', s)])))
	runner.run(Command((*make, '-s', 'olddefconfig')))
	if runner.dry_run:
		return result
	config = (out / '.config').read_text()
	for symbol, want in (*((s, 'ym') for s in ENABLE), *arch.require):
		have = config_value(config, symbol)
		if have not in want:
			result.problems.append(f'CONFIG_{symbol}={have}, the check needs '
					       + ' or '.join(want))
	build = runner.run(Command((*make, '-s', '-j2', *OBJECTS), nice=True),
			   Output.CAPTURE, check=False)
	result.log = build.output + build.stderr
	if build.returncode != 0:
		result.problems.append(f'building {" ".join(OBJECTS)} failed')
	result.problems += [f'{line.strip()}' for line in result.log.splitlines()
			    if _DIAG.search(line)]
	if build.returncode != 0:
		return result
	kbuild = negative.parse_cmd_file(
		negative.cmd_file(out, REFERENCE_OBJECT).read_text(errors='replace'),
		REFERENCE_OBJECT)
	for probe, forbidden in arch.probes:
		src = (paths.REPO / probe).resolve()
		obj = (out / 'probes' / (Path(probe).stem + '.o')).resolve()
		obj.parent.mkdir(parents=True, exist_ok=True)
		argv = negative.substitute(kbuild, src, obj, obj.with_suffix('.o.d'))
		compiled = runner.run(Command(tuple(argv), cwd=out.resolve()),
				      Output.CAPTURE, check=False)
		result.log += compiled.output + compiled.stderr
		if compiled.returncode != 0 or _DIAG.search(compiled.output + compiled.stderr):
			result.problems.append(f'{probe} does not compile cleanly')
			continue
		nm = runner.run(Command((f'{arch.cross_compile}nm', str(obj)), mutates=False),
				Output.CAPTURE)
		for symbol in sorted(undefined_symbols(nm.output) & set(forbidden)):
			result.problems.append(f'{probe} references {symbol}(): the access '
					       'would fail to link')
	return result


def run_cross(runner: Runner, kdir: Path, names: list[str]) -> list[ArchResult]:
	"""build_arch() for each named architecture, in build/out/cross-<name>."""
	if not (kdir / 'Makefile').is_file():
		raise EnvironmentProblem(f'{kdir} is not a kernel tree', 'create it with `make tree`')
	results = []
	for name in names:
		arch = ARCHES[name]
		runner.say(f'cross: {name}: {arch.defconfig}, {arch.cross_compile}gcc')
		result = build_arch(runner, kdir, arch, paths.OUT / f'cross-{name}')
		verdict = 'PASS' if result.passed else 'FAIL'
		runner.say(f'cross: {name}: {verdict}')
		for problem in result.problems:
			runner.say(f'  {problem}')
		results.append(result)
	return results


def report(results: list[ArchResult]) -> str:
	"""The text of build/results/cross.txt."""
	lines = [f'{"PASS" if r.passed else "FAIL"} {r.arch.name}' +
		 ''.join(f'\n  {p}' for p in r.problems) for r in results]
	for r in results:
		lines += ['', f'=== {r.arch.name}', r.log.rstrip()]
	return '\n'.join(lines) + '\n'
