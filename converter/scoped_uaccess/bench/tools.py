# SPDX-License-Identifier: GPL-2.0
"""Section tools: the checker, prefiltered and as coccicheck runs it, and the converter, against floors."""

import sys
import time
from pathlib import Path
from typing import Optional

from scoped_uaccess.bench.coccicheck import run_coccicheck, run_coccicheck_other
from scoped_uaccess.bench.common import WORK, BenchRequest, _rel, _relative_paths
from scoped_uaccess.checker import check
from scoped_uaccess.cocci import spatch
from scoped_uaccess.convert import driver as convert_driver
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import CommandFailed, TreeStateError
from scoped_uaccess.kernel import series, worktree

FLOOR_RULE = '''// SPDX-License-Identifier: GPL-2.0
/// The floor for timing the checker, scoped_uaccess_*.cocci: one
/// trivial rule that matches a single call, with the checker's options.
// Confidence: High
// Comments: written by converter/scoped_uaccess/bench/tools.py
// Options: {options}

virtual report

@floor depends on report@
expression E1, E2;
position p;
@@

user_access_begin@p(E1, E2)

@script:python depends on report@
p << floor.p;
@@

pass
'''


def floor_rule(checker: Path) -> str:
	return FLOOR_RULE.format(options=' '.join(spatch.options(checker)))


# The converter also checks what it rewrote; some files take the checker
# minutes.  A benchmark run should end.
CONVERT_TIMEOUT = 1500
CONVERT_WORKTREE = paths.BUILD / 'wt-bench-convert'


def converter_argv(jobs: int) -> list[str]:
	"""The CLI arguments that time the converter: --core converts baseline
	+ the core series, the conversion's real workload, into a directory
	and a scratch worktree of its own."""
	return ['convert', '--core', '--jobs', str(jobs), '--out', str(WORK / 'convert'),
		'--worktree', str(CONVERT_WORKTREE)]


def convert_floor(runner: Runner, floor_cocci: Path, jobs: int) -> tuple[Optional[float], int]:
	"""The floor rule over the files the converter gives spatch (those of
	baseline + the core series that use a region begin), one spatch per
	file, with the converter's jobs: its seconds and the file count.  The
	converter's scratch worktree is moved back to that commit for it."""
	tree = paths.DEFAULT_KDIR	# the converter's default --tree
	quiet = Runner(dry_run=runner.dry_run, echo=runner.echo, quiet=True)
	try:
		commit = series.core_commit(quiet, tree, paths.PATCHES)
		worktree.worktree(quiet, tree, CONVERT_WORKTREE, commit, scratch=True)
	except (TreeStateError, CommandFailed) as e:
		runner.say(f'bench[tools]: no converter floor: {e}')
		return None, 0
	if runner.dry_run:
		return None, 0
	files = convert_driver.prefilter(quiet, CONVERT_WORKTREE)
	start = time.monotonic()
	check.run_check(quiet, check.CheckRequest(paths=[CONVERT_WORKTREE / f for f in files],
						  scripts=(floor_cocci,), root=CONVERT_WORKTREE,
						  jobs=jobs))
	return time.monotonic() - start, len(files)


def run_tools(runner: Runner, request: BenchRequest, record: dict) -> dict:
	"""The checker and the floor over the same files, one after the other."""
	quiet = Runner(dry_run=runner.dry_run, echo=runner.echo, quiet=True)
	floor_cocci = WORK / 'floor.cocci'
	if not runner.dry_run:
		WORK.mkdir(parents=True, exist_ok=True)
		floor_cocci.write_text(floor_rule(check.CHECKERS[0]))
	times = {}
	files = 0
	for label, scripts in (('floor', (floor_cocci,)), ('checker', check.CHECKERS)):
		runner.say(f'bench[tools]: {label}: {" ".join(_rel(s) for s in scripts)} over the files '
			   f'of {_rel(request.kdir)} that use the API, {request.jobs} jobs')
		start = time.monotonic()
		result = check.run_check(quiet, check.CheckRequest(paths=[request.kdir], scripts=scripts,
								   root=request.kdir, jobs=request.jobs))
		times[label] = time.monotonic() - start
		files = len(result.files)
		runner.say(f'bench[tools]: {label}: {times[label]:.1f} s, {len(result.findings)} finding(s)')
	record.update(files=files, jobs=request.jobs, floor_rule=_rel(floor_cocci),
		      checker_command=f'converter/scoped-uaccess check --jobs {request.jobs} '
				      f'{_rel(request.kdir)}',
		      floor_command=f'converter/scoped-uaccess check --jobs {request.jobs} '
				    f'--cocci {_rel(floor_cocci)} {_rel(request.kdir)}',
		      what='`make report` runs `converter/scoped-uaccess report`, which is '
			   'check.run_check() over KDIR: one spatch per checker script and file that '
			   'uses the API, the floor one per file')
	figures = {'checker_seconds': round(times['checker'], 1),
		   'floor_seconds': round(times['floor'], 1),
		   'checker_over_floor': round(times['checker'] / times['floor'], 2) if times['floor'] else None}
	figures.update(run_coccicheck(runner, request, record))
	figures.update(run_coccicheck_other(runner, request, record))
	argv = converter_argv(request.jobs)
	figures['convert_seconds'] = None
	command = Command(('timeout', str(CONVERT_TIMEOUT), sys.executable,
			   str(paths.REPO / 'converter' / 'scoped-uaccess'), *argv), cwd=paths.REPO)
	run = runner.run(command, Output.CAPTURE, check=False)
	record['convert_command'] = 'converter/scoped-uaccess ' + ' '.join(
		_rel(Path(a)) if a.startswith('/') else a for a in argv)
	record['convert_elapsed_seconds'] = round(run.elapsed, 1)
	if run.returncode == 0:
		figures['convert_seconds'] = round(run.elapsed, 1)
		record['convert_note'] = f'`{record["convert_command"]}`'
	elif run.returncode == 124:
		record['convert_note'] = (f'`{record["convert_command"]}` did not finish in '
					  f'{CONVERT_TIMEOUT} s')
	else:
		tail = (run.stderr or run.output).strip().splitlines()[-1:] or ['']
		record['convert_error'] = _relative_paths(tail[0])
		record['convert_note'] = (f'`{record["convert_command"]}` failed after '
					  f'{run.elapsed:.0f} s with status {run.returncode} '
					  f'(its error is in bench.json)')
	runner.say(f'bench[tools]: converter: {record["convert_note"]}, '
		   f'{figures["convert_seconds"]} s')
	floor, files = convert_floor(runner, floor_cocci, request.jobs)
	figures.update(convert_figures(figures['convert_seconds'], floor))
	record.update(convert_floor_files=files, convert_floor_command=(
		f'converter/scoped-uaccess check --jobs {request.jobs} --cocci {_rel(floor_cocci)} '
		'FILE...'), convert_floor_what=(
		f'FILE... are the {files} files of {_rel(CONVERT_WORKTREE)} at baseline + the core '
		'series that use a region begin, those the converter gives spatch'))
	runner.say(f'bench[tools]: converter floor: {figures["convert_floor_seconds"]} s over '
		   f'{files} files, converter x{figures["convert_over_floor"]}')
	return figures


def convert_figures(convert: Optional[float], floor: Optional[float]) -> dict:
	"""The converter's floor and the ratio; None where either is missing."""
	return {'convert_floor_seconds': None if floor is None else round(floor, 1),
		'convert_over_floor': round(convert / floor, 2) if convert and floor else None}
