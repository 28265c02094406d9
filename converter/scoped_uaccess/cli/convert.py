# SPDX-License-Identifier: GPL-2.0
"""Command line of the conversion: convert, convert-regen and validate."""

import argparse
import os
from pathlib import Path
from typing import Callable

from scoped_uaccess.cocci import convert
from scoped_uaccess.kunit import run as kunit_run
from scoped_uaccess.core import paths
from scoped_uaccess.kernel import tree
from scoped_uaccess.gates import validate
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.gates.runner import Gate, Outcome

EXIT_OK, EXIT_FINDINGS = 0, 1
REPORTS = paths.REPO / 'reports' / f'linux-{tree.DEBIAN_6_12.version}'
CONVERT_OUT = paths.RESULTS / 'convert'
REGEN_OUT = paths.RESULTS / 'convert-regen'


def _request(args: argparse.Namespace, out: Path, rev: str, start: int) -> convert.ConvertRequest:
	return convert.ConvertRequest(tree=args.tree, out=out.resolve(), rev=rev,
				      rules=args.rules.resolve(), worktree=args.worktree.resolve(),
				      jobs=args.jobs, start_number=start)


def _core_rev(args: argparse.Namespace, runner: Runner) -> tuple[str, int]:
	"""--core: the commit that is baseline + the core series, and the number
	the first conversion patch gets after it."""
	parts = convert.series_parts(args.patches)
	return convert.core_commit(runner, args.tree, args.patches), len(parts.core) + 1


def cmd_convert(args: argparse.Namespace, runner: Runner) -> Outcome:
	if args.install_from:
		convert.install(args.install_from, args.patches, REPORTS, runner.say)
		return Outcome(EXIT_OK, f'installed {args.install_from}')
	rev, start = args.rev, args.start_number
	if args.core or args.install:
		if args.rev != 'HEAD':
			raise UsageError('--rev and --core/--install together', 'give one of them')
		rev, start = _core_rev(args, runner)
	out = args.out or CONVERT_OUT
	result = convert.run_convert(runner, _request(args, out, rev, start))
	if runner.dry_run:
		return Outcome(EXIT_OK, 'dry run')
	if args.install:
		convert.install(out, args.patches, REPORTS, runner.say)
	counts = result.counts()
	converted = counts.get(('converted', ''), 0)
	summary = (f'{converted} of {len(result.entries)} regions converted, '
		   f'{len(result.patches)} patch(es) in {out}')
	runner.say(f'convert: series: {out}/*.patch; table: {out}/conversion.json, '
		   f'{out}/summary.md')
	return Outcome(EXIT_OK, summary)


def cmd_convert_regen(args: argparse.Namespace, runner: Runner) -> Outcome:
	"""Regenerates the conversions on baseline + core series and compares
	them with those in patches/."""
	parts = convert.series_parts(args.patches)
	if not parts.conversions:
		raise UsageError(f'{args.patches}/series has no conversions part',
				 'generate it with `make convert-install`')
	rev, start = _core_rev(args, runner)
	out = args.out or REGEN_OUT
	result = convert.run_convert(runner, _request(args, out, rev, start))
	if runner.dry_run:
		return Outcome(EXIT_OK, 'dry run')
	want = convert.read_series_texts(args.patches, parts.conversions)
	have = convert.read_series_texts(out, [p.name for p in result.patches])
	problems = convert.compare_series(want, have)
	committed = REPORTS / 'conversion.json'
	if committed.is_file() and committed.read_text() != (out / 'conversion.json').read_text():
		problems.append(f'{committed} differs from the regenerated {out}/conversion.json')
	for p in problems:
		runner.say(f'convert-regen: {p}')
	summary = (f'{len(have)} regenerated patch(es) against {len(want)} in patches/'
		   f'{"; " + str(len(problems)) + " difference(s)" if problems else ", identical"}')
	runner.say(f'convert-regen: {summary}')
	return Outcome(EXIT_FINDINGS if problems else EXIT_OK, summary)


