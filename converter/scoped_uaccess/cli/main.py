# SPDX-License-Identifier: GPL-2.0
"""Command line: the parser, and the one place errors become messages and exit status."""

import argparse
import sys
import traceback
from pathlib import Path
from typing import Callable, NoReturn, Optional, Sequence

from scoped_uaccess.cli import bench, check, cocci, doctables, gates, kernel, post
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import ScopedUaccessError, UsageError
from scoped_uaccess.core.outcome import EXIT_OK, EXIT_USAGE, Outcome, relative
from scoped_uaccess.kernel import sources

PROG = 'scoped-uaccess'


class Parser(argparse.ArgumentParser):
	"""A parser whose refusals are one line: a UsageError, which main()
	prints as every other error (argparse prints the usage, then exits)."""

	def error(self, message: str) -> NoReturn:
		raise UsageError(message, f'see {self.prog} --help')


def build_parser() -> argparse.ArgumentParser:
	parser = Parser(prog=PROG, description='Build, boot and check the '
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
			p.add_argument('--patches', type=Path,
				       help='directory with `series` and the patches (default: the '
				       "tree's: patches/ for 6.12, patches/linux-7.3/ for 7.3)")
		return p

	for module in (kernel, gates, check, cocci, post, bench):
		module.add_commands(add)
	p = add('doc-tables', cmd_doc_tables, 'check (or --write) the tables README.md and docs/ '
		'share with the code: commands, checker classes, gates', kdir=False)
	p.add_argument('--write', action='store_true', help='rewrite the docs that are out of date')
	return parser


def cmd_doc_tables(args: argparse.Namespace, runner: Runner) -> Outcome:
	found = doctables.stale(build_parser(), args.write)
	for doc in found:
		runner.say(f'doc-tables: {relative(doc)}: ' + ('rewritten' if args.write else 'out of date'))
	if found and not args.write:
		return Outcome.findings(f'{len(found)} doc(s) out of date; run with --write')
	return Outcome.ok(f'{len(found)} doc(s) rewritten' if found else 'all docs up to date')


def _document_format(argv: Sequence[str]) -> Optional[str]:
	"""json or sarif when argv asks check for that format: even a refused
	command line then writes its document."""
	if 'check' not in argv:
		return None
	for i, arg in enumerate(argv):
		value = argv[i + 1] if arg == '--format' and i + 1 < len(argv) else \
			arg.split('=', 1)[1] if arg.startswith('--format=') else None
		if value in ('json', 'sarif'):
			return value
	return None


def main(argv: Optional[Sequence[str]] = None) -> int:
	argv = list(sys.argv[1:] if argv is None else argv)
	parser = build_parser()
	try:
		args = parser.parse_args(argv)
	except UsageError as e:
		document = _document_format(argv)
		if document:
			sys.stdout.write(check.error_document(document, e.one_line()))
			sys.stdout.flush()
		print(f'{PROG}: error: {e.one_line()}', file=sys.stderr, flush=True)
		return EXIT_USAGE
	runner = Runner(dry_run=args.dry_run)
	try:
		if hasattr(args, 'kdir') and getattr(args, 'patches', paths.PATCHES) is None:
			args.patches = sources.patches_for(args.kdir)
		outcome = args.fn(args, runner)
	except ScopedUaccessError as e:
		print(f'{PROG}: error: {e.one_line()}', file=sys.stderr, flush=True)
		return EXIT_USAGE
	except KeyboardInterrupt:
		print(f'{PROG}: interrupted', file=sys.stderr)
		return EXIT_USAGE
	except Exception as e:		# noqa: BLE001 -- a bug: its traceback, and status 2, not 1
		traceback.print_exc()
		print(f'{PROG}: error: internal error: {e!r}', file=sys.stderr, flush=True)
		return EXIT_USAGE
	if outcome.exit_status != EXIT_OK and not outcome.reported:
		print(f'{PROG}: {args.command} failed: {outcome.summary}', file=sys.stderr, flush=True)
	return outcome.exit_status
