# SPDX-License-Identifier: GPL-2.0
"""Commands of the gates: negative, sparse, checkpatch, cross, bisect, validate, faultsweep,
faultsweep-mutate, unittest, hostile, test."""

import argparse
import dataclasses
from typing import Callable

from scoped_uaccess.cli.kernel import add_accel, add_jobs
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.core.outcome import Outcome
from scoped_uaccess.gates import (bisect, checkpatch, cross, fixes, fixes_boot, make_test, negative,
				  sparse, trees, validate)
from scoped_uaccess.sweep import faultsweep, mutation as sweep_mutation
from scoped_uaccess.kernel import kbuild, tree
from scoped_uaccess.sweep import guest
from scoped_uaccess.kernel.qemu import AccelChoice


def cmd_negative(args: argparse.Namespace, runner: Runner) -> Outcome:
	return negative.step(runner, paths.kunit_build_dir('gcc'), args.reference)


def cmd_sparse(args: argparse.Namespace, runner: Runner) -> Outcome:
	return sparse.step(runner, args.kdir)


def cmd_checkpatch(args: argparse.Namespace, runner: Runner) -> Outcome:
	return checkpatch.step(runner, args.kdir, args.patches, checkpatch.SERIES_IGNORE)


def cmd_cross(args: argparse.Namespace, runner: Runner) -> Outcome:
	return cross.step(runner, args.kdir, args.arch or [])


def cmd_bisect(args: argparse.Namespace, runner: Runner) -> Outcome:
	return bisect.step(runner, args.kdir)


def cmd_validate(args: argparse.Namespace, runner: Runner) -> Outcome:
	sweep = () if args.no_sweep else tuple(args.sweep_arch or guest.TARGETS)
	return validate.step(runner, validate.ValidateRequest(
		kdir=args.kdir, patches=args.patches, base=args.base, jobs=args.jobs,
		accel=AccelChoice(args.accel), boot=not args.no_boot, only=args.arch,
		baseline_run=args.baseline_run, sweep=sweep))


def _sweep_request(args: argparse.Namespace, runner: Runner) -> faultsweep.FaultsweepRequest:
	"""What validate boots: its converted worktree at KDIR's HEAD, the
	baseline kernels built from the series up to its API."""
	return faultsweep.request_for(runner, args.kdir, tuple(args.arch or guest.TARGETS),
				      args.baseline_run, not args.no_build, args.jobs,
				      AccelChoice(args.accel))


def cmd_faultsweep(args: argparse.Namespace, runner: Runner) -> Outcome:
	request = _sweep_request(args, runner)
	report_dir = None
	if args.install or args.render:
		report_dir = paths.REPO / 'reports' / f'linux-{tree.kernel_version(args.kdir)}'
	return faultsweep.step(runner, dataclasses.replace(request, from_logs=args.render,
							  report_dir=report_dir))


def cmd_faultsweep_mutate(args: argparse.Namespace, runner: Runner) -> Outcome:
	request = _sweep_request(args, runner)
	report = (paths.REPO / 'reports' / f'linux-{tree.kernel_version(args.kdir)}'
		  if args.install else None)
	return sweep_mutation.step(runner, sweep_mutation.MutationRequest(
		sweep=request, mutations=tuple(args.mutation or sweep_mutation.MUTATIONS),
		report_dir=report))


def cmd_fixes(args: argparse.Namespace, runner: Runner) -> Outcome:
	if args.conversions:
		if args.boot:
			raise UsageError('--conversions and --boot together', 'give one of them')
		return trees.builds_step(runner, args.kdir, args.jobs)
	request = fixes.FixesRequest(args.kdir, jobs=args.jobs)
	if args.boot:
		return fixes_boot.step(runner, request, install=args.install)
	return fixes.step(runner, request)


def cmd_unittest(args: argparse.Namespace, runner: Runner) -> Outcome:
	return make_test.unittest_step(runner)


def cmd_hostile(args: argparse.Namespace, runner: Runner) -> Outcome:
	return make_test.hostile_step(runner)


def cmd_test(args: argparse.Namespace, runner: Runner) -> Outcome:
	return make_test.step(runner, make_test.TestOptions(
		kdir=args.kdir, patches=args.patches, accel=AccelChoice(args.accel), force=args.force,
		jobs=kbuild.JOBS,
		record=() if args.record is None else tuple(args.record) or make_test.recorded_gates()))


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
	p.add_argument('--no-sweep', action='store_true', help='no fault sweep')
	p.add_argument('--sweep-arch', action='append', choices=sorted(guest.TARGETS),
		       help='the fault sweep on this architecture only (repeatable)')
	add_accel(p)
	add_jobs(p)
	for name, fn, what in (
			('faultsweep', cmd_faultsweep, 'the fault sweep: baseline and converted '
			 'kernels booted with testcases/faultsweep, record by record'),
			('faultsweep-mutate', cmd_faultsweep_mutate, 'inject bugs into one converted '
			 'region and show which the fault sweep reports')):
		p = add(name, fn, what)
		p.add_argument('--arch', action='append', choices=sorted(guest.TARGETS),
			       help='only this architecture (repeatable; default: all)')
		p.add_argument('--baseline-run', metavar='NAME', default=paths.BASELINE_RUN,
			       help='the userspace run whose x86_64 kernel is the baseline '
			       f'(default {paths.BASELINE_RUN}: the one validate builds)')
		p.add_argument('--no-build', action='store_true', help='boot the kernels already built')
		add_accel(p)
		add_jobs(p)
		if name == 'faultsweep':
			p.add_argument('--install', action='store_true', help='also write '
				       'reports/linux-<version>/faultsweep.json and faultsweep.md')
			p.add_argument('--render', action='store_true', help='no build, no boot: '
				       'write the report from the consoles the last run kept')
		else:
			p.add_argument('--mutation', action='append', choices=sweep_mutation.MUTATIONS,
				       help='only this mutation (repeatable; default: all)')
			p.add_argument('--install', action='store_true', help='also write the table '
				       'to reports/linux-<version>/faultsweep-mutation.txt')
	p = add('fixes', cmd_fixes, "apply KDIR's fix patches (patches/linux-<x.y>/fixes/) to its "
		'pristine tree, checkpatch them and build what they touch')
	add_jobs(p)
	p.add_argument('--boot', action='store_true', help='instead, boot the pristine and the fixed '
		       'kernel with the tests of testcases/fixes/ (not part of make test)')
	p.add_argument('--install', action='store_true', help='with --boot, write '
		       'reports/linux-<version>/fixes.md')
	p.add_argument('--conversions', action='store_true', help="instead, build KDIR's own "
		       'series (its conversions) on the pristine tree, as gate builds-7.3 does')
	add('unittest', cmd_unittest, "the Python unit tests and pyflakes", kdir=False)
	add('hostile', cmd_hostile, 'the hostile-input suite of the check command, '
	    'testcases/hostile', kdir=False)
	p = add('test', cmd_test, 'every gate of `make test` in order, then a table of their '
		'statuses and times')
	p.add_argument('--force', action='store_true', help='as for `tree`')
	p.add_argument('--record', nargs='*', metavar='GATE',
		       help='run the gates whose verdicts are committed (' + ', '.join(make_test.recorded_gates())
		       + '; those named, else all) and those they need, building for real, and '
		       'write their verdicts to reports/gates/')
	add_accel(p)
