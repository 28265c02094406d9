# SPDX-License-Identifier: GPL-2.0
"""The checker on real code and on one-line changes of it.

Every file of a tree that uses the API is checked as it is, and again
once per mutation, each a one-line change of the kind the checker exists
to catch: an end dropped (the call replaced by `(void)0`), or a call
added right after the first accessor of a region.  The path analysis of
spatch grows with the paths of a function, and a buggy region has more
of them than a correct one (it reaches the function's exits open): a
checker that is fast on the tree and slow on its bugs is no use.  Each
run is one file, every checker script, one spatch at a time (--jobs 1),
under a timeout; a crash or a timeout fails the run.  Times go to
build/results/stress/, not to reports/: they change from run to run.
"""

import json
import re
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Optional

from scoped_uaccess.checker import check
from scoped_uaccess.cocci import api, spatch
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import CommandFailed

OUT = paths.BUILD / 'results' / 'stress'
TIMEOUT = 120	# seconds per file and run, the bound the checker must keep
_END = re.compile(r'\b(%s)\(\)' % '|'.join(sorted(api.ENDS)))
_OPEN = re.compile(r'\b(%s)\s*\(' % '|'.join(sorted({*api.OPEN_BEGINS, *api.MASKED_BEGINS,
							  *api.SCOPES})))
_ACCESSOR = re.compile(r'\b(%s)\s*\(.*\);\s*$' % '|'.join(sorted({*api.ACCESSORS,
								   *api.WRAPPERS})))


@dataclass(frozen=True)
class Mutation:
	file: str
	line: int	# 1-based; 0 for the file as it is
	kind: str	# 'none', 'drop-end', 'add-call'

	def apply(self, lines: list[str]) -> list[str]:
		out = list(lines)
		i = self.line - 1
		if self.kind == 'drop-end':
			out[i] = _END.sub('(void)0', out[i], count=1)
		elif self.kind == 'add-call':
			out[i] = out[i].rstrip() + ' schedule();'
		return out


def mutations(name: str, lines: list[str]) -> list[Mutation]:
	"""The file as it is, every end dropped, a call after the first
	accessor that follows each begin or scope."""
	found = [Mutation(name, 0, 'none')]
	found += [Mutation(name, n, 'drop-end') for n, line in enumerate(lines, 1)
		  if _END.search(line) and not line.lstrip().startswith(('#', '*', '/'))]
	accessors = [n for n, line in enumerate(lines, 1) if _ACCESSOR.search(line)]
	calls = set()
	for n, line in enumerate(lines, 1):
		if _OPEN.search(line) and not line.lstrip().startswith(('#', '*', '/')):
			after = next((a for a in accessors if a >= n), None)
			if after is not None:
				calls.add(after)
	found += [Mutation(name, n, 'add-call') for n in sorted(calls)]
	return found


@dataclass
class Run:
	file: str
	line: int
	kind: str
	seconds: float
	findings: int
	failure: str = ''	# 'timeout' or the error of a crash
	keys: tuple[str, ...] = ()	# line:class of each finding (a change keeps the lines)


def run_one(runner: Runner, kdir: Path, m: Mutation, scratch: Path, timeout: int) -> Run:
	lines = (kdir / m.file).read_text(errors='replace').split('\n')
	copy = scratch / m.file
	copy.parent.mkdir(parents=True, exist_ok=True)
	copy.write_text('\n'.join(m.apply(lines)))
	start = time.monotonic()
	try:
		result = check.run_check(runner, check.CheckRequest(
			paths=[copy], root=scratch, jobs=1, timeout=timeout))
	except CommandFailed as e:
		return Run(m.file, m.line, m.kind, time.monotonic() - start, 0, str(e).split('\n')[0])
	return Run(m.file, m.line, m.kind, time.monotonic() - start, len(result.findings),
		   'timeout' if result.timed_out else '',
		   tuple(sorted({f'{f.line}:{f.cls}' for f in result.findings})))


