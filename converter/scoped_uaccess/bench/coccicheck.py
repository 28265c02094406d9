# SPDX-License-Identifier: GPL-2.0
"""Section tools, whole tree: `make coccicheck` with the checker the series ships, against a floor.

A kernel developer runs the checker as the tree ships it (patch 0012 puts
the script in scripts/coccinelle/misc/): `make coccicheck MODE=report
COCCI=<script>`, which hands spatch the whole tree (`--dir .`).  spatch
then reads every .c and .h file for the tokens of the script's gate rule,
which every other rule depends on, and runs the rules on the files that
have them.  The floor is the same coccicheck run of a gate rule like the
script's own: every name that marks a user of the API as a literal token
(no regex, which would make spatch read every file through the rule), and
nothing done with a match.

scripts/coccicheck takes one script in COCCI= (a directory is handed to
--cocci-file and fails; without COCCI it runs every script of the tree):
the checker is one script, one run; were it several, its figure would be
their runs summed.
"""

import os
import re
import statistics
import time
from pathlib import Path
from typing import Optional, Sequence

from scoped_uaccess.bench.common import WORK, BenchRequest, _rel
from scoped_uaccess.checker import check
from scoped_uaccess.cocci import api, spatch
from scoped_uaccess.core import paths
from scoped_uaccess.kernel import sources, tree
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem

SCRIPTS = Path('scripts/coccinelle/misc')	# where the series puts the checker
PATTERN = 'scoped_uaccess*.cocci'
FLOOR = WORK / 'coccicheck-floor.cocci'
OTHER_KDIR = paths.BUILD / 'linux-6.1'

FLOOR_RULE = '''// SPDX-License-Identifier: GPL-2.0
/// The floor for timing `make coccicheck` with the checker scripts
/// {scripts}:
/// a gate rule like theirs, every name that marks a user of the API as a
/// literal token (spatch skips the files without them, as it does for the
/// checker), and a script that does nothing.
// Confidence: High
// Comments: written by converter/scoped_uaccess/bench/coccicheck.py
// Options: {options}

virtual report

@floor depends on report@
iterator name {iterators};
statement S;
position p;
@@

(
{branches}
)

@script:python depends on report@
p << floor.p;
@@

pass
'''


def kernel_checkers(kdir: Path) -> list[Path]:
	"""The checker scripts the tree ships, sorted."""
	found = sorted((kdir / SCRIPTS).glob(PATTERN))
	if not found:
		raise EnvironmentProblem(f'{kdir / SCRIPTS} has no {PATTERN}',
					 'apply the series to the tree (`make tree`)')
	return found


def floor_rule(options: Sequence[str], scripts: str = f'{SCRIPTS}/{PATTERN}') -> str:
	"""The floor: one disjunction of every name that marks a user of the API
	(api.words()), scopes as iterators, begins and ends as calls."""
	calls = [n for n in api.words() if n not in api.SCOPES]
	branches = ([f'{n}@p(...) S' for n in api.SCOPES] + [f'{n}@p(...)' for n in calls])
	return FLOOR_RULE.format(scripts=scripts, options=' '.join(options),
				 iterators=', '.join(api.SCOPES), branches='\n|\n'.join(branches))


def make_argv(cocci: str, jobs: int, spflags: str = '') -> list[str]:
	"""The arguments of `make` after `-C KDIR`: coccicheck in report mode."""
	return ['coccicheck', 'MODE=report', f'COCCI={cocci}', f'J={jobs}',
		*([f'SPFLAGS={spflags}'] if spflags else [])]


def shown(kdir: Path, cocci: str, jobs: int, spflags: str = '') -> str:
	"""The command as README shows it, run from the repository."""
	flags = f" SPFLAGS='{spflags}'" if spflags else ''
	return f'make -C {_rel(kdir)} coccicheck MODE=report COCCI={cocci} J={jobs}{flags}'


