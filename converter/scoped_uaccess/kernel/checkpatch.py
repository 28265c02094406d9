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

	@property
	def clean(self) -> bool:
		"""No ERROR and no WARNING.

		CHECKs (--strict) are printed for review but do not fail the gate:
		most are MACRO_ARG_REUSE on uaccess macros that must evaluate their
		pointer in several places without side effects, which the kernel's
		own accessors do too.
		"""
		return self.errors == self.warnings == 0


def parse_output(patch: str, output: str) -> PatchResult:
	"""Counts, and one line per issue (with where it is), from checkpatch output."""
	result = PatchResult(patch, output=output)
	total = _TOTAL.search(output)
	issues = []
	lines = output.splitlines()
	for i, line in enumerate(lines):
		if _ISSUE.match(line):
			where = _WHERE.match(lines[i + 1]) if i + 1 < len(lines) else None
			issues.append((f'{where.group("where")}: ' if where else '') + line.strip())
	result.issues = issues
	if total:
		result.errors, result.warnings = int(total.group(1)), int(total.group(2))
		result.checks = int(total.group(3) or 0)
	else:
		# No totals line means checkpatch itself failed; count what it said.
		result.errors = max(1, sum('ERROR:' in i for i in issues))
		result.issues = issues or [f'{patch}: checkpatch printed no totals']
	return result


def check_patch(runner: Runner, kdir: Path, patch: Path) -> PatchResult:
	"""checkpatch.pl --strict on one patch file, run in the tree kdir."""
	if not (kdir / CHECKPATCH).is_file():
		raise EnvironmentProblem(f'{kdir / CHECKPATCH} is missing', 'create the tree with `make tree`')
	run = runner.run(Command(('perl', str(CHECKPATCH), *OPTIONS, str(patch.resolve())),
				 cwd=kdir, env=SPDXCHECK_ENV, mutates=False),
			 Output.CAPTURE, check=False)
	return parse_output(patch.name, run.output + run.stderr)
