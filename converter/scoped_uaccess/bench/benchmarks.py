# SPDX-License-Identifier: GPL-2.0
"""Benchmarks: region entry on this CPU, cycles per user access, syscalls, code, tools.

Five sections, each a function of a BenchRequest that returns plain data
for reports/bench/bench.json:

  native   testcases/bench/native/: the region entry and exit sequences of
           the kernel's headers (6.12's checked and masked begins, the
           series' scopes), compiled with kbuild and timed in userspace on
           this CPU, pinned; TSC cycles per region, masked/checked.
  access   testcases/bench/uaccess_bench.c, a KUnit module built out of
           tree against the series kernel (x86_64.config plus
           bench.config) and loaded with insmod in QEMU; cycles per 8-byte
           user read and write through each accessor, ratios to the
           open-coded user_access_begin() region.
  syscall  the userspace program's bench mode (userspace/syscalls.py) on the
           baseline and the converted kernel, boots interleaved; the ratio
           converted/baseline per round.
  code     scripts/bloat-o-meter and LFENCE sites per function of the
           objects the series changes, baseline against converted; LFENCE
           sites and bytes of every object with a user access region.
  tools    the checker over the tree (what `make report` runs) against a
           trivial spatch rule over the same files with the same options,
           and the converter.

Nothing here judges a figure: benchmarks report, they do not pass or fail.
"""

import datetime
import json
import os
import shutil
import time
from pathlib import Path

from scoped_uaccess.bench.access import run_access
from scoped_uaccess.bench.code import run_code
from scoped_uaccess.bench.common import SECTIONS, WORK, BenchRequest, _rel
from scoped_uaccess.bench.native import estimates, run_native
from scoped_uaccess.bench.readme import headline, readme
from scoped_uaccess.bench.syscall import prepare_worktrees, run_syscalls
from scoped_uaccess.bench.tools import run_tools
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import EnvironmentProblem, UsageError
from scoped_uaccess.core.outcome import Outcome
from scoped_uaccess.kernel import kbuild
from scoped_uaccess.userspace import syscalls

def host_facts() -> dict:
	facts = {'cpus': os.cpu_count()}
	try:
		facts['load_average'] = [round(x, 2) for x in os.getloadavg()]
	except OSError:
		pass
	try:
		model = next((line.split(':', 1)[1].strip() for line in
			      Path('/proc/cpuinfo').read_text().splitlines()
			      if line.startswith('model name')), None)
		facts['cpu'] = model
	except OSError:
		pass
	return facts


