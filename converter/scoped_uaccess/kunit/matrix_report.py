# SPDX-License-Identifier: GPL-2.0
"""The KUnit matrix's table and committed report, and the command's step.

The report (reports/linux-<version>/kunit-matrix.md) holds per
architecture kunit.py's QEMU machine and CPU, the pass/skip/fail counts
of each suite, every skip with its reason, and the command that makes
the row; no seconds and no paths of this machine (those are in
build/results/kunit-matrix*/matrix.json).
"""

from pathlib import Path
from typing import Optional

from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.outcome import Outcome, format_seconds, relative, written
from scoped_uaccess.kernel import kunit_qemu, tree
from scoped_uaccess.kunit import expected, matrix
from scoped_uaccess.kunit.matrix import MatrixRequest, Row, RowStatus

REPORT = 'kunit-matrix.md'


def _counts(row: Row, suite: str) -> str:
	s = next((s for s in row.summaries if s.name == suite), None)
	if s is None:
		return '-'
	text = f'{s.passed}/{s.skipped}/{s.failed}'
	return text + (f' ({s.incomplete} incomplete)' if s.incomplete else '')


def table(rows: list[Row], seconds: bool = False,
	  suites: tuple[str, ...] = tuple(s.name for s in expected.EXPECTED_SUITES)) -> str:
	"""The matrix as a Markdown table; seconds: with build and boot times."""
	head = ['arch', 'QEMU', 'machine', 'CPU', *(f'{s} pass/skip/fail' for s in suites), 'result',
		'`kunit.py exec`']
	if seconds:
		head += ['build', 'boot']
	lines = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
	for r in rows:
		result = r.status.value + (f': {r.reason}' if r.status is not RowStatus.PASSED else '')
		cells = [r.arch, f'`{r.qemu}`', f'`{r.machine}`', f'`{r.cpu}`',
			 *(_counts(r, s) for s in suites), result, r.kunit_py or '-']
		if seconds:
			cells += [format_seconds(r.build_seconds), format_seconds(r.boot_seconds)]
		lines.append('| ' + ' | '.join(c.replace('|', '\\|') for c in cells) + ' |')
	return '\n'.join(lines)


def render(kdir: Path, rows: list[Row]) -> str:
	"""reports/linux-<version>/kunit-matrix.md."""
	version = tree.kernel_version(kdir)
	command = matrix.command(kdir)
	out = [f'# KUnit under kunit.py\'s QEMU configurations: Linux {version} with its series',
	       '',
	       'The project\'s `scoped_uaccess` suite (the series\' KUnit patch) and the tree\'s '
	       '`usercopy` suite, built for each of kunit.py\'s QEMU configurations '
	       '(`tools/testing/kunit/qemu_configs/<arch>.py` of this tree: its kconfig '
	       'fragment, QEMU binary, machine, CPU and kernel command line) with '
	       '`testcases/kunit/matrix.kunitconfig`, compiled by Debian\'s cross compilers '
	       '(`converter/scoped_uaccess/kernel/kunit_qemu.py`). kunit.py configures each '
	       'kernel; QEMU boots it with kunit.py\'s arguments through the project\'s QEMU '
	       'command (`docs/validation.md`, "The KUnit matrix", says why); then `kunit.py '
	       'exec` boots the same kernel, and its column says whether kunit.py itself ran it '
	       'here and counted the same.',
	       '',
	       'Every declared case must report and pass, except where the platform cannot show '
	       'what it tests: there it must skip, with the kernel\'s reason '
	       '(`converter/scoped_uaccess/kunit/expected.py`, `SKIP_RULES`). A row NOT RUN '
	       'lacked a compiler, QEMU or firmware; it is not a pass.',
	       '',
	       f'    {command} --install',
	       '',
	       table(rows),
	       '',
	       'A machine or CPU `default` is one the configuration does not name: QEMU takes '
	       'its own (on x86 the qemu64 and qemu32 models, neither with SMAP).',
	       '']
	absent = [a for a in kunit_qemu.KUNIT_ARCHES if a not in {r.arch for r in rows}]
	if absent:
		out += [f'Not in these results (no row yet): {", ".join(absent)}; '
			f'`{command} --arch <arch> --install` adds a row.', '']
	out += ['## Skips', '', '| arch | case | the kernel\'s reason |', '|---|---|---|']
	for r in rows:
		for case, reason in sorted(r.skips.items()):
			out.append(f'| {r.arch} | `{case}` | {reason or "(none)"} |')
	out += ['', '## One row', '', '| arch | command |', '|---|---|']
	out += [f'| {r.arch} | `{matrix.reproduce(kdir, r.arch)}` |' for r in rows]
	return '\n'.join(out) + '\n'


def install(report_dir: Path, kdir: Path, rows: list[Row]) -> Path:
	path = report_dir / REPORT
	written(path, render(kdir, rows))
	return path


def step(runner: Runner, request: MatrixRequest, report_dir: Optional[Path] = None) -> Outcome:
	"""`kunit-matrix`: every requested row, the results (merged with an
	earlier run's other rows), the table, and with report_dir the report."""
	rows = []
	for name in request.arches:
		row = matrix.run_arch(runner, request, name)
		runner.say(f'kunit-matrix[{name}]: {row.status.value}'
			   + (f': {row.reason}' if row.reason else '')
			   + ''.join(f'; {s}' for s in row.summaries))
		rows.append(row)
	if runner.dry_run:
		return Outcome.ok('dry run')
	previous = request.results_dir / 'matrix.json'
	every = matrix.merge(matrix.read_results(previous), rows) if previous.is_file() else rows
	results = matrix.write_results(request, every)
	runner.say(f'kunit-matrix: results in {relative(results)}')
	runner.say(table(every, seconds=True))
	if report_dir is not None:
		runner.say(f'kunit-matrix: report {relative(install(report_dir, request.kdir, every))}')
	return matrix.verdict(rows)
