# SPDX-License-Identifier: GPL-2.0
"""Commands of the kernel and its boots: deps, tree, kunit, kunit-matrix, userspace,
userspace-compare."""

import argparse
from pathlib import Path
from typing import Callable

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.outcome import Outcome
from scoped_uaccess.kernel import deps, kbuild, kunit_qemu, sources, tree
from scoped_uaccess.kernel.qemu import AccelChoice
from scoped_uaccess.kernel.toolchains import TOOLCHAINS, toolchain
from scoped_uaccess.kunit import expected, matrix, matrix_report
from scoped_uaccess.userspace import syscalls, compare
from scoped_uaccess.kunit import suites


def cmd_deps(args: argparse.Namespace, runner: Runner) -> Outcome:
	return deps.step(runner)


def cmd_tree(args: argparse.Namespace, runner: Runner) -> Outcome:
	return tree.step(runner, tree.TreeRequest(kdir=args.kdir, patches=args.patches,
						  force=args.force, source=sources.for_kdir(args.kdir)))


def cmd_kunit(args: argparse.Namespace, runner: Runner) -> Outcome:
	wanted = expected.EXPECTED_SUITES
	if args.suite:
		wanted = tuple(s for s in wanted if s.name in args.suite)
	return suites.step(runner, suites.KunitRequest(
		kdir=args.kdir, toolchain=toolchain(args.cc), kunitconfig=args.kunitconfig,
		suites=wanted, accel=AccelChoice(args.accel)))


def cmd_kunit_matrix(args: argparse.Namespace, runner: Runner) -> Outcome:
	report_dir = (paths.REPO / 'reports' / f'linux-{tree.kernel_version(args.kdir)}'
		      if args.install else None)
	return matrix_report.step(runner, matrix.MatrixRequest(
		kdir=args.kdir, arches=tuple(args.arch or kunit_qemu.KUNIT_ARCHES),
		out=args.out, jobs=args.jobs, accel=AccelChoice(args.accel)), report_dir)


def cmd_userspace(args: argparse.Namespace, runner: Runner) -> Outcome:
	return syscalls.step(runner, syscalls.UserspaceRequest(
		kdir=args.kdir, name=args.name, mode=syscalls.Mode(args.mode),
		iterations=args.iterations, accel=AccelChoice(args.accel),
		jobs=args.jobs, build=not args.no_build))


def cmd_userspace_compare(args: argparse.Namespace, runner: Runner) -> Outcome:
	return compare.compare_step(runner, args.baseline, args.converted)


def add_accel(p: argparse.ArgumentParser) -> None:
	p.add_argument('--accel', default='auto', choices=[c.value for c in AccelChoice],
		       help='QEMU accelerator (auto: KVM when usable, else TCG)')


def add_jobs(p: argparse.ArgumentParser, what: str = 'make jobs') -> None:
	p.add_argument('--jobs', type=int, default=kbuild.JOBS, help=what)


def add_commands(add: Callable[..., argparse.ArgumentParser]) -> None:
	add('deps', cmd_deps, 'install the Debian packages the pipeline needs', kdir=False)
	p = add('tree', cmd_tree, 'extract the kernel, commit baseline, apply patches/series')
	p.add_argument('--force', action='store_true',
		       help='discard a tree that is dirty, diverged or of another version')
	p = add('kunit', cmd_kunit, 'build the KUnit kernel, boot it in QEMU, check KTAP')
	p.add_argument('--cc', default='gcc', choices=sorted(TOOLCHAINS), help='compiler')
	add_accel(p)
	p.add_argument('--kunitconfig', type=Path, default=paths.X86_64_CONFIG,
		       help='KUnit config fragment (default: testcases/kernel/x86_64.config)')
	p.add_argument('--suite', action='append',
		       choices=[s.name for s in expected.EXPECTED_SUITES],
		       help='check only this expected suite (repeatable; default: all)')
	p = add('kunit-matrix', cmd_kunit_matrix, "the scoped_uaccess and usercopy suites under "
		"kunit.py's QEMU configurations (tools/testing/kunit/qemu_configs/), one row "
		'per architecture')
	p.add_argument('--arch', action='append', choices=list(kunit_qemu.KUNIT_ARCHES),
		       help='only this architecture (repeatable; default: all)')
	p.add_argument('--install', action='store_true', help='also write '
		       'reports/linux-<version>/kunit-matrix.md from every row in the results')
	p.add_argument('--out', type=Path, default=paths.OUT,
		       help='where the build directories go (default: build/out)')
	add_accel(p)
	add_jobs(p)
	p = add('userspace', cmd_userspace, 'build a kernel with testcases/kernel/x86_64.config, '
		'boot it with the userspace syscall tests, check KTAP')
	p.add_argument('--name', required=True, help='names build/out/user-NAME and the results')
	p.add_argument('--mode', default='test', choices=[m.value for m in syscalls.Mode],
		       help='the checks, the benchmarks, or both')
	p.add_argument('--iterations', type=int, default=1000, help='benchmark iterations')
	add_accel(p)
	add_jobs(p)
	p.add_argument('--no-build', action='store_true', help='boot the kernel already built')
	p = add('userspace-compare', cmd_userspace_compare, 'compare two userspace runs: '
		'same checks, statuses and errnos', kdir=False)
	p.add_argument('baseline', help='run name (or console log) of the baseline kernel')
	p.add_argument('converted', help='run name (or console log) of the converted kernel')
