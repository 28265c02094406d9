# SPDX-License-Identifier: GPL-2.0
"""Microsoft's SARIF Multitool: installed from the npm registry under
build/npm by `make deps`, it validates the SARIF logs the checker writes.

The npm package @microsoft/sarif-multitool carries, per platform, a
self-contained .NET program (no dotnet runtime needed); on Linux it loads
the system's ICU (libicu72 on Debian 12).  Node and npm only install it.
The versions are pinned by converter/npm/package-lock.json, which
`npm ci` installs exactly.
"""

import json
import os
import re
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import CommandFailed, EnvironmentProblem

PACKAGE = paths.REPO / 'converter' / 'npm'	# package.json, package-lock.json
INSTALL = paths.BUILD / 'npm'
BINARY = INSTALL / 'node_modules' / '@microsoft' / 'sarif-multitool-linux' / 'Sarif.Multitool'
FILES = ('package.json', 'package-lock.json')
# Debian packages it needs: npm to install it, ICU for the .NET program.
DEBIAN_PACKAGES = ('nodejs', 'npm', 'libicu72')
# What the validator's levels mean for us: a note is advice, and is listed.
FAILING = ('error', 'warning')


def installed() -> bool:
	"""The pinned version is in build/npm."""
	return BINARY.is_file() and all(
		(INSTALL / name).is_file() and
		(INSTALL / name).read_bytes() == (PACKAGE / name).read_bytes() for name in FILES)


def install(runner: Runner) -> bool:
	"""`npm ci` of converter/npm into build/npm, unless it is there already;
	True if it installed."""
	if installed():
		return False
	runner.say(f'deps: installing the SARIF Multitool with npm into {INSTALL}')
	if not runner.dry_run:
		INSTALL.mkdir(parents=True, exist_ok=True)
		for name in FILES:
			shutil.copyfile(PACKAGE / name, INSTALL / name)
	runner.run(Command(('npm', 'ci', '--no-audit', '--no-fund'), cwd=INSTALL),
		   Output.CAPTURE, fix='check that the npm registry is reachable (make deps)')
	if runner.dry_run:
		return True
	if not BINARY.is_file():
		raise EnvironmentProblem(f'npm ci did not install {BINARY}',
					 'the package has no Linux x86-64 program; see converter/npm')
	# Its postinstall script only does this, and npm may skip scripts.
	BINARY.chmod(BINARY.stat().st_mode | stat.S_IXUSR)
	return True


@dataclass(frozen=True)
class Problem:
	"""One result of the validator."""
	level: str
	rule: str	# SARIF1001, SARIF2010, ...
	name: str	# its friendly name: RuleIdentifiersMustBeValid, ...
	file: str
	text: str

	def line(self) -> str:
		return f'{self.file}: {self.level}: {self.rule} {self.name}: {self.text}'


@dataclass
class Validation:
	files: list[Path]
	problems: list[Problem] = field(default_factory=list)	# errors and warnings
	notes: list[Problem] = field(default_factory=list)

	@property
	def ok(self) -> bool:
		return not self.problems


def _text(result: dict, rules: dict[str, dict]) -> str:
	"""A result's message: its text, or its rule's message string with the
	arguments put in."""
	message = result.get('message', {})
	if 'text' in message:
		return message['text']
	rule = rules.get(result.get('ruleId', ''), {})
	template = rule.get('messageStrings', {}).get(message.get('id', ''), {}).get('text', '')
	args = message.get('arguments', [])
	return re.sub(r'\{(\d+)\}', lambda m: args[int(m.group(1))]
		      if int(m.group(1)) < len(args) else m.group(0), template) or str(message)


def parse(log: dict) -> list[Problem]:
	"""The validator's own SARIF output, as problems."""
	found = []
	for run in log.get('runs', []):
		rules = {r['id']: r for r in run.get('tool', {}).get('driver', {}).get('rules', [])}
		for result in run.get('results', []):
			uri = ''
			for loc in result.get('locations', []):
				uri = loc.get('physicalLocation', {}).get('artifactLocation', {}).get('uri', '')
			rule = result.get('ruleId', '')
			found.append(Problem(result.get('level', 'warning'), rule,
					     rules.get(rule, {}).get('name', ''),
					     uri.removeprefix('file://'), _text(result, rules)))
	return found


def validate(runner: Runner, files: Sequence[Path]) -> Validation:
	"""Runs `Sarif.Multitool validate` on files, every level reported."""
	if not BINARY.is_file():
		raise EnvironmentProblem(f'the SARIF Multitool is not installed ({BINARY} is missing)',
					 'run `make deps`')
	result = Validation(files=list(files))
	if not files or runner.dry_run:
		return result
	with tempfile.TemporaryDirectory(prefix='sarif-validate-') as tmp:
		out = Path(tmp) / 'validation.sarif'
		run = runner.run(Command((str(BINARY), 'validate', *(str(f) for f in files),
					  '--output', str(out), '--level', 'Error;Warning;Note',
					  '--kind', 'Fail', '--log', 'ForceOverwrite', '--quiet'),
					 env={'DOTNET_CLI_TELEMETRY_OPTOUT': '1'}, mutates=False),
				 Output.CAPTURE, check=False)
		if not out.is_file():
			raise CommandFailed(run.command.shell_line(), run.returncode,
					    run.stderr or run.output,
					    'the SARIF Multitool did not run; reinstall it with `make deps`')
		found = parse(json.loads(out.read_text()))
	result.problems = [p for p in found if p.level in FAILING]
	result.notes = [p for p in found if p.level not in FAILING]
	return result


def sarif_files(root: Path) -> list[Path]:
	"""Every SARIF log under root."""
	return sorted(Path(d) / n for d, _, names in os.walk(root) for n in names
		      if n.endswith('.sarif'))
