# SPDX-License-Identifier: GPL-2.0
"""Commands of the Coccinelle stage: report, check-cocci, convert, convert-regen."""

import argparse
import sys
from pathlib import Path
from typing import Callable

from scoped_uaccess.cli.kernel import add_jobs
from scoped_uaccess.checker import check, report, ship, stress
from scoped_uaccess.convert import files as convert_files, mainline
from scoped_uaccess.convert import targets as convert_targets
from scoped_uaccess.convert.driver import RULES, WORKTREE, ConvertRequest, default_worktree
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.core.outcome import EXIT_USAGE, Outcome, relative
from scoped_uaccess.gates import make_test
from scoped_uaccess.kernel import sources, tree
from scoped_uaccess.kernel.tree import makefile_version

def cmd_report(args: argparse.Namespace, runner: Runner) -> Outcome:
	tree.ensure(runner, args.kdir, args.patches)
	return report.step(runner, report.ReportRequest(
		kdir=args.kdir, out=args.out, triage=args.triage, scripts=_scripts(args),
		jobs=args.jobs, baseline=args.baseline))


def cmd_stress(args: argparse.Namespace, runner: Runner) -> Outcome:
	tree.ensure(runner, args.kdir, args.patches)
	version = makefile_version(args.kdir)
	if not version:
		return Outcome(EXIT_USAGE, f'{args.kdir}: not a kernel tree (no version in its '
			       'Makefile); give one with --kdir')
	runs = stress.run_stress(runner, args.kdir, args.timeout, runner.say)
	out = args.out or stress.OUT / args.kdir.resolve().name
	tree_name = f'Linux {version} ({relative(args.kdir)})'
	written = stress.write(runs, out, tree_name)
	if args.install:
		installed = paths.REPORTS / f'linux-{version}' / 'stress.md'
		installed.write_text(stress.report(runs, tree_name, relative(args.kdir)))
		runner.say(f'stress: wrote {relative(installed)}')
	failed = [r for r in runs if r.failure]
	unparsed = [r for r in runs if r.kind == 'none' and stress.unparsed_blocks(r)]
	text = (f'{len(runs)} run(s), slowest {max(r.seconds for r in runs):.1f} s, '
		f'{len(failed)} failure(s), {len(unparsed)} file(s) with a block spatch cannot '
		f'parse; {relative(written)}')
	return Outcome.findings(text) if failed or unparsed else Outcome.ok(text)


def cmd_check_cocci(args: argparse.Namespace, runner: Runner) -> Outcome:
	return make_test.corpus_step(runner, args.kdir)


def _convert_request(args: argparse.Namespace, out: Path) -> ConvertRequest:
	scratch = args.worktree or default_worktree(args.tree)
	return ConvertRequest(tree=args.tree, out=out.resolve(), rev=getattr(args, 'rev', 'HEAD'),
			      rules=args.rules.resolve(), worktree=scratch.resolve(),
			      jobs=args.jobs, start_number=getattr(args, 'start_number', 1))


def cmd_convert(args: argparse.Namespace, runner: Runner) -> Outcome:
	if args.files:
		whole = [o for o, v in (('--core', args.core), ('--install', args.install),
					 ('--install-from', args.install_from), ('--out', args.out),
					 ('--rev', args.rev != 'HEAD'), ('--patches', args.patches)) if v]
		if whole:
			raise UsageError(f'{whole[0]} converts a whole tree, not FILE arguments',
					 'give either files or the options of a tree conversion')
		return convert_files.convert_files(
			Runner(dry_run=runner.dry_run, echo=sys.stderr, quiet=runner.quiet),
			convert_files.FilesRequest(tuple(args.files), args.tree, args.in_place,
						   args.rules.resolve(), args.jobs))
	if args.in_place:
		raise UsageError('--in-place without FILE arguments', 'name the files to convert')
	args.tree = args.tree or paths.DEFAULT_KDIR
	return convert_targets.convert_step(runner, convert_targets.ConvertStep(
		_convert_request(args, args.out or convert_targets.out_dir(args.tree)),
		patches=args.patches or sources.patches_for(args.tree),
		core=args.core, install=args.install, install_from=args.install_from))


def cmd_convert_regen(args: argparse.Namespace, runner: Runner) -> Outcome:
	return convert_targets.regen_step(
		runner, _convert_request(args, args.out or convert_targets.out_dir(args.tree, regen=True)),
		args.patches or sources.patches_for(args.tree))


def cmd_mainline_comparison(args: argparse.Namespace, runner: Runner) -> Outcome:
	return mainline.comparison_step(runner, args.tree, args.current, args.write)


def cmd_ship_checker(args: argparse.Namespace, runner: Runner) -> Outcome:
	return ship.refresh(runner, args.kdir, args.patches)


