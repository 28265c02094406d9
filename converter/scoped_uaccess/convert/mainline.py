# SPDX-License-Identifier: GPL-2.0
"""Our generated conversions next to mainline's hand conversions of the same sites.

Mainline converted some of the regions our converter converts in 6.12
by hand, after the scoped API landed; 7.3 has the result.  For each such
site reports/linux-<7.3 version>/mainline-comparison.md shows the real
code of both, function by function: the 7.3 tree's, read from its
`baseline` commit, and ours, read from the 6.12 tree with the whole
series applied.  Which sites those are is decided from the trees: a
function of the 6.12 conversion table whose 7.3 text no longer holds an
open-coded region (or that 7.3 no longer has).  The verdict on each,
same, better, worse or not comparable, and the argument for it are
written by hand in mainline-verdicts.json next to the report; a site
without one, or a verdict left for a site that is no longer one, is an
error, so the comparison cannot fall behind either tree.
"""

import difflib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from scoped_uaccess.cocci import api
from scoped_uaccess.convert.targets import reports_dir
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import TreeStateError, UsageError
from scoped_uaccess.core.outcome import Outcome, relative, written
from scoped_uaccess.kernel import tree
from scoped_uaccess.kernel.git import git

VERDICTS = 'mainline-verdicts.json'
REPORT = 'mainline-comparison.md'
VERDICT_WORDS = ('same', 'better', 'worse', 'not comparable')
_OPEN_BEGIN = re.compile(r'\b(%s)\s*\(' % '|'.join((*api.OPEN_BEGINS, *api.MASKED_BEGINS)))


def definition_names(function: str) -> list[str]:
	"""How a function's definition is spelled: sys_waitid is
	SYSCALL_DEFINEn(waitid, compat_sys_waitid COMPAT_SYSCALL_DEFINEn(waitid."""
	for prefix, macro in (('compat_sys_', r'COMPAT_SYSCALL_DEFINE\d'),
			      ('sys_', r'SYSCALL_DEFINE\d')):
		if function.startswith(prefix):
			return [rf'{macro}\(\s*{re.escape(function[len(prefix):])}\b',
				rf'\b{re.escape(function)}\s*\(']
	return [rf'(^|[\s*]){re.escape(function)}\s*\(']


def function_text(text: str, function: str) -> Optional[str]:
	"""The definition of function in a C file in kernel style (its body
	opens with `{` and closes with `}` in column 0), from the first line
	of its declaration; None when the file has none."""
	lines = text.splitlines()
	patterns = [re.compile(p) for p in definition_names(function)]
	for i, line in enumerate(lines):
		if not line or line[0].isspace() or not any(p.search(line) for p in patterns):
			continue
		j = i
		while j < len(lines) and lines[j] != '{':
			if lines[j].rstrip().endswith(';') or (j > i and lines[j] == '}'):
				break
			j += 1
		if j == len(lines) or lines[j] != '{':
			continue	# a prototype or a call
		end = next((k for k in range(j, len(lines)) if lines[k] == '}'), None)
		if end is None:
			return None
		start = i
		while start > 0 and lines[start - 1].strip() and not lines[start - 1].rstrip().endswith(
				(';', '}', '*/')) and not lines[start - 1].startswith('#'):
			start -= 1
		return '\n'.join(lines[start:end + 1]) + '\n'
	return None


@dataclass(frozen=True)
class Verdict:
	file: str			# the 6.12 file and function, as conversion.json names them
	function: str
	verdict: str			# one of VERDICT_WORDS
	argument: str			# why, for a maintainer to check
	commit: str = ''		# mainline's commit ("sha ("subject")")
	current_file: str = ''		# where 7.3 has the site, if elsewhere
	current_function: str = ''


@dataclass
class Site:
	verdict: Verdict
	ours: str
	mainline: Optional[str]		# None: 7.3 no longer has the function


