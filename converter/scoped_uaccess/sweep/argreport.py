# SPDX-License-Identifier: GPL-2.0
"""The argument sweep's report: reports/linux-<version>/argsweep.json and .md.

The argument sweep (testcases/faultsweep/README.md, "Argument sweep")
calls each syscall whose argument sets the range or the pointer of a user
access region with the values a range check decides on, in the fault
sweep's boots; its records are the consoles' `pos=arg:<argument>=<value>`
records.  The report has one row per path and argument, per arch the
values it ran, the reason it was skipped, or why it did not run; and every
difference.  A row that did not run on an arch counts no differences
there: its cell says why instead of a number.
"""

import json
from dataclasses import dataclass, field
from typing import Optional

from scoped_uaccess.sweep.records import ARG_PREFIX, ArgKey, Difference, SweepConsole, is_arg


@dataclass
class ArchRun:
	"""One arch of a target: its two consoles, or why it has none."""
	arch: str
	baseline: Optional[SweepConsole] = None
	converted: Optional[SweepConsole] = None
	# Why the argument sweep did not run here (the target was not booted,
	# the program did not finish on one side); '' when it ran on both.
	not_run: str = ''
	problems: list[str] = field(default_factory=list)


def not_run_reason(arch: str, baseline: Optional[SweepConsole], converted: Optional[SweepConsole],
		   target_problems: list[str], target_not_run: str = '') -> str:
	"""Why arch has no argument sweep to compare, '' when both kernels ran it
	to the end; target_problems are the target's `<side>: <problem>` lines."""
	if target_not_run:
		return target_not_run
	for side, console in (('baseline', baseline), ('converted', converted)):
		if console is None:
			return f'{side}: not booted'
		if arch not in console.done:
			mine = [p for p in target_problems if p.startswith(f'{side}: ') and
				(f' {arch}:' in p or 'QEMU' in p)]
			return mine[0] if mine else f'{side}: no `# sweep-done {arch}` line'
	return ''


def arg_of(d: Difference) -> str:
	"""The argument of an argument sweep difference (arg:<argument>[=<value>])."""
	return d.pos[len(ARG_PREFIX):].partition('=')[0]


def _row_cell(run: ArchRun, key: ArgKey, diffs: list[Difference]) -> dict:
	if run.not_run:
		return {'not_run': run.not_run}
	conv, base = run.converted, run.baseline
	assert conv is not None and base is not None
	if key in conv.arg_skips and key in base.arg_skips and \
	   conv.arg_skips[key] == base.arg_skips[key]:
		return {'skipped': conv.arg_skips[key]}
	if key not in conv.arg_order and key not in base.arg_order:
		return {'not_run': 'the program has no such row for this arch'}
	mine = [d for d in diffs if (d.path, d.arch, arg_of(d)) == key]
	values = [r.arg[1] for r in conv.arg_records(key) if r.arg is not None]
	return {'values': values, 'differences': len(mine)}


def report_data(version: str, kernels: tuple[str, str], runs: list[ArchRun],
		diffs: list[Difference], command: str) -> dict:
	"""The content of argsweep.json: rows in the program's order (the first
	console that has them), per arch what ran; every difference."""
	arg_diffs = [d for d in diffs if is_arg(d.pos)]
	keys: dict[tuple[str, str], None] = {}
	info: dict[tuple[str, str], dict] = {}
	for run in runs:
		for console in (run.converted, run.baseline):
			if console is None:
				continue
			for path, arch, arg in console.arg_keys():
				keys[(path, arg)] = None
				entry = info.setdefault((path, arg), {
					'kind': console.arg_kinds[(path, arch, arg)], 'regions': {}})
				row = console.arg_rows.get((path, arch, arg))
				if row is not None:
					entry['regions'].setdefault(arch, list(row.regions))
	rows = []
	for path, arg in keys:
		entry = info.get((path, arg), {'kind': '', 'regions': {}})
		cells = {run.arch: _row_cell(run, (path, run.arch, arg), arg_diffs) for run in runs}
		rows.append({'path': path, 'arg': arg, 'kind': entry['kind'],
			     'regions': entry['regions'], 'archs': cells,
			     'differences': sum(c.get('differences', 0) for c in cells.values()),
			     'not_run': [a for a, c in cells.items() if 'not_run' in c],
			     'details': [str(d) for d in arg_diffs if (d.path, arg_of(d)) == (path, arg)]})
	data = {
		'version': version,
		'kernels': dict(zip(('baseline', 'converted'), kernels)),
		'command': command,
		'archs': [{'arch': run.arch, **({'not_run': run.not_run} if run.not_run else {})}
			  for run in runs],
		'rows': rows,
		'records': {run.arch: sum(len(c.get('values', ())) for r in rows
					  for a, c in r['archs'].items() if a == run.arch) for run in runs},
		'differences': sum(r['differences'] for r in rows),
	}
	return data


