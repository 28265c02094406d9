# SPDX-License-Identifier: GPL-2.0
"""Command line: turns requests into library calls and results into exit status."""

import argparse
import os
import sys
from pathlib import Path
from typing import Callable, Optional, Sequence

from scoped_uaccess.gates import bisect
from scoped_uaccess.gates import checkpatch
from scoped_uaccess.cli import bench as cli_bench
from scoped_uaccess.cli import cocci as cli_cocci
from scoped_uaccess.gates import cross
from scoped_uaccess.kernel import deps
from scoped_uaccess.kunit import expected
from scoped_uaccess.gates import runner as gates
from scoped_uaccess.kunit import run as kunit_run
from scoped_uaccess.gates import negative, sparse
from scoped_uaccess.core import paths
from scoped_uaccess.kernel import tree
from scoped_uaccess.kunit import userspace
from scoped_uaccess.cli import convert as cli_convert
from scoped_uaccess.core.command import Command, Runner
from scoped_uaccess.core.errors import ScopedUaccessError, UsageError
from scoped_uaccess.gates.runner import Gate, Outcome
from scoped_uaccess.kernel.toolchains import TOOLCHAINS, toolchain

PROG = 'scoped-uaccess'
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
TEST_COMPILERS = ('gcc', 'clang-14', 'clang-19')


def _rel(path: Path) -> str:
	try:
		return str(path.resolve().relative_to(Path.cwd()))
	except ValueError:
		return str(path)


def cmd_deps(args: argparse.Namespace, runner: Runner) -> Outcome:
	result = deps.ensure(runner)
	if result.installed:
		return Outcome(EXIT_OK, f'installed {" ".join(result.installed)}')
	return Outcome(EXIT_OK, f'{len(deps.REQUIRED_PACKAGES)} packages present')


def cmd_tree(args: argparse.Namespace, runner: Runner) -> Outcome:
	result = tree.prepare(runner, tree.TreeRequest(kdir=args.kdir, patches=args.patches,
						       force=args.force))
	done = ', '.join(result.actions) or 'unchanged'
	if runner.dry_run:
		done += '; dry run: nothing was changed'
	summary = (f'{_rel(args.kdir)}: baseline + {result.series_length} patch(es) '
		   f'of patches/series ({done})')
	runner.say(f'tree: {summary}')
	return Outcome(EXIT_OK, summary)


def cmd_kunit(args: argparse.Namespace, runner: Runner) -> Outcome:
	suites = expected.EXPECTED_SUITES
	if args.suite:
		suites = tuple(s for s in suites if s.name in args.suite)
	request = kunit_run.KunitRequest(kdir=args.kdir, toolchain=toolchain(args.cc),
					 kunitconfig=args.kunitconfig, suites=suites,
					 accel=kunit_run.AccelChoice(args.accel))
	result = kunit_run.run_kunit(runner, request)
	tag = f'kunit[{result.cc}]'
	for summary in result.summaries:
		runner.say(f'{tag}: {summary}')
	for finding in result.findings[:25]:
		runner.say(f'{tag}: FAIL {finding}')
	if len(result.findings) > 25:
		runner.say(f'{tag}: ... {len(result.findings) - 25} more in {_rel(result.json)}')
	runner.say(f'{tag}: accelerator {result.accelerator.value} ({result.accelerator_note}); '
		   f'build+boot {gates.format_seconds(result.wall_seconds)} '
		   f'(build {gates.format_seconds(result.build_seconds)}, '
		   f'boot {gates.format_seconds(result.boot_seconds)})')
	if result.log and result.log.exists():
		runner.say(f'{tag}: results: {_rel(result.log)}, {_rel(result.json)}')
	counts = '; '.join(str(s) for s in result.summaries)
	if result.status is kunit_run.KunitStatus.PASSED:
		return Outcome(EXIT_OK, f'{counts}; {result.accelerator.value}, '
				f'{gates.format_seconds(result.wall_seconds)}')
	return Outcome(EXIT_FINDINGS, f'{result.status.value}: {result.message}')


def cmd_negative(args: argparse.Namespace, runner: Runner) -> Outcome:
	build_dir = paths.kunit_build_dir('gcc')
	result = negative.run_negative(runner, build_dir, reference=args.reference)
	paths.RESULTS.mkdir(parents=True, exist_ok=True)
	(paths.RESULTS / 'negative.txt').write_text(negative.report(result))
	failed = [c.case.path.name for c in result.cases if c.status is negative.CaseStatus.FAIL]
	summary = f'{len(result.cases) - len(failed)} of {len(result.cases)} files as expected'
	runner.say(f'negative: {summary} (details: {_rel(paths.RESULTS / "negative.txt")})')
	if failed:
		return Outcome(EXIT_FINDINGS, f'{summary}; wrong: {", ".join(failed)}')
	return Outcome(EXIT_OK, summary)