def files_matched(output: str) -> Optional[int]:
	"""The files spatch kept after its token prefilter (`N files match`)."""
	m = re.search(r'^(\d+) files? match', output, re.M)
	return int(m.group(1)) if m else None


def profile_phases(output: str) -> dict[str, float]:
	"""The top-level phases of spatch --profile, in seconds: choosing the
	files (infiles) and running the rules on them (outfiles)."""
	phases = {}
	for name, key in (('Main.infiles computation', 'infiles'),
			  ('Main.outfiles computation', 'outfiles'), ('Main total', 'total')):
		m = re.search(rf'^{re.escape(name)}\s*:\s*([0-9.]+) sec', output, re.M)
		if m:
			phases[key] = float(m.group(1))
	return phases


def tree_files(kdir: Path) -> int:
	"""The .c and .h files spatch reads for tokens (`--dir` with --include-headers)."""
	count = 0
	for _, dirnames, filenames in os.walk(kdir):
		dirnames[:] = [d for d in dirnames if d != '.git']
		count += sum(1 for f in filenames if f.endswith(spatch.SOURCE_SUFFIXES))
	return count


def figures(scripts: dict[str, Optional[float]], floors: Sequence[float]) -> dict:
	"""bench.json's coccicheck figures: the scripts' runs summed, the floor
	(the median of its runs), their ratios; None where a run failed."""
	total = None if not scripts or None in scripts.values() else sum(scripts.values())
	floor = statistics.median(floors) if floors else None
	ratio = round(total / floor, 2) if total is not None and floor else None
	per_script = round(total / len(scripts) / floor, 2) if ratio is not None else None
	return {'coccicheck_seconds': None if total is None else round(total, 1),
		'coccicheck_floor_seconds': None if floor is None else round(floor, 1),
		'coccicheck_over_floor': ratio, 'coccicheck_script_over_floor': per_script,
		'coccicheck_scripts': {k: None if v is None else round(v, 1)
				       for k, v in scripts.items()}}


def _run(runner: Runner, kdir: Path, cocci: Path, jobs: int, log: Path,
	 spflags: str = '') -> tuple[Optional[float], str]:
	"""One `make coccicheck`, its output to log; its seconds (None when it
	failed) and its output."""
	command = Command(('make', '-C', str(kdir), *make_argv(str(cocci), jobs, spflags)))
	start = time.monotonic()
	result = runner.run(command, Output.LINES, check=False, sink=lambda _: None, log=log)
	seconds = time.monotonic() - start
	ok = result.returncode == 0 and not result.dry_run
	return (seconds if ok else None), result.output


def run_order(names: Sequence[str]) -> list[str]:
	"""The runs, the floor before every script and after the last: the
	host's other jobs and the page cache drift, and every script is then
	next to a floor run."""
	order = []
	for i, name in enumerate(names, 1):
		order += [f'floor-{i}', name]
	return order + [f'floor-{len(names) + 1}']


def _interleaved(runner: Runner, kdir: Path, cocci: dict[str, Path], jobs: int,
		 logs: Path) -> tuple[dict[str, Optional[float]], list[float], dict[str, Optional[int]]]:
	"""The scripts' runs, each after a floor run (run_order()): their
	seconds, the floor's, the files each kept."""
	floors: list[float] = []
	seconds: dict[str, Optional[float]] = {}
	matched: dict[str, Optional[int]] = {}
	for label in run_order(list(cocci)):
		took, output = _run(runner, kdir, cocci.get(label, FLOOR), jobs, logs / f'{label}.log')
		matched[label] = files_matched(output)
		if label in cocci:
			seconds[label] = took
		elif took is not None:
			floors.append(took)
		runner.say(f'bench[tools]: coccicheck {_rel(kdir)} {label}: '
			   + (f'{took:.1f} s' if took is not None else 'failed or not run, see its log')
			   + f', {matched[label]} files matched')
	return seconds, floors, matched


