# SPDX-License-Identifier: GPL-2.0
"""Commands of the gates: negative, sparse, checkpatch, cross, bisect, validate, unittest, test."""

import argparse
from typing import Callable

from scoped_uaccess.cli.kernel import add_accel, add_jobs
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.outcome import Outcome
from scoped_uaccess.gates import bisect, checkpatch, cross, make_test, negative, sparse, validate
from scoped_uaccess.kernel import kbuild
from scoped_uaccess.kernel.qemu import AccelChoice


def cmd_negative(args: argparse.Namespace, runner: Runner) -> Outcome:
	return negative.step(runner, paths.kunit_build_dir('gcc'), args.reference)


def cmd_sparse(args: argparse.Namespace, runner: Runner) -> Outcome:
	return sparse.step(runner, args.kdir)


def cmd_checkpatch(args: argparse.Namespace, runner: Runner) -> Outcome:
	return checkpatch.step(runner, args.kdir, args.patches)


def cmd_cross(args: argparse.Namespace, runner: Runner) -> Outcome:
	return cross.step(runner, args.kdir, args.arch or [])


def cmd_bisect(args: argparse.Namespace, runner: Runner) -> Outcome:
	return bisect.step(runner, args.kdir)


def cmd_validate(args: argparse.Namespace, runner: Runner) -> Outcome:
	return validate.step(runner, validate.ValidateRequest(
		kdir=args.kdir, patches=args.patches, base=args.base, jobs=args.jobs,
		accel=AccelChoice(args.accel), boot=not args.no_boot, only=args.arch,
		baseline_run=args.baseline_run))


def cmd_unittest(args: argparse.Namespace, runner: Runner) -> Outcome:
	return make_test.unittest_step(runner)


def cmd_test(args: argparse.Namespace, runner: Runner) -> Outcome:
	return make_test.step(runner, make_test.TestOptions(
		kdir=args.kdir, patches=args.patches, accel=AccelChoice(args.accel), force=args.force,
		jobs=kbuild.JOBS))


def add_commands(add: Callable[..., argparse.ArgumentParser]) -> None:
	p = add('negative', cmd_negative, 'compile testcases/negative/*.c with kbuild flags', kdir=False)
	p.add_argument('--reference', default=negative.REFERENCE_OBJECT,
		       help='object whose kbuild command line is borrowed')
	add('sparse', cmd_sparse, 'sparse/objtool warnings of the series against baseline')
	add('checkpatch', cmd_checkpatch, 'checkpatch.pl --strict on patches/series')
	p = add('cross', cmd_cross, 'build the series for arm, arm64, powerpc and riscv')
	p.add_argument('--arch', action='append', choices=sorted(cross.ARCHES),
		       help='only this architecture (repeatable; default: all)')
	add('bisect', cmd_bisect, 'build the touched objects at every commit of the series')
	p = add('validate', cmd_validate, 'build the converted files for their architectures '
		'with sparse and objtool, boot the converted kernel against baseline')
	p.add_argument('--base', help='the unconverted commit (default: baseline + the core part '
		       'of patches/series in KDIR)')
	p.add_argument('--arch', action='append', choices=sorted(validate.ARCHES),
		       help='only this architecture (repeatable)')
	p.add_argument('--no-boot', action='store_true', help='builds only')
	p.add_argument('--baseline-run', metavar='NAME', help='compare the converted kernel with '
		       'this existing `userspace` run of a baseline kernel instead of building '
		       'and booting the baseline worktree')
	add_accel(p)
	add_jobs(p)
	add('unittest', cmd_unittest, "the Python unit tests and pyflakes", kdir=False)
	p = add('test', cmd_test, 'every gate of `make test` in order, then a table of their '
		'statuses and times')
	p.add_argument('--force', action='store_true', help='as for `tree`')
	add_accel(p)
