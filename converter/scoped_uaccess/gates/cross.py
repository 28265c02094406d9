# SPDX-License-Identifier: GPL-2.0
"""Builds the series' objects for other architectures with Debian's cross compilers."""

from dataclasses import dataclass, field
from pathlib import Path

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.core.outcome import Outcome
from scoped_uaccess.gates.runner import build_verdict
from scoped_uaccess.kernel import kbuild, worktree
from scoped_uaccess.kernel.architectures import Arch, arch as arch_named


# The suite's prompt sits under RUNTIME_TESTING_MENU, which riscv's defconfig
# turns off; with KUNIT_ALL_TESTS=m (powerpc) the suite is a module.
ENABLE = ('KUNIT', 'RUNTIME_TESTING_MENU', 'SCOPED_UACCESS_KUNIT_TEST')
# The architectures validate builds too: the same configuration (validate's
# BuildConfig takes enable from here) in its build directory,
# build/out/validate-<arch>, so a cold make test configures and prepares
# each once.
SHARED_WITH_VALIDATE = ('arm64', 'powerpc')


@dataclass(frozen=True)
class CrossArch:
	"""One architecture: how to configure it and what to build for it."""
	arch: Arch
	defconfig: str
	# (symbol, values) the configuration must end up with: 'y', 'm' or 'n'
	require: tuple[tuple[str, str], ...] = ()
	# Extra files compiled with the kbuild command of REFERENCE_OBJECT, each
	# with the undefined symbols its object must not reference.
	probes: tuple[tuple[str, tuple[str, ...]], ...] = ()
	enable: tuple[str, ...] = ENABLE

	@property
	def name(self) -> str:
		return self.arch.name

	@property
	def build_dir(self) -> Path:
		if self.name in SHARED_WITH_VALIDATE:
			return paths.validate_build_dir(self.name)
		return paths.OUT / f'cross-{self.name}'


# What every architecture builds: the suite, and the generic C files the
# series converts.  Architecture specific files are listed per record.
OBJECTS = ('lib/scoped_uaccess_kunit.o', 'fs/select.o', 'kernel/futex/core.o',
	   'kernel/futex/pi.o', 'kernel/futex/requeue.o', 'kernel/futex/waitwake.o')
REFERENCE_OBJECT = 'lib/scoped_uaccess_kunit.o'

ARCHES: dict[str, CrossArch] = {a.name: a for a in (
	# versatile is an ARMv5 board: no CONFIG_CPU_SPECTRE, so __get_user()
	# is the inline one that lacked an 8-byte variant.
	CrossArch(arch_named('arm'), 'versatile_defconfig', require=(('CPU_SPECTRE', 'n'),),
		  probes=(('testcases/cross/arm-get-user-u64.c', ('__get_user_bad',)),)),
	CrossArch(arch_named('arm64'), 'defconfig'),
	# COMPAT: validate builds signal_32.c in the same directory.
	CrossArch(arch_named('powerpc'), 'ppc64le_defconfig', enable=('COMPAT', *ENABLE)),
	CrossArch(arch_named('riscv'), 'defconfig'),
)}


@dataclass
class ArchResult:
	arch: CrossArch
	problems: list[str] = field(default_factory=list)
	log: str = ''

	@property
	def passed(self) -> bool:
		return not self.problems


def undefined_symbols(nm_output: str) -> set[str]:
	"""The undefined symbols in `nm` output."""
	return {line.split()[-1] for line in nm_output.splitlines()
		if line.split()[:1] == ['U']}


def build_arch(runner: Runner, kdir: Path, arch: CrossArch, out: Path,
	       jobs: int = kbuild.JOBS) -> ArchResult:
	"""Configures out for arch and builds OBJECTS and the probes there."""
	result = ArchResult(arch)
	build = kbuild.Build(kdir, out, arch.arch, ())
	kbuild.configure(runner, build, arch.defconfig, enable=arch.enable)
	if runner.dry_run:
		return result
	config = (out / '.config').read_text()
	for symbol, want in (*((s, 'ym') for s in ENABLE), *arch.require):
		have = kbuild.config_value(config, symbol)
		if have not in want:
			result.problems.append(f'CONFIG_{symbol}={have}, the check needs '
					       + ' or '.join(want))
	built = kbuild.build(runner, build, ('-s', *OBJECTS), jobs)
	result.log = built.output
	if built.returncode != 0:
		result.problems.append(f'building {" ".join(OBJECTS)} failed')
	result.problems += kbuild.diagnostic_lines(result.log)
	if built.returncode != 0:
		return result
	reference = kbuild.parse_cmd_file(
		kbuild.cmd_file(out, REFERENCE_OBJECT).read_text(errors='replace'),
		REFERENCE_OBJECT)
	for probe, forbidden in arch.probes:
		src = (paths.REPO / probe).resolve()
		obj = (out / 'probes' / (Path(probe).stem + '.o')).resolve()
		obj.parent.mkdir(parents=True, exist_ok=True)
		argv = kbuild.substitute(reference, src, obj, obj.with_suffix('.o.d'))
		compiled = runner.run(Command(tuple(argv), cwd=out.resolve()),
				      Output.CAPTURE, check=False)
		result.log += compiled.output + compiled.stderr
		if compiled.returncode != 0 or kbuild.diagnostic_lines(compiled.output + compiled.stderr):
			result.problems.append(f'{probe} does not compile cleanly')
			continue
		nm = runner.run(Command((arch.arch.nm, str(obj)), mutates=False),
				Output.CAPTURE)
		for symbol in sorted(undefined_symbols(nm.output) & set(forbidden)):
			result.problems.append(f'{probe} references {symbol}(): the access '
					       'would fail to link')
	return result


def run_cross(runner: Runner, kdir: Path, names: list[str]) -> list[ArchResult]:
	"""build_arch() for each named architecture, in its build directory,
	from the converted worktree (KDIR's HEAD, as validate builds it)."""
	if not (kdir / 'Makefile').is_file():
		raise EnvironmentProblem(f'{kdir} is not a kernel tree', 'create it with `make tree`')
	srctree = worktree.converted_worktree(runner, kdir)
	results = []
	for name in names:
		arch = ARCHES[name]
		runner.say(f'cross: {name}: {arch.defconfig}, {arch.arch.gcc}')
		result = build_arch(runner, srctree, arch, arch.build_dir)
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


def step(runner: Runner, kdir: Path, names: list[str]) -> Outcome:
	"""The gate: every architecture builds the series without a warning."""
	results = run_cross(runner, kdir, names or list(ARCHES))
	if runner.dry_run:
		return Outcome.ok('dry run')
	return build_verdict(len(results), [r.arch.name for r in results if not r.passed],
			     'architectures', 'cross.txt', report(results))