def run_coccicheck_other(runner: Runner, request: BenchRequest, record: dict) -> dict:
	"""The same runs over Debian's other tree, 6.1 (extracted once into
	build/linux-6.1): it ships no checker, so COCCI names the scripts of
	cocci/, the ones patch 0012 ships.  Keys coccicheck_6_1_*."""
	kdir = tree.pristine_tree(runner, OTHER_KDIR, sources.DEBIAN_6_1)
	logs = WORK / 'coccicheck-6.1'
	if not runner.dry_run:
		logs.mkdir(parents=True, exist_ok=True)
	cocci = {s.stem: s for s in check.CHECKERS}
	seconds, floors, matched = _interleaved(runner, kdir, cocci, request.jobs, logs)
	record.update(
		coccicheck_6_1_command='; '.join(shown(kdir, f'$PWD/{_rel(s)}', request.jobs)
						  for s in check.CHECKERS),
		coccicheck_6_1_floor_command=shown(kdir, f'$PWD/{_rel(FLOOR)}', request.jobs),
		coccicheck_6_1_tree=f'Linux {tree.makefile_version(kdir)} ({_rel(kdir)})',
		coccicheck_6_1_floor_runs=[round(f, 1) for f in floors],
		coccicheck_6_1_files_matched=matched, coccicheck_6_1_logs=_rel(logs))
	return {k.replace('coccicheck_', 'coccicheck_6_1_', 1): v
		for k, v in figures(seconds, floors).items()}


def run_coccicheck(runner: Runner, request: BenchRequest, record: dict) -> dict:
	"""The checker's scripts, one `make coccicheck` each, interleaved with
	runs of the floor; then the floor once more with --profile, which says
	where a run's time goes."""
	kdir = request.kdir
	scripts = kernel_checkers(kdir)
	logs = WORK / 'coccicheck'
	if not runner.dry_run:
		logs.mkdir(parents=True, exist_ok=True)
		FLOOR.write_text(floor_rule(spatch.options(scripts[0])))
	floor_cocci = f'$PWD/{_rel(FLOOR)}'
	cocci = {s.stem: s for s in scripts}
	runner.say(f'bench[tools]: make coccicheck over {_rel(kdir)}, J={request.jobs}: '
		   f'{len(scripts)} checker script(s), each after a run of the floor; '
		   f'logs in {_rel(logs)}')
	seconds, floors, matched = _interleaved(runner, kdir, cocci, request.jobs, logs)
	_, output = _run(runner, kdir, FLOOR, request.jobs, logs / 'floor-profile.log', '--profile')
	profile = profile_phases(output)
	runner.say(f'bench[tools]: coccicheck floor --profile: {profile}')
	record.update(
		coccicheck_command='; '.join(shown(kdir, f'{SCRIPTS}/{s.name}', request.jobs)
					     for s in scripts),
		coccicheck_floor_command=shown(kdir, floor_cocci, request.jobs),
		coccicheck_profile_command=shown(kdir, floor_cocci, request.jobs, '--profile'),
		coccicheck_floor_rule=_rel(FLOOR), coccicheck_logs=_rel(logs),
		coccicheck_floor_runs=[round(f, 1) for f in floors],
		coccicheck_tree_files=tree_files(kdir),
		coccicheck_files_matched=matched,
		coccicheck_floor_profile=profile,
		spatch=spatch.version(runner),
		coccicheck_what=(
			f'`make coccicheck MODE=report` over the whole tree of {_rel(kdir)} with '
			f'J={request.jobs}, as a kernel developer runs it, with the '
			f'checker the series ships in `{SCRIPTS}/`' +
			(f' (`{scripts[0].name}`)' if len(scripts) == 1 else
			 f' ({len(scripts)} scripts; scripts/coccicheck takes one script in '
			 'COCCI=, a directory fails and no COCCI runs every script of the '
			 'tree, so the figure is the sum of the runs, one per script)')))
	return figures(seconds, floors)