def _scripts(args: argparse.Namespace) -> tuple[Path, ...]:
	return tuple(args.cocci) if args.cocci else check.CHECKERS


def add_commands(add: Callable[..., argparse.ArgumentParser]) -> None:
	p = add('report', cmd_report, 'the triaged tree-wide report: reports/linux-<version>/')
	p.add_argument('--out', type=Path, help='output directory (default: reports/linux-<version>)')
	p.add_argument('--triage', type=Path, help='triage file (default: <out>/triage.json)')
	p.add_argument('--baseline', type=Path,
		       help='an earlier findings.json: print only the findings not in it')
	_checker_options(p)
	p = add('stress', cmd_stress, 'every file of the tree that uses the API, as it is and '
		'with one-line changes (an end dropped, a call added), one spatch at a time')
	p.add_argument('--timeout', type=int, default=stress.TIMEOUT,
		       help=f'seconds per file and run (default {stress.TIMEOUT})')
	p.add_argument('--out', type=Path, help='default: build/results/stress/<tree>')
	p.add_argument('--install', action='store_true',
		       help='also write the summary to reports/linux-<version>/stress.md')
	add('check-cocci', cmd_check_cocci, 'the checker corpus testcases/cocci through spatch, '
	    'the CLI and make coccicheck')
	p = add('convert', cmd_convert, 'convert the open-coded user access regions of a tree '
		'into a git format-patch series, or of FILEs of your own tree', kdir=False)
	p.add_argument('files', nargs='*', type=Path, metavar='FILE',
		       help='convert these files of a kernel tree: print the diff (or --in-place) '
		       'and leave the rest of the tree alone')
	p.add_argument('--in-place', action='store_true',
		       help='with FILEs: write the converted files back instead of printing a diff')
	p.add_argument('--tree', type=Path,
		       help='kernel git tree (default: build/linux; with FILEs, the tree above '
		       'them); never modified but for --in-place FILEs')
	p.add_argument('--out', type=Path, help='series, conversion.json, summary.md '
		       f'(default: {relative(convert_targets.CONVERT_OUT)})')
	p.add_argument('--rev', default='HEAD', help='commit to convert (default: HEAD)')
	p.add_argument('--core', action='store_true', help='convert the commit that is baseline + '
		       'the core part of patches/series, numbering after it')
	p.add_argument('--install', action='store_true', help='--core, then replace the conversions '
		       'in patches/ and the table in reports/linux-<version>/')
	p.add_argument('--install-from', type=Path, metavar='DIR', help='install the output of '
		       'an earlier --core run without converting again')
	p.add_argument('--start-number', type=int, default=1, help='number of the first patch')
	_convert_options(p)
	p = add('convert-regen', cmd_convert_regen, 'regenerate the conversions of patches/ and '
		'compare', kdir=False)
	p.add_argument('--tree', type=Path, default=paths.DEFAULT_KDIR,
		       help='kernel git tree with the core series (default: build/linux)')
	p.add_argument('--out', type=Path, help=f'default: {relative(convert_targets.REGEN_OUT)}')
	_convert_options(p)
	p = add('mainline-comparison', cmd_mainline_comparison, "our generated conversions of "
		"--tree next to mainline's hand conversions in --current: "
		'reports/linux-<version>/mainline-comparison.md', kdir=False)
	p.add_argument('--tree', type=Path, default=paths.DEFAULT_KDIR,
		       help='the tree with the generated series (default: build/linux)')
	p.add_argument('--current', type=Path, default=paths.BUILD / 'linux-7.3',
		       help="the tree with mainline's conversions (default: build/linux-7.3)")
	p.add_argument('--write', action='store_true', help='write the report (default: check it)')
	add('ship-checker', cmd_ship_checker, "commit cocci/'s checker scripts into KDIR as a fixup "
	    "of the series' checker patch and export that patch again")


def _checker_options(p: argparse.ArgumentParser) -> None:
	p.add_argument('--cocci', type=Path, action='append',
		       help='semantic patch (repeatable; default: the checker, '
		       + ', '.join(relative(s) for s in check.CHECKERS) + ')')
	add_jobs(p, 'spatch processes in parallel')


def _convert_options(p: argparse.ArgumentParser) -> None:
	p.add_argument('--patches', type=Path,
		       help='directory with `series` (default: patches/)')
	p.add_argument('--rules', type=Path, default=RULES,
		       help=f'conversion rules (default: {relative(RULES)})')
	p.add_argument('--worktree', type=Path,
		       help=f'scratch worktree (default: {relative(WORKTREE)}, '
		       'build/wt-convert-<x.y> for another tree)')
	add_jobs(p, 'spatch processes in parallel')