def cmd_validate(args: argparse.Namespace, runner: Runner) -> Outcome:
	kdir = args.kdir
	base = args.base or convert.core_commit(runner, kdir, args.patches)
	result = validate.run_validate(runner, kdir, base, args.jobs,
				       kunit_run.AccelChoice(args.accel), boot=not args.no_boot,
				       only=args.arch, baseline_run=args.baseline_run)
	if runner.dry_run:
		return Outcome(EXIT_OK, 'dry run')
	paths.RESULTS.mkdir(parents=True, exist_ok=True)
	text = paths.RESULTS / 'validate.txt'
	text.write_text(validate.report(result))
	failed = [b.arch.name for b in result.builds if not b.passed]
	if result.boot:
		failed.append('boot')
	summary = (f'{len(result.touched)} file(s); builds {len(result.builds) - len([b for b in result.builds if not b.passed])}'
		   f'/{len(result.builds)} clean ({" ".join(b.arch.name for b in result.builds)})')
	if result.boot_ran:
		summary += f'; boot: {result.boot_summary}'
	runner.say(f'validate: {summary}; details: {text}')
	if failed:
		return Outcome(EXIT_FINDINGS, f'{summary}; failed: {", ".join(failed)}')
	return Outcome(EXIT_OK, summary)


def add_commands(add: Callable[..., argparse.ArgumentParser]) -> None:
	"""Adds the conversion's subcommands with cli.build_parser()'s add()."""
	p = add('convert', cmd_convert, 'convert the open-coded user access regions of a tree '
		'into a git format-patch series', kdir=False)
	p.add_argument('--tree', type=Path, default=paths.DEFAULT_KDIR,
		       help='kernel git tree (default: build/linux); never modified')
	p.add_argument('--out', type=Path, help=f'series, conversion.json, summary.md '
		       f'(default: {CONVERT_OUT.relative_to(paths.REPO)})')
	p.add_argument('--rev', default='HEAD', help='commit to convert (default: HEAD)')
	p.add_argument('--core', action='store_true', help='convert the commit that is baseline + '
		       'the core part of patches/series, numbering after it')
	p.add_argument('--install', action='store_true', help='--core, then replace the conversions '
		       'in patches/ and the table in reports/linux-<version>/')
	p.add_argument('--install-from', type=Path, metavar='DIR', help='install the output of '
		       'an earlier --core run without converting again')
	p.add_argument('--start-number', type=int, default=1, help='number of the first patch')
	_common(p)
	p = add('convert-regen', cmd_convert_regen, 'regenerate the conversions of patches/ and '
		'compare', kdir=False)
	p.add_argument('--tree', type=Path, default=paths.DEFAULT_KDIR,
		       help='kernel git tree with the core series (default: build/linux)')
	p.add_argument('--out', type=Path, help=f'default: {REGEN_OUT.relative_to(paths.REPO)}')
	_common(p)
	p = add('validate', cmd_validate, 'build the converted files for their architectures '
		'with sparse and objtool, boot the converted kernel against baseline')
	p.add_argument('--base', help='the unconverted commit (default: baseline + the core part '
		       'of patches/series in KDIR)')
	p.add_argument('--arch', action='append', choices=sorted(validate.ARCHES),
		       help='only this architecture (repeatable)')
	p.add_argument('--no-boot', action='store_true', help='builds only')
	p.add_argument('--baseline-run', metavar='NAME', help='compare the converted kernel with '
		       'this existing `userspace` run of a baseline kernel instead of building '
		       'and booting build/wt-validate-baseline')
	p.add_argument('--accel', default='auto', choices=[c.value for c in kunit_run.AccelChoice],
		       help='QEMU accelerator (auto: KVM when usable, else TCG)')
	p.add_argument('--jobs', type=int, default=os.cpu_count() or 1, help='make jobs')


def _common(p: argparse.ArgumentParser) -> None:
	p.add_argument('--patches', type=Path, default=paths.PATCHES,
		       help='directory with `series` (default: patches/)')
	p.add_argument('--rules', type=Path, default=convert.RULES,
		       help='conversion rules (default: cocci/convert_scoped_uaccess.cocci)')
	p.add_argument('--worktree', type=Path, default=convert.WORKTREE,
		       help='scratch worktree (default: build/wt-convert)')
	p.add_argument('--jobs', type=int, default=os.cpu_count() or 1,
		       help='spatch processes in parallel')


def gates(args: argparse.Namespace,
	  with_args: Callable[..., Callable[[], Outcome]]) -> list[Gate]:
	"""The `make test` gates of the conversion (see README.md, Conversion)."""
	common = dict(patches=args.patches, rules=convert.RULES, worktree=convert.WORKTREE,
		      jobs=os.cpu_count() or 1)
	return [
		Gate('convert-regen', 'regenerating the conversions does not give patches/',
		     with_args(cmd_convert_regen, tree=args.kdir, out=None, **common),
		     needs=('tree',)),
		Gate('validate', 'a converted file builds with a new warning, or the converted '
		     'kernel behaves unlike baseline',
		     with_args(cmd_validate, base=None, arch=None, no_boot=False, baseline_run=None,
			       **common),
		     needs=('tree',)),
	]