def read_verdicts(path: Path) -> list[Verdict]:
	try:
		raw = json.loads(path.read_text())
		verdicts = [Verdict(**v) for v in raw]
	except (OSError, ValueError, TypeError) as e:
		raise UsageError(f'{relative(path)}: not a list of verdicts ({e})',
				 f'see {relative(Path(__file__))} for the fields') from e
	for v in verdicts:
		if v.verdict not in VERDICT_WORDS:
			raise UsageError(f'{relative(path)}: {v.file} {v.function}: verdict '
					 f'{v.verdict!r}', f'use one of {", ".join(VERDICT_WORDS)}')
	return verdicts


def _show(runner: Runner, kdir: Path, rev: str, path: str) -> Optional[str]:
	run = runner.run(git(kdir, 'show', f'{rev}:{path}'), Output.CAPTURE, check=False)
	return run.output if run.returncode == 0 else None


def converted_functions(conversion: Path) -> list[tuple[str, str]]:
	"""(file, function) of every converted region of a conversion table, in order."""
	table = json.loads(conversion.read_text())
	seen: dict[tuple[str, str], None] = {}
	for entry in table['regions']:
		if entry['status'] == 'converted':
			seen[(entry['file'], entry['function'])] = None
	return list(seen)


def _begins(body: Optional[str]) -> list[str]:
	return sorted(m.group(1) for m in _OPEN_BEGIN.finditer(body or ''))


def mainline_sites(runner: Runner, ours: Path, current: Path,
		   conversion: Path) -> list[tuple[str, str]]:
	"""The converted functions of the 6.12 table whose open-coded regions
	mainline changed by hand: 7.3 has no such region left there, or
	begins them otherwise (powerpc's futexes mask unconditionally), or no
	longer has the function in that file."""
	sites = []
	for file, function in converted_functions(conversion):
		before = function_text(_show(runner, ours, tree.BASELINE_TAG, file) or '', function)
		now = function_text(_show(runner, current, tree.BASELINE_TAG, file) or '', function)
		if now is None or _begins(now) != _begins(before) or not _begins(now):
			sites.append((file, function))
	return sites


def _fence(text: Optional[str], lang: str = 'c') -> str:
	return f'```{lang}\n{text.rstrip()}\n```' if text is not None else '(none)'


def side_by_side(mainline: str, ours: str, current_version: str, ours_version: str) -> str:
	"""Both functions whole, in one unified diff: a line both have once,
	mainline's own lines as -, ours as +."""
	a, b = mainline.splitlines(), ours.splitlines()
	diff = list(difflib.unified_diff(a, b, f'{current_version} (mainline)',
					 f'{ours_version} (generated)', n=max(len(a), len(b)),
					 lineterm=''))
	return '\n'.join(diff[2:] if diff else [' ' + line for line in a])


def sites(runner: Runner, ours: Path, current: Path, conversion: Path,
	  verdicts: list[Verdict]) -> list[Site]:
	"""Every mainline site with its verdict and both texts; a site without
	a verdict, or a verdict without a site, is a UsageError."""
	found = mainline_sites(runner, ours, current, conversion)
	by_key = {(v.file, v.function): v for v in verdicts}
	missing = [f'{f} {fn}' for f, fn in found if (f, fn) not in by_key]
	stale = [f'{v.file} {v.function}' for v in verdicts if (v.file, v.function) not in found]
	if missing or stale:
		raise UsageError('the mainline comparison is out of date: '
				 + '; '.join(([f'no verdict for {", ".join(missing)}'] if missing else [])
					     + ([f'no longer a mainline site: {", ".join(stale)}']
						if stale else [])),
				 f'edit {VERDICTS} next to the report')
	result = []
	for file, function in found:
		v = by_key[(file, function)]
		where = v.current_file or file
		mine = function_text(_show(runner, ours, 'HEAD', file) or '', function)
		if mine is None:
			raise TreeStateError(f'{ours}: no {function}() in {file} at HEAD',
					     'make the 6.12 tree with its series: `make tree`')
		theirs = function_text(_show(runner, current, tree.BASELINE_TAG, where) or '',
				       v.current_function or function)
		result.append(Site(v, mine, theirs))
	return result


