# SPDX-License-Identifier: GPL-2.0
"""Command line of the checker: check, report and check-cocci."""

import argparse
import os
import sys
from pathlib import Path
from typing import Callable

from scoped_uaccess.cocci import check
from scoped_uaccess.core import paths
from scoped_uaccess.cocci import report
from scoped_uaccess.core.command import Command, Runner
from scoped_uaccess.gates.runner import Outcome

EXIT_OK, EXIT_FINDINGS, EXIT_TOOL = 0, 1, 2
FORMATS = ('text', 'json', 'sarif')
CORPUS_RUNNER = paths.UNIT_TESTS / 'cocci_corpus.py'


def _stderr_runner(runner: Runner) -> Runner:
	# stdout carries the findings (text, JSON or SARIF): echoes and progress
	# go to stderr.
	return Runner(dry_run=runner.dry_run, echo=sys.stderr, quiet=runner.quiet)


def cmd_check(args: argparse.Namespace, runner: Runner) -> Outcome:
	runner = _stderr_runner(runner)
	root = Path.cwd()
	result = check.run_check(runner, check.CheckRequest(paths=args.paths, cocci=args.cocci,
							    root=root, jobs=args.jobs),
				 runner.say if args.progress else None)
	render = {'text': check.to_text, 'json': check.to_json,
		  'sarif': lambda r: check.to_sarif(r, root)}[args.format]
	sys.stdout.write(render(result))
	sys.stdout.flush()
	summary = (f'{len(result.files)} file(s), {len(result.findings)} finding(s), '
		   f'{len(result.parse_failures)} block(s) spatch cannot parse')
	if result.parse_failures:
		return Outcome(EXIT_TOOL, summary)
	return Outcome(EXIT_FINDINGS if result.findings else EXIT_OK, summary)


def cmd_report(args: argparse.Namespace, runner: Runner) -> Outcome:
	request = report.ReportRequest(kdir=args.kdir, out=args.out, triage=args.triage,
				       cocci=args.cocci, jobs=args.jobs, baseline=args.baseline)
	runner.say(f'report: scoped_uaccess.cocci over {args.kdir}')
	result = report.run_report(runner, request, runner.say)
	if result.new_since_baseline is not None:
		runner.say(f'report: {len(result.new_since_baseline)} finding(s) not in {args.baseline}')
		for f in result.new_since_baseline:
			print(f.text(), flush=True)
	counts = ', '.join(f'{cls} {n}' for cls, n in result.check.counts().items() if n)
	summary = (f'{len(result.check.findings)} finding(s) ({counts or "none"}), '
		   f'{len(result.check.parse_failures)} unparsed block(s), '
		   f'{result.seconds:.0f} s')
	runner.say(f'report: {summary}; written to {result.out}')
	if result.untriaged:
		return Outcome(EXIT_FINDINGS, f'{len(result.untriaged)} finding(s) not triaged in '
			       f'{args.triage or result.out / "triage.json"}: '
			       f'{", ".join(result.untriaged[:5])}')
	if result.error_false_positives:
		return Outcome(EXIT_FINDINGS, f'{len(result.error_false_positives)} false positive(s) '
			       'at ERROR level: ' + ', '.join(f.id for f in result.error_false_positives))
	return Outcome(EXIT_OK, summary)


def cmd_check_cocci(args: argparse.Namespace, runner: Runner) -> Outcome:
	env = {'KDIR': str(args.kdir)}
	run = runner.run(Command((sys.executable, str(CORPUS_RUNNER)), env=env, mutates=False),
			 check=False)
	if run.returncode != 0:
		return Outcome(EXIT_FINDINGS, 'the checker corpus did not give the expected findings '
			       '(see above)')
	return Outcome(EXIT_OK, 'checker corpus as expected')


def add_commands(add: Callable[..., argparse.ArgumentParser]) -> None:
	"""Adds the checker's subcommands with cli.build_parser()'s add()."""
	p = add('check', cmd_check, 'run scoped_uaccess.cocci on files or directories',
		kdir=False)
	p.add_argument('paths', nargs='+', type=Path, metavar='PATH',
		       help='C files, headers or directories (only files using the API are checked)')
	p.add_argument('--format', choices=FORMATS, default='text',
		       help='text is coccicheck\'s file:line:col-col: form (default)')
	p.add_argument('--progress', action='store_true', help='one line per file on stderr')
	_common(p)
	p = add('report', cmd_report, 'the triaged tree-wide report: reports/linux-<version>/')
	p.add_argument('--out', type=Path, help='output directory (default: reports/linux-<version>)')
	p.add_argument('--triage', type=Path, help='triage file (default: <out>/triage.json)')
	p.add_argument('--baseline', type=Path,
		       help='an earlier findings.json: print only the findings not in it')
	_common(p)
	add('check-cocci', cmd_check_cocci, 'the checker corpus testcases/cocci through spatch, '
	    'the CLI and make coccicheck')


def _common(p: argparse.ArgumentParser) -> None:
	p.add_argument('--cocci', type=Path, default=check.COCCI,
		       help='semantic patch (default: cocci/scoped_uaccess.cocci)')
	p.add_argument('--jobs', type=int, default=os.cpu_count() or 1,
		       help='spatch processes in parallel')
