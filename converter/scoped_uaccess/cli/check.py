# SPDX-License-Identifier: GPL-2.0
"""Command of the checker on code: check (paths, --diff, --patch).

stdout carries the findings and nothing else (text, JSON or SARIF); a JSON
or SARIF run writes one valid document there whatever happens, the error
in it when the check could not run.  The exit status is 0 clean, 1
findings, 2 not everything checked or no check at all (gate.py).
"""

import argparse
import contextlib
import dataclasses
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterator, Optional

from scoped_uaccess.checker import check, gate, provenance, review, runs
from scoped_uaccess.checker import findings as fmt
from scoped_uaccess.cocci import index_cache
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import ScopedUaccessError, UsageError
from scoped_uaccess.core.outcome import EXIT_USAGE, Outcome, relative

FORMATS = ('text', 'json', 'sarif')
Progress = Optional[Callable[[str], None]]


def positive(text: str) -> int:
	"""An argparse type: a whole number above zero."""
	try:
		value = int(text)
	except ValueError:
		value = 0
	if value <= 0:
		raise argparse.ArgumentTypeError(f'{text!r} is not a whole number above 0')
	return value


def add_commands(add: Callable[..., argparse.ArgumentParser]) -> None:
	p = add('check', cmd_check, 'run the checker on files or directories, or on what a '
		'change adds', kdir=False)
	p.add_argument('paths', nargs='*', type=Path, metavar='PATH',
		       help='C files, headers or directories (only files using the API are checked); '
		       'with --diff or --patch, paths of the tree to limit the review to')
	p.add_argument('--diff', metavar='A..B', help='only the findings B adds to A: A..B, A...B '
		       '(from their merge base) or REV (REV..HEAD)')
	p.add_argument('--patch', nargs='+', metavar='FILE',
		       help='as --diff, for patch files or an mbox (- reads standard input) '
		       'applied on their base-commit, else on the HEAD of --tree')
	p.add_argument('--tree', type=Path, default=Path('.'),
		       help='the git tree of --diff and --patch (default: the current directory)')
	p.add_argument('--format', choices=FORMATS, default='text',
		       help="text is coccicheck's file:line:col-col: form (default)")
	p.add_argument('--baseline', type=Path, metavar='FILE',
		       help='leave out what this findings.json (of an earlier run) or triage '
		       'file lists')
	p.add_argument('--fail-on', choices=tuple(gate.FAIL_ON), default='warning',
		       help='the lowest severity that makes the exit status 1 (default: warning)')
	p.add_argument('--class', dest='classes', action='append', metavar='CLASS',
		       help='report only this class (repeatable)')
	p.add_argument('--timeout', type=positive, default=runs.DEFAULT_SECONDS, metavar='SECONDS',
		       help='time limit of each spatch run; a file that passes it is reported '
		       f'as not checked (default {runs.DEFAULT_SECONDS})')
	p.add_argument('--max-memory', type=positive, default=runs.DEFAULT_MEMORY_MB,
		       metavar='MIB', help='address space of each spatch run '
		       f'(default {runs.DEFAULT_MEMORY_MB})')
	p.add_argument('--verbose', action='store_true', help='echo every command on stderr')
	p.add_argument('--progress', action='store_true', help='one line per file on stderr '
		       '(on a terminal, one line that changes, without it)')
	p.add_argument('--cocci', type=Path, action='append',
		       help='semantic patch (repeatable; default: the checker, '
		       + ', '.join(relative(s) for s in check.CHECKERS) + ')')
	p.add_argument('--jobs', type=positive, default=os.cpu_count() or 1,
		       help='spatch processes in parallel')
	p.add_argument('--kernel-only', action='store_true',
		       help='the scripts as the kernel runs them, without the project-only layer '
		       '(docs/checker.md)')


def _scripts(args: argparse.Namespace) -> tuple[Path, ...]:
	return tuple(args.cocci) if args.cocci else check.CHECKERS


@contextlib.contextmanager
def _progress(args: argparse.Namespace) -> Iterator[Progress]:
	"""--progress: a line per file; on a terminal without it, one line that
	changes, for runs of more than a few files, wiped at the end."""
	if args.progress:
		yield lambda line: print(line, file=sys.stderr, flush=True)
		return
	if not sys.stderr.isatty():
		yield None
		return
	shown = False

	def show(line: str) -> None:
		nonlocal shown
		m = re.match(r'\[(\d+)/(\d+)\]', line)
		if m and int(m[2]) <= 3:
			return
		width = shutil.get_terminal_size().columns - 1
		sys.stderr.write('\r\033[K' + line[:width])
		sys.stderr.flush()
		shown = True
	try:
		yield show
	finally:
		if shown:
			sys.stderr.write('\r\033[K')
			sys.stderr.flush()