def run_stress(runner: Runner, kdir: Path, timeout: int = TIMEOUT,
	       progress: Optional[Callable[[str], None]] = None) -> list[Run]:
	names = [str(f.resolve().relative_to(kdir.resolve()))
		 for f in spatch.find_files(runner, [kdir])]
	todo = [m for name in sorted(names)
		for m in mutations(name, (kdir / name).read_text(errors='replace').split('\n'))]
	runs = []
	quiet = Runner(dry_run=runner.dry_run, quiet=True)	# a few hundred spatch runs
	with tempfile.TemporaryDirectory(prefix='scoped-uaccess-stress-') as tmp:
		for i, m in enumerate(todo, 1):
			run = run_one(quiet, kdir, m, Path(tmp), timeout)
			runs.append(run)
			if progress:
				progress(f'[{i}/{len(todo)}] {m.file}:{m.line} {m.kind}: '
					 f'{run.seconds:.1f} s, {run.findings} finding(s)'
					 + (f', {run.failure}' if run.failure else ''))
	return runs


def caught(runs: list[Run], kind: str) -> int:
	"""How many changes of a kind the checker reports: a finding (line and
	class) the file as it is does not have."""
	before = {r.file: set(r.keys) for r in runs if r.kind == 'none'}
	return sum(1 for r in runs if r.kind == kind and set(r.keys) - before.get(r.file, set()))


def unparsed_blocks(run: Run) -> list[str]:
	"""The lines of the run's parse-error findings: blocks that use the API
	and that spatch could not parse, so that nothing in them was checked."""
	return [k.split(':')[0] for k in run.keys if k.endswith(':parse-error')]


def summary(runs: list[Run], tree: str) -> str:
	"""Markdown: the figures and the slowest runs."""
	secs = [r.seconds for r in runs]
	failed = [r for r in runs if r.failure]
	unparsed = [r for r in runs if r.kind == 'none' and unparsed_blocks(r)]
	kinds = {k: sum(1 for r in runs if r.kind == k) for k in ('none', 'drop-end', 'add-call')}
	lines = [f'# The checker under stress: {tree}', '',
		 f'{len(runs)} runs (one file each, every checker script, --jobs 1): '
		 f'{kinds["none"]} files as they are, {kinds["drop-end"]} with an end dropped, '
		 f'{kinds["add-call"]} with a call added after a region\'s first accessor.', '',
		 f'- slowest: {max(secs):.1f} s; median {statistics.median(secs):.1f} s; '
		 f'total {sum(secs) / 60:.1f} min',
		 f'- failures (crash or timeout): {len(failed)}',
		 f'- files with a block spatch cannot parse, as they are: {len(unparsed)}',
		 *[f'- {what}: {caught(runs, kind)} of {kinds[kind]} give a finding the file '
		   'as it is does not have' for kind, what in (('drop-end', 'an end dropped'),
							   ('add-call', 'a call added'))],
		 '', 'A call added after an accessor of a helper that a region calls (the '
		 'accessor follows a begin in the text, in another function), or after the one '
		 'statement that is an unbraced scope\'s body, is outside any region: the '
		 'checker is right not to report it.', '',
		 '| seconds | file:line | change | findings |', '|---|---|---|---|']
	for r in sorted(runs, key=lambda r: -r.seconds)[:10]:
		lines.append(f'| {r.seconds:.1f} | {r.file}:{r.line} | {r.kind} | {r.findings} |')
	for r in failed:
		lines.append(f'\nFAILED {r.file}:{r.line} {r.kind}: {r.failure}')
	for r in unparsed:
		lines.append(f'\nUNPARSED {r.file}: lines {", ".join(unparsed_blocks(r))}')
	return '\n'.join(lines) + '\n'


def report(runs: list[Run], tree: str, kdir: str) -> str:
	"""reports/linux-<version>/stress.md: the summary, with the command that makes it."""
	title, rest = summary(runs, tree).split('\n', 1)
	return (f'{title}\n\n`converter/scoped-uaccess stress --kdir {kdir}` (the file as it is, '
		'and each one-line change; seconds on this 2-core host vary from run to run).\n'
		+ rest)


def write(runs: list[Run], out: Path, tree: str) -> Path:
	out.mkdir(parents=True, exist_ok=True)
	(out / 'stress.json').write_text(json.dumps(
		{'tree': tree, 'runs': [asdict(r) for r in runs]}, indent=1) + '\n')
	(out / 'summary.md').write_text(summary(runs, tree))
	return out / 'summary.md'
