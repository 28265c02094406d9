# SPDX-License-Identifier: GPL-2.0
"""The tree's scripts/checkpatch.pl --strict on a patch file, its verdict as data."""

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem

CHECKPATCH = Path('scripts/checkpatch.pl')
# Not --terse: it prints nothing at all, not even totals, for a clean patch.
OPTIONS = ('--strict', '--show-types', '--no-color')
# checkpatch runs scripts/spdxcheck.py with the python3 on PATH, which must
# be Debian's: it needs python3-ply and python3-git.
SPDXCHECK_ENV = {'PATH': '/usr/bin:' + os.environ.get('PATH', '')}
_TOTAL = re.compile(r'total: (\d+) errors, (\d+) warnings, (?:(\d+) checks, )?')
# What re-indenting a line can cause: never pre-existing.
LAYOUT = frozenset({'LONG_LINE', 'LONG_LINE_COMMENT', 'LONG_LINE_STRING', 'CODE_INDENT',
		    'LEADING_SPACE', 'SUSPECT_CODE_INDENT', 'TABSTOP', 'LINE_SPACING',
		    'BLOCK_COMMENT_STYLE', 'SPACE_BEFORE_TAB', 'WHITESPACE_AFTER_LINE_CONTINUATION'})
_ISSUE = re.compile(r'^(?P<level>ERROR|WARNING|CHECK):(?P<rest>.*)$')
_WHERE = re.compile(r"^#\d+: FILE: (?P<where>\S+?):?$")


@dataclass
class PatchResult:
	patch: str
	errors: int = 0
	warnings: int = 0
	checks: int = 0
	issues: list[str] = field(default_factory=list)
	output: str = ''
	# ERRORs and WARNINGs on a line the patch only moves or re-indents:
	# its text is that of a line the patch removes (`ret = -ENOSYS;` of
	# powerpc's futex code, deeper in a scope).
	preexisting: list[str] = field(default_factory=list)

	@property
	def clean(self) -> bool:
		"""No ERROR and no WARNING that the patch introduces.

		CHECKs (--strict) are printed for review but do not fail the gate:
		most are MACRO_ARG_REUSE on uaccess macros that must evaluate their
		pointer in several places without side effects, which the kernel's
		own accessors do too.  Pre-existing ones are listed, not counted.
		"""
		return self.errors + self.warnings == len(self.preexisting)


def parse_output(patch: str, output: str, removed: frozenset[str] = frozenset()) -> PatchResult:
	"""Counts, and one line per issue (with where it is), from checkpatch
	output; removed: the stripped text of the lines the patch removes."""
	result = PatchResult(patch, output=output)
	total = _TOTAL.search(output)
	issues = []
	lines = output.splitlines()
	for i, line in enumerate(lines):
		m = _ISSUE.match(line)
		if m:
			where = _WHERE.match(lines[i + 1]) if i + 1 < len(lines) else None
			issue = (f'{where.group("where")}: ' if where else '') + line.strip()
			issues.append(issue)
			quoted = lines[i + 2] if where and i + 2 < len(lines) else ''
			kind = m.group('rest').split(':', 1)[0]
			if m.group('level') != 'CHECK' and kind not in LAYOUT and quoted.startswith('+') \
			   and quoted[1:].strip() and quoted[1:].strip() in removed:
				result.preexisting.append(issue)
	result.issues = issues
	if total:
		result.errors, result.warnings = int(total.group(1)), int(total.group(2))
		result.checks = int(total.group(3) or 0)
	else:
		# No totals line means checkpatch itself failed; count what it said.
		result.errors = max(1, sum('ERROR:' in i for i in issues))
		result.issues = issues or [f'{patch}: checkpatch printed no totals']
	return result


def check_patch(runner: Runner, kdir: Path, patch: Path,
		ignore: tuple[str, ...] = ()) -> PatchResult:
	"""checkpatch.pl --strict on one patch file, run in the tree kdir;
	ignore: message types not to report."""
	if not (kdir / CHECKPATCH).is_file():
		raise EnvironmentProblem(f'{kdir / CHECKPATCH} is missing', 'create the tree with `make tree`')
	skip = ('--ignore', ','.join(ignore)) if ignore else ()
	run = runner.run(Command(('perl', str(CHECKPATCH), *OPTIONS, *skip, str(patch.resolve())),
				 cwd=kdir, env=SPDXCHECK_ENV, mutates=False),
			 Output.CAPTURE, check=False)
	return parse_output(patch.name, run.output + run.stderr, removed_lines(patch))


def removed_lines(patch: Path) -> frozenset[str]:
	"""The stripped text of the lines a patch file removes."""
	text = patch.read_text(errors='replace') if patch.is_file() else ''
	return frozenset(line[1:].strip() for line in text.splitlines()
			 if line.startswith('-') and not line.startswith('---') and line[1:].strip())