def run_bench(runner: Runner, request: BenchRequest) -> dict:
	"""Runs the sections asked for; writes bench.json and README.md to request.out."""
	unknown = [s for s in request.sections if s not in SECTIONS]
	if unknown:
		raise UsageError(f'unknown section(s): {" ".join(unknown)}', f'use {", ".join(SECTIONS)}')
	if min(request.iterations, request.repetitions, request.syscall_iterations,
	       request.rounds, request.native_rounds, request.native_regions) <= 0 \
	   or request.native_warmup < 0:
		raise UsageError('iteration, repetition and round counts must be positive')
	for tool in ('qemu-system-x86_64', 'objdump', 'spatch', 'gcc', 'make'):
		if shutil.which(tool) is None:
			raise EnvironmentProblem(f'{tool} is not installed', 'run `make deps`')
	if not runner.dry_run:
		WORK.mkdir(parents=True, exist_ok=True)
	started = datetime.datetime.now(datetime.timezone.utc)
	data: dict = {
		'date': started.strftime('%Y-%m-%d %H:%M UTC'),
		'host': host_facts(),
		'request': {'iterations': request.iterations, 'repetitions': request.repetitions,
			    'syscall_iterations': request.syscall_iterations, 'rounds': request.rounds,
			    'native_rounds': request.native_rounds,
			    'native_regions': request.native_regions,
			    'native_warmup': request.native_warmup,
			    'sections': list(request.sections), 'jobs': request.jobs,
			    'accel': request.accel.value},
		'records': {},
	}
	if {'native', 'syscall', 'access', 'code'} & set(request.sections):
		data['converted_commit'] = prepare_worktrees(runner, request)
	if not runner.dry_run:
		carry_over(request.out / 'bench.json', data, request.sections)
	if 'code' in request.sections and 'syscall' not in request.sections and request.build:
		# The syscall section builds both userspace kernels; code needs them too.
		_build_userspace_kernels(runner, request)
	# Native first, on a host not yet heated by our own builds; code right
	# after the syscall section: both use the userspace kernels.
	for section, fn in (('native', run_native), ('syscall', run_syscalls), ('code', run_code),
			    ('access', run_access), ('tools', run_tools)):
		if section not in request.sections:
			continue
		record: dict = {'date': data['date'], 'converted_commit': data.get('converted_commit')}
		start = time.monotonic()
		data[section] = fn(runner, request, record)
		record['seconds'] = round(time.monotonic() - start, 1)
		data['records'][section] = record
		if data.get('native') and section in ('native', 'code'):
			data['native']['estimate'] = estimates(data['native'], data.get('code'))
		# After every section, so that a later failure keeps what was measured.
		data['wall_seconds'] = round((datetime.datetime.now(datetime.timezone.utc) - started)
					     .total_seconds(), 1)
		write_reports(runner, request.out, data)
	if not runner.dry_run:
		runner.say(f'bench: wrote {_rel(request.out / "bench.json")} and '
			   f'{_rel(request.out / "README.md")}')
	return data


def carry_over(previous: Path, data: dict, sections: tuple[str, ...]) -> None:
	"""Keeps the sections of an earlier run that this one does not redo, so
	that `--section S` updates S in reports/bench/ and leaves the rest; each
	kept record says when and on which commit it was measured."""
	try:
		old = json.loads(previous.read_text())
	except (OSError, ValueError):
		return
	for section in SECTIONS:
		if section in sections or section not in old:
			continue
		data[section] = old[section]
		record = dict(old.get('records', {}).get(section, {}))
		record.setdefault('date', old.get('date'))
		record.setdefault('converted_commit', old.get('converted_commit'))
		data['records'][section] = record
	if 'native' in data and 'native' not in sections:
		data['native']['estimate'] = estimates(data['native'], data.get('code'))


def render(out: Path) -> Path:
	"""Rewrites README.md from the bench.json beside it (after a wording change)."""
	source = out / 'bench.json'
	try:
		data = json.loads(source.read_text())
	except (OSError, ValueError) as e:
		raise UsageError(f'cannot read {source}: {e}', 'run `make bench` first') from e
	(out / 'README.md').write_text(readme(data))
	return out / 'README.md'


def write_reports(runner: Runner, out: Path, data: dict) -> None:
	if runner.dry_run:
		return
	out.mkdir(parents=True, exist_ok=True)
	(out / 'bench.json').write_text(json.dumps(data, indent=2, sort_keys=False) + '\n')
	(out / 'README.md').write_text(readme(data))


def _build_userspace_kernels(runner: Runner, request: BenchRequest) -> None:
	for worktree, name in ((request.baseline_tree, 'baseline'), (request.series_tree, 'series')):
		ur = syscalls.UserspaceRequest(kdir=worktree, name=name, jobs=request.jobs, build=True)
		kbuild.configure(runner, syscalls.kernel_build(ur), ur.config)
		built = syscalls.build_kernel(runner, ur, paths.RESULTS / f'userspace-{name}-build.log')
		if built.returncode != 0:
			raise EnvironmentProblem(f'the {name} kernel does not build: '
						 f'{kbuild.failure_line(built.output)}')


def step(runner: Runner, request: BenchRequest) -> Outcome:
	"""`make bench`: every section asked for; the headline figures."""
	return Outcome.ok(headline(run_bench(runner, request)))