def cmd_sparse(args: argparse.Namespace, runner: Runner) -> Outcome:
	result = sparse.run_sparse(runner, args.kdir, jobs=os.cpu_count() or 1)
	report = paths.RESULTS / 'sparse.txt'
	if runner.dry_run:
		return Outcome(EXIT_OK, 'dry run')
	report.write_text(sparse.report(result))
	for w in result.new:
		runner.say(f'sparse: NEW {w}')
	for w in result.uaccess:
		runner.say(f'sparse: UACCESS {w}')
	summary = (f'{len(result.files)} files; {len(result.new)} new warning(s), '
		   f'{len(result.uaccess)} objtool UACCESS warning(s)')
	runner.say(f'sparse: {summary} (details: {_rel(report)})')
	return Outcome(EXIT_OK if result.passed else EXIT_FINDINGS, summary)


def cmd_checkpatch(args: argparse.Namespace, runner: Runner) -> Outcome:
	results = checkpatch.run_checkpatch(runner, args.kdir, args.patches)
	paths.RESULTS.mkdir(parents=True, exist_ok=True)
	(paths.RESULTS / 'checkpatch.txt').write_text(
		''.join(f'=== {r.patch}\n{r.output}\n' for r in results))
	dirty = [r for r in results if not r.clean]
	summary = f'{len(results) - len(dirty)} of {len(results)} patches clean'
	if dirty:
		return Outcome(EXIT_FINDINGS, f'{summary}; not clean: {", ".join(r.patch.split("-")[0] for r in dirty)} '
				 f'(see {_rel(paths.RESULTS / "checkpatch.txt")})')
	return Outcome(EXIT_OK, summary)


def cmd_userspace(args: argparse.Namespace, runner: Runner) -> Outcome:
	request = userspace.UserspaceRequest(
		kdir=args.kdir, name=args.name, mode=userspace.Mode(args.mode),
		iterations=args.iterations, accel=kunit_run.AccelChoice(args.accel),
		jobs=args.jobs, build=not args.no_build)
	result = userspace.run_userspace(runner, request)
	tag = f'userspace[{args.name}]'
	console = result.console
	if console is not None:
		checks = console.checks.values()
		passed = sum(c.status is userspace.ktap.Status.PASS for c in checks)
		runner.say(f'{tag}: {passed} of {len(checks)} checks ok; program exit status '
			   f'{console.exit_status}')
		for summary in kunit_run.summarize(console.kunit):
			runner.say(f'{tag}: KUnit {summary}')
		for b in console.benches:
			runner.say(f'{tag}: bench {b.name}: {b.ns_per_call:.0f} ns/call '
				   f'({b.iterations} iterations)')
	runner.say(f'{tag}: {result.accelerator.value} ({result.accelerator_note}); build '
		   f'{gates.format_seconds(result.build_seconds)}, boot '
		   f'{gates.format_seconds(result.boot_seconds)}')
	if result.log and result.log.exists():
		runner.say(f'{tag}: results: {_rel(result.log)}, {_rel(result.json)}')
	if result.status is userspace.RunStatus.PASSED:
		return Outcome(EXIT_OK, f'{args.name}: passed')
	return Outcome(EXIT_FINDINGS, f'{result.status.value}: {result.message}')


def cmd_userspace_compare(args: argparse.Namespace, runner: Runner) -> Outcome:
	logs = [userspace.results_log(n) for n in (args.baseline, args.converted)]
	for log in logs:
		if not log.is_file():
			raise UsageError(f'{log} does not exist', 'run `scoped-uaccess userspace` first')
	baseline, converted = (userspace.parse_log(log) for log in logs)
	diffs = userspace.compare(baseline, converted)
	for d in diffs:
		runner.say(f'compare: {d}')
	only_a, only_b = userspace.only_one_has(baseline, converted)
	for label, suites in (('baseline', only_a), ('converted', only_b)):
		if suites:
			runner.say(f'compare: KUnit suites only the {label} kernel runs (not compared): '
				   f'{" ".join(suites)}')
	failing = [f'{label}: {run.problems()[0]}'
		   for label, run in (('baseline', baseline), ('converted', converted)) if run.problems()]
	summary = (f'{len(converted.checks)} checks and the common KUnit cases compared; '
		   f'{len(diffs)} difference(s)')
	runner.say(f'compare: {summary}')
	if diffs or failing:
		return Outcome(EXIT_FINDINGS, '; '.join([summary, *failing]))
	return Outcome(EXIT_OK, summary)