def render(items: list[Site], ours_version: str, current_version: str, conversion: Path) -> str:
	"""The report: a summary table, then each site's two texts and verdict."""
	counts = {w: sum(1 for s in items if s.verdict.verdict == w) for w in VERDICT_WORDS}
	out = [f'# Generated conversions of {ours_version} next to mainline\'s, as {current_version} has them',
	       '',
	       f'Mainline converted {len(items)} of the functions the converter converts in '
	       f'{ours_version} by hand (or removed them).  For each: the verdict and the '
	       f'argument for it, then both functions whole in one diff, the lines only mainline '
	       f'has as `-` (Linux {current_version}, Debian\'s '
	       f'`linux-source-{current_version.rsplit(".", 1)[0]}`, tag `baseline` of '
	       '`build/linux-7.3`) and the lines only ours has as `+` (`build/linux` with '
	       '`patches/series` applied); the lines they share once.  '
	       f'Which functions: those of `{relative(conversion)}` whose open-coded '
	       f'region {current_version} no longer has, or begins otherwise.  The x86 futexes and '
	       'get_sigset_argpack() are seed patches of the core series, not generated, and are '
	       'left out.',
	       '',
	       'Regenerate (the gate convert-regen-7.3 checks it is current):',
	       '',
	       '    converter/scoped-uaccess mainline-comparison --write',
	       '',
	       'Verdicts: ' + ', '.join(f'{n} {w}' for w, n in counts.items() if n) + '.',
	       '',
	       '| site | verdict | mainline |',
	       '|---|---|---|']
	for s in items:
		v = s.verdict
		out.append(f'| {v.file} {v.function}() | {v.verdict} | {v.commit or "-"} |')
	for s in items:
		v = s.verdict
		where = ''
		if v.current_file or v.current_function:
			where = (f' ({current_version}: {v.current_function or v.function}() in '
				 f'{v.current_file or v.file})')
		out += ['', f'## {v.file}: {v.function}(){where}', '',
			f'**{v.verdict}.** {v.argument}', '']
		if s.mainline is None:
			out += [f'{current_version} has no such function.  Ours, {ours_version}:', '',
				_fence(s.ours)]
		elif v.verdict == 'not comparable':
			out += [f'Mainline, as {current_version} has it:', '', _fence(s.mainline), '',
				f'Ours, {ours_version}:', '', _fence(s.ours)]
		else:
			out += [f'Mainline{", " + v.commit if v.commit else ""} (`-`, as {current_version} '
				f'has it) and ours (`+`, {ours_version}, generated), whole:', '',
				_fence(side_by_side(s.mainline, s.ours, current_version, ours_version),
				       'diff')]
	return '\n'.join(out) + '\n'


def comparison_step(runner: Runner, ours: Path, current: Path, write: bool = False) -> Outcome:
	"""Renders reports/linux-<current version>/mainline-comparison.md from
	the two trees and the verdicts next to it; without write, an Outcome
	of findings when the committed one differs."""
	ours_dir, here = reports_dir(ours), reports_dir(current)
	conversion = ours_dir / 'conversion.json'
	if not conversion.is_file():
		raise UsageError(f'{relative(conversion)} does not exist',
				 f'run `make convert-install KDIR={relative(ours)}` first')
	verdicts = here / VERDICTS
	if not verdicts.is_file():
		raise UsageError(f'{relative(verdicts)} does not exist',
				 'write the verdicts of the sites (see converter/scoped_uaccess/convert/mainline.py)')
	text = render(sites(runner, ours, current, conversion, read_verdicts(verdicts)),
		      tree.kernel_version(ours), tree.kernel_version(current), conversion)
	target = here / REPORT
	if write:
		written(target, text)
		return Outcome.ok(f'{relative(target)} written')
	if not target.is_file() or target.read_text() != text:
		return Outcome.findings(f'{relative(target)} is not what the trees and '
					f'{VERDICTS} give; rerun with --write and review the diff')
	return Outcome.ok(f'{relative(target)} is current')