def _gate(args: argparse.Namespace) -> gate.Gate:
	if args.diff and args.patch:
		raise UsageError('--diff and --patch exclude each other', 'give one of them')
	known = check.classes(_scripts(args))
	unknown = [c for c in args.classes or () if c not in known]
	if unknown:
		raise UsageError(f'--class {unknown[0]}: no such class',
				 'the classes are: ' + ', '.join(known))
	return gate.Gate(args.fail_on, frozenset(args.classes or ()),
			 gate.load_baseline(args.baseline) if args.baseline else frozenset())


def error_document(fmt_name: str, error: str, scripts: tuple[Path, ...] = check.CHECKERS) -> str:
	"""The JSON or SARIF document of a check that could not run."""
	if fmt_name == 'json':
		return fmt.to_json([], [], [], '', complete=False, error=error)
	try:
		classes = check.classes(scripts)
	except (OSError, ScopedUaccessError):
		classes = {}
	return fmt.to_sarif([], [], classes, '', fmt.SarifTree(base=provenance.WORKING_DIRECTORY),
			    complete=False, error=error)


def cmd_check(args: argparse.Namespace, runner: Runner) -> Outcome:
	runner = Runner(dry_run=runner.dry_run, echo=sys.stderr, quiet=not args.verbose)
	try:
		with runs.interruptible(), _progress(args) as progress, \
		     tempfile.TemporaryDirectory(prefix='scoped-uaccess-') as scratch:
			rules = _gate(args)
			if args.diff or args.patch:
				return _change(args, runner, rules, progress)
			return _paths(args, runner, rules, progress, Path(scratch))
	except runs.Interrupted as e:
		problem = UsageError(f'interrupted by {e}: nothing was checked')
	except ScopedUaccessError as e:
		problem = e
	except Exception as e:		# noqa: BLE001 -- a bug: exit 2 with the document
		if args.format != 'text':
			sys.stdout.write(error_document(args.format, f'internal error: {e!r}',
							_scripts(args)))
		raise
	if args.format != 'text':
		sys.stdout.write(error_document(args.format, problem.one_line(), _scripts(args)))
		sys.stdout.flush()
	raise problem


def _paths(args: argparse.Namespace, runner: Runner, rules: gate.Gate, progress: Progress,
	   scratch: Path) -> Outcome:
	if not args.paths:
		raise UsageError('nothing to check', 'give files or directories, --diff A..B or '
				 '--patch FILE...')
	top = provenance.kernel_tree(args.paths)
	root = top or Path.cwd()
	# Calls to the tree's header inlines are classified as a run with the
	# headers would; the index is cached by the headers' content.
	index = index_cache.index(runner, top, scratch=scratch) if top and not runner.dry_run \
		else None
	result = check.run_check(runner, check.CheckRequest(
		paths=args.paths, scripts=_scripts(args), root=root, jobs=args.jobs,
		timeout=args.timeout, inlines=index, memory_mb=args.max_memory,
		project=not args.kernel_only), progress)
	return _finish(args, runner, result, rules, root, bool(top))


def _text_paths(items: list, root: Path) -> list:
	"""Paths as the user reads them at a terminal: relative to the working
	directory when it lies in root."""
	cwd = Path.cwd().resolve()
	if root.resolve() == cwd:
		return items
	try:
		cwd.relative_to(root.resolve())
	except ValueError:
		return items
	return [dataclasses.replace(i, file=os.path.relpath(root / i.file, cwd)) for i in items]


def _quoted(items: list) -> list:
	"""A name with a line break or another control character, quoted as git
	quotes it ("a\\nb.c"): the text form is one finding per line."""
	def quote(name: str) -> str:
		if not re.search(r'[\x00-\x1f\x7f]', name):
			return name
		return '"' + ''.join(c if c >= ' ' and c not in '"\\\x7f' else
				     {'\n': '\\n', '\t': '\\t', '"': '\\"', '\\': '\\\\'}.get(
					     c, f'\\{ord(c):03o}') for c in name) + '"'
	return [dataclasses.replace(i, file=quote(i.file)) for i in items]


def _text(result: check.CheckResult, root: Path) -> str:
	def shown(items: list) -> list:
		return _quoted(_text_paths(items, root))
	return fmt.to_text(shown(result.findings), shown(result.parse_failures)) \
		+ ''.join(n.text() + '\n' for n in shown(result.not_checked))


def _finish(args: argparse.Namespace, runner: Runner, result: check.CheckResult,
	    rules: gate.Gate, root: Path, kernel: bool, **extra: object) -> Outcome:
	verdict = gate.judge(result, rules)
	result.findings = verdict.shown
	if args.format == 'text':
		sys.stdout.write(_text(result, root))
	elif args.format == 'json':
		sys.stdout.write(result.to_json(
			base=fmt.TREE_TOP if kernel else provenance.WORKING_DIRECTORY,
			interrupted=result.interrupted, dry_run=result.dry_run,
			suppressed=verdict.suppressed, filtered=verdict.filtered, **extra))
	else:
		sys.stdout.write(result.to_sarif(root, provenance.describe(runner, root, kernel)))
	sys.stdout.flush()
	return _outcome(result, verdict)