def _build_verdict(results: list, failed: list[str], what: str, name: str,
		   text: str) -> Outcome:
	"""Writes build/results/<name> and sums up builds that pass or fail."""
	paths.RESULTS.mkdir(parents=True, exist_ok=True)
	(paths.RESULTS / name).write_text(text)
	summary = (f'{len(results) - len(failed)} of {len(results)} {what} build cleanly '
		   f'(details: {_rel(paths.RESULTS / name)})')
	if failed:
		return Outcome(EXIT_FINDINGS, f'{summary}; failed: {", ".join(failed)}')
	return Outcome(EXIT_OK, summary)


def cmd_cross(args: argparse.Namespace, runner: Runner) -> Outcome:
	results = cross.run_cross(runner, args.kdir, args.arch or list(cross.ARCHES))
	if runner.dry_run:
		return Outcome(EXIT_OK, 'dry run')
	return _build_verdict(results, [r.arch.name for r in results if not r.passed],
			      'architectures', 'cross.txt', cross.report(results))


def cmd_bisect(args: argparse.Namespace, runner: Runner) -> Outcome:
	results = bisect.run_bisect(runner, args.kdir, paths.kunit_build_dir('gcc') / '.config')
	if runner.dry_run:
		return Outcome(EXIT_OK, 'dry run')
	return _build_verdict(results, [r.commit for r in results if not r.passed],
			      'commits', 'bisect.txt', bisect.report(results))


def cmd_unittest(args: argparse.Namespace, runner: Runner) -> Outcome:
	run = runner.run(Command((sys.executable, str(paths.UNIT_TESTS / 'run.py')),
				 mutates=False), check=False)
	if run.returncode != 0:
		return Outcome(EXIT_FINDINGS, 'unit tests failed (see above)')
	return Outcome(EXIT_OK, 'unit tests passed')


def cmd_test(args: argparse.Namespace, runner: Runner) -> Outcome:
	def with_args(fn: Callable[[argparse.Namespace, Runner], Outcome], **extra) -> Callable[[], Outcome]:
		ns = argparse.Namespace(**{**vars(args), **extra})
		return lambda: fn(ns, runner)
	kunit_gates = [Gate(f'kunit-{cc}', f'KUnit in QEMU failed under {cc}',
			    with_args(cmd_kunit, cc=cc, suite=None), needs=('tree',))
		       for cc in TEST_COMPILERS]
	pipeline = [
		Gate('deps', 'required Debian packages missing', with_args(cmd_deps)),
		Gate('unittest', 'converter Python unit tests failed', with_args(cmd_unittest)),
		Gate('tree', 'kernel tree could not be prepared', with_args(cmd_tree),
		     needs=('deps',)),
		Gate('cocci', 'the checker corpus does not give the expected findings',
		     with_args(cli_cocci.cmd_check_cocci), needs=('deps',)),
		*kunit_gates,
		Gate('negative', 'negative compile tests did not behave',
		     with_args(cmd_negative, reference=negative.REFERENCE_OBJECT), needs=('tree',)),
		Gate('sparse', 'new sparse/objtool warnings', with_args(cmd_sparse), needs=('tree',)),
		Gate('checkpatch', 'checkpatch --strict reports an error or warning',
		     with_args(cmd_checkpatch), needs=('tree',)),
		Gate('cross', 'a cross build of the series failed or warned',
		     with_args(cmd_cross, arch=None), needs=('tree',)),
		Gate('bisect', 'a commit of the series does not build cleanly',
		     with_args(cmd_bisect), needs=('tree', 'kunit-gcc')),
		*cli_convert.gates(args, with_args),
	]
	run = gates.run_gates(pipeline, runner.say)
	table = gates.summary_table(run)
	paths.RESULTS.mkdir(parents=True, exist_ok=True)
	(paths.RESULTS / 'test-summary.txt').write_text(table + '\n')
	print(table, flush=True)
	failed = [r.gate.name for r in run.results if r.status is not gates.GateStatus.PASS]
	return Outcome(run.exit_status, f'gates not passed: {", ".join(failed)}' if failed else '')


