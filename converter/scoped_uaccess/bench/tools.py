# SPDX-License-Identifier: GPL-2.0
"""Section tools: the checker, prefiltered and as coccicheck runs it, and the converter."""

import sys
import time
from pathlib import Path

from scoped_uaccess.bench.coccicheck import run_coccicheck
from scoped_uaccess.bench.common import WORK, BenchRequest, _rel, _relative_paths
from scoped_uaccess.cocci import check, spatch
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner

FLOOR_RULE = '''// SPDX-License-Identifier: GPL-2.0
/// The floor for timing the checker scripts, scoped_uaccess_*.cocci: one
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


def converter_argv() -> list[str]:
	"""The CLI arguments that time the converter: --core converts baseline
	+ the core series, the conversion's real workload, into a directory
	and a scratch worktree of its own."""
	return ['convert', '--core', '--out', str(WORK / 'convert'),
		'--worktree', str(paths.BUILD / 'wt-bench-convert')]


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
			   f'uses the API ({len(check.CHECKERS)} scripts), the floor one per file')
	figures = {'checker_seconds': round(times['checker'], 1),
		   'floor_seconds': round(times['floor'], 1),
		   'checker_over_floor': round(times['checker'] / times['floor'], 2) if times['floor'] else None}
	figures.update(run_coccicheck(runner, request, record))
	argv = converter_argv()
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
	return figures