def _outcome(result: check.CheckResult, verdict: gate.Verdict) -> Outcome:
	line = gate.summary(result, verdict)
	if result.dry_run:
		print(f'scoped-uaccess: check: dry run: {len(result.files)} file(s) would be '
		      'checked; nothing was checked', file=sys.stderr, flush=True)
	elif verdict.exit_status == EXIT_USAGE:
		print(f'scoped-uaccess: check: incomplete: {line}', file=sys.stderr, flush=True)
	return Outcome(verdict.exit_status, line, reported=True)


def _tree_paths(args: argparse.Namespace, tree: Path) -> list[str]:
	"""The PATH arguments of a review as paths of the tree."""
	out = []
	for p in args.paths:
		full = Path(os.path.abspath(p))
		try:
			out.append(str(full.relative_to(tree)))
		except ValueError:
			try:
				out.append(str(full.resolve().relative_to(tree)))
			except ValueError:
				raise UsageError(f'{p}: not a path of the tree {tree}',
						 'give paths inside --tree') from None
	return [p for p in out if p != '.']


def _change(args: argparse.Namespace, runner: Runner, rules: gate.Gate,
	    progress: Progress) -> Outcome:
	"""--diff, --patch: what a change adds (checker/review.py)."""
	tree = args.tree.resolve()
	request = review.ReviewRequest(tree, '', '', scripts=_scripts(args), jobs=args.jobs,
				       only=_tree_paths(args, tree), timeout=args.timeout,
				       memory_mb=args.max_memory)
	kernel = provenance.kernel_tree([tree]) == tree
	if args.diff:
		base, head = review.parse_range(runner, tree, args.diff)
		found = review.review(runner, dataclasses.replace(request, base=base, head=head),
				      progress)
		return _finish(args, runner, found.new, rules, tree, kernel,
			       review={'base': base, 'head': head})
	return _series(args, runner, request, rules, tree, kernel, progress)


def _series(args: argparse.Namespace, runner: Runner, request: review.ReviewRequest,
	    rules: gate.Gate, tree: Path, kernel: bool, progress: Progress) -> Outcome:
	"""--patch: each patch's new findings, told with the patch, and a total."""
	labels: list[str] = []
	printed: list[tuple[str, gate.Verdict, check.CheckResult]] = []

	def on_patch(patch, found: review.ReviewResult) -> None:
		verdict = gate.judge(found.new, rules)
		found.new.findings = verdict.shown
		labels.extend(f'{patch.number}/{patch.total}' for _ in verdict.shown)
		printed.append((patch.label, verdict, found.new))
		if args.format == 'text':
			sys.stdout.write(patch.label + '\n' + _text(found.new, tree))
			sys.stdout.flush()

	try:
		series = review.review_patches(runner, request, args.patch, progress, on_patch)
	except runs.Interrupted:
		series = None
	result = check.CheckResult()
	for _, _, r in printed:
		result.files = sorted(set(result.files) | set(r.files))
		result.findings += r.findings
		result.parse_failures += r.parse_failures
		result.not_checked += r.not_checked
		result.spatch_version = r.spatch_version or result.spatch_version
		result.dry_run = result.dry_run or r.dry_run
	total = len(series.patches) if series else None
	result.interrupted = series is None
	verdict = gate.Verdict(shown=list(result.findings),
			       suppressed=sum(v.suppressed for _, v, _ in printed),
			       filtered=sum(v.filtered for _, v, _ in printed))
	failing = gate.FAIL_ON[rules.fail_on]
	verdict.exit_status = EXIT_USAGE if not result.complete else \
		1 if any(f.severity in failing for f in result.findings) else 0
	errors = sum(f.severity is fmt.Severity.ERROR for f in result.findings)
	line = (f'total: {errors} error(s), {len(result.findings) - errors} warning(s), '
		f'{len(result.parse_failures)} block(s) spatch cannot parse, '
		f'{len(result.not_checked)} file(s) not checked, in {len(printed)} of '
		f'{total if total is not None else "?"} patch(es)'
		+ ('; interrupted' if result.interrupted else ''))
	if args.format == 'text':
		sys.stdout.write(line + '\n')
	elif args.format == 'json':
		doc = json.loads(result.to_json(
			base=fmt.TREE_TOP if kernel else provenance.WORKING_DIRECTORY,
			interrupted=result.interrupted, dry_run=result.dry_run,
			suppressed=verdict.suppressed, filtered=verdict.filtered,
			patches=[{'patch': label, 'findings': len(r.findings),
				  'parse_failures': len(r.parse_failures)} for label, _, r in printed],
			total=line))
		for d, label in zip(doc['findings'], labels):
			d['patch'] = label
		sys.stdout.write(json.dumps(doc, indent=1) + '\n')
	else:
		sys.stdout.write(result.to_sarif(tree, provenance.describe(runner, tree, kernel)))
	sys.stdout.flush()
	return _outcome(result, verdict)