def build_parser() -> argparse.ArgumentParser:
	parser = argparse.ArgumentParser(prog=PROG, description='Build, boot and check the '
					 'scoped user access kernel series.')
	parser.add_argument('--dry-run', action='store_true',
			    help='print the commands that change things instead of running them')
	sub = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')

	def add(name: str, fn: Callable, help: str, kdir: bool = True) -> argparse.ArgumentParser:
		p = sub.add_parser(name, help=help, description=help)
		p.set_defaults(fn=fn)
		if kdir:
			p.add_argument('--kdir', type=Path, default=paths.DEFAULT_KDIR,
				       help='kernel tree (default: build/linux)')
			p.add_argument('--patches', type=Path, default=paths.PATCHES,
				       help='directory with `series` and the patches (default: patches/)')
		return p

	add('deps', cmd_deps, 'install the Debian packages the pipeline needs', kdir=False)
	p = add('tree', cmd_tree, 'extract the kernel, commit baseline, apply patches/series')
	p.add_argument('--force', action='store_true',
		       help='discard a tree that is dirty, diverged or of another version')
	p = add('kunit', cmd_kunit, 'build the KUnit kernel, boot it in QEMU, check KTAP')
	p.add_argument('--cc', default='gcc', choices=sorted(TOOLCHAINS), help='compiler')
	p.add_argument('--accel', default='auto', choices=[c.value for c in kunit_run.AccelChoice],
		       help='QEMU accelerator (auto: KVM when usable, else TCG)')
	p.add_argument('--kunitconfig', type=Path, default=paths.KUNITCONFIG,
		       help='KUnit config fragment (default: testcases/kunit/scoped_uaccess.kunitconfig)')
	p.add_argument('--suite', action='append',
		       choices=[s.name for s in expected.EXPECTED_SUITES],
		       help='check only this expected suite (repeatable; default: all)')
	p = add('negative', cmd_negative, 'compile testcases/negative/*.c with kbuild flags', kdir=False)
	p.add_argument('--reference', default=negative.REFERENCE_OBJECT,
		       help='object whose kbuild command line is borrowed')
	add('sparse', cmd_sparse, 'sparse/objtool warnings of the series against baseline')
	add('checkpatch', cmd_checkpatch, 'checkpatch.pl --strict on patches/series')
	p = add('userspace', cmd_userspace, 'build a kernel with testcases/kernel/userspace.config, '
		'boot it with the userspace syscall tests, check KTAP')
	p.add_argument('--name', required=True, help='names build/out/user-NAME and the results')
	p.add_argument('--mode', default='test', choices=[m.value for m in userspace.Mode],
		       help='the checks, the benchmarks, or both')
	p.add_argument('--iterations', type=int, default=1000, help='benchmark iterations')
	p.add_argument('--accel', default='auto', choices=[c.value for c in kunit_run.AccelChoice],
		       help='QEMU accelerator (auto: KVM when usable, else TCG)')
	p.add_argument('--jobs', type=int, default=os.cpu_count() or 1, help='make jobs')
	p.add_argument('--no-build', action='store_true', help='boot the kernel already built')
	p = add('userspace-compare', cmd_userspace_compare, 'compare two userspace runs: '
		'same checks, statuses and errnos', kdir=False)
	p.add_argument('baseline', help='run name (or console log) of the baseline kernel')
	p.add_argument('converted', help='run name (or console log) of the converted kernel')
	p = add('cross', cmd_cross, 'build the series for arm, arm64, powerpc and riscv')
	p.add_argument('--arch', action='append', choices=sorted(cross.ARCHES),
		       help='only this architecture (repeatable; default: all)')
	add('bisect', cmd_bisect, 'build the touched objects at every commit of the series')
	add('unittest', cmd_unittest, "the converter's own Python unit tests", kdir=False)
	cli_cocci.add_commands(add)
	cli_convert.add_commands(add)
	cli_bench.add_commands(add)
	p = add('test', cmd_test, 'every gate: deps unittest tree kunit(x3) negative sparse checkpatch cross bisect')
	p.add_argument('--force', action='store_true', help='as for `tree`')
	p.add_argument('--accel', default='auto', choices=[c.value for c in kunit_run.AccelChoice],
		       help='as for `kunit`')
	p.set_defaults(kunitconfig=paths.KUNITCONFIG)
	return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
	parser = build_parser()
	args = parser.parse_args(argv)
	runner = Runner(dry_run=args.dry_run)
	try:
		outcome = args.fn(args, runner)
	except ScopedUaccessError as e:
		print(f'{PROG}: error: {e.one_line()}', file=sys.stderr, flush=True)
		return EXIT_USAGE
	except KeyboardInterrupt:
		print(f'{PROG}: interrupted', file=sys.stderr)
		return EXIT_USAGE
	if outcome.exit_status != EXIT_OK:
		print(f'{PROG}: {args.command} failed: {outcome.summary}', file=sys.stderr, flush=True)
	return outcome.exit_status