def _cell(c: dict) -> str:
	if 'not_run' in c:
		return 'NOT RUN'
	if 'skipped' in c:
		return f'skip: {c["skipped"]}'
	n = len(c['values'])
	return f'{n}' + (f' ({c["differences"]} differ)' if c['differences'] else '')


def common_values(data: dict) -> dict[tuple[str, str], list[str]]:
	"""Per (kind, arch): the values every row of that kind ran there, in order."""
	common: dict[tuple[str, str], list[str]] = {}
	for row in data['rows']:
		for arch, c in row['archs'].items():
			if 'values' not in c:
				continue
			key = (row['kind'], arch)
			common[key] = ([v for v in common[key] if v in c['values']] if key in common
				       else list(c['values']))
	return common


def _regions(row: dict) -> str:
	"""The regions of a row, archs with the same list grouped; '-' when no
	arch ran it."""
	if not row['regions']:
		return '-'
	groups: dict[tuple[str, ...], list[str]] = {}
	for arch, regions in row['regions'].items():
		groups.setdefault(tuple(regions), []).append(arch)
	if len(groups) == 1:
		(regions,) = groups
		return ', '.join(f'`{r}`' for r in regions) or 'none (copy_{from,to}_user())'
	return '; '.join(f'{"/".join(archs)}: ' + (', '.join(f'`{r}`' for r in regions) or 'none')
			 for regions, archs in groups.items())


def render_markdown(data: dict) -> str:
	archs = [a['arch'] for a in data['archs']]
	common = common_values(data)
	out = [f'# Argument sweep: Linux {data["version"]}', '',
	       f'Generated by `{data["command"]}` (testcases/faultsweep/README.md, "Argument '
	       'sweep"): each row is a path of the fault sweep and one argument of its syscall '
	       'that sets the range or the pointer of a user access region; the syscall is made '
	       'with every value of the row on the baseline and on the converted kernel, in the '
	       'fault sweep\'s boots, and return value, errno, signal, every byte of the window '
	       'and the state it leaves are compared.', '',
	       f'- baseline: {data["kernels"]["baseline"]}',
	       f'- converted: {data["kernels"]["converted"]}', '']
	not_run = [a for a in data['archs'] if 'not_run' in a]
	records = ', '.join(f'{a} {data["records"][a]}' for a in archs)
	missing = ', '.join(a['arch'] for a in not_run)
	out += [f'Records: {records}; **{data["differences"]} difference(s)**'
		+ (f'; NOT RUN on {missing}, whose rows count no differences' if not_run else '')
		+ '.', '']
	for a in not_run:
		out.append(f'- NOT RUN on {a["arch"]}: {a["not_run"]}')
	if not_run:
		out.append('')
	out += ['## Rows', '',
		'Values per row and arch (the number run; a skipped row names the reason the '
		'program gave, a row that did not run says why, and counts no differences).', '',
		f'| row | kind | {" | ".join(archs)} | differences | own values | regions |',
		f'|---|---|{"---|" * len(archs)}---|---|---|']
	for row in data['rows']:
		own: list[str] = []
		for arch, c in row['archs'].items():
			own += [v for v in c.get('values', ()) if v not in common.get((row['kind'], arch), ())
				and v not in own]
		cells = ' | '.join(_cell(row['archs'].get(a, {'not_run': 'no console'})) for a in archs)
		ndiff = str(row['differences']) + (f' (not run on {", ".join(row["not_run"])})'
						   if row['not_run'] else '')
		out.append(f'| {row["path"]} {row["arg"]} | {row["kind"]} | {cells} | '
			   f'{ndiff} | {", ".join(own) or "-"} | {_regions(row)} |')
	out += ['', '## Values', '',
		'The values every row of a kind runs on an arch (own values are in the rows '
		'table); `top` is the value whose range ends at the top of user space, `exact` '
		'the object\'s own size.', '', '| kind | arch | values |', '|---|---|---|']
	out += [f'| {kind} | {arch} | {" ".join(f"`{v}`" for v in values)} |'
		for (kind, arch), values in sorted(common.items())]
	details = [d for row in data['rows'] for d in row['details']]
	out += ['', '## Differences', '']
	out += [f'    {d}' for d in details] if details else ['None.']
	return '\n'.join(out) + '\n'


def render_json(data: dict) -> str:
	return json.dumps(data, indent=1) + '\n'
