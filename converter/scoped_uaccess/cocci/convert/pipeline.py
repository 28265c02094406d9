# SPDX-License-Identifier: GPL-2.0
"""The spatch passes over one file: the census, each transformation, the scopes.

    report                       the census: one REGION line per begin
    -D patch -D local_pointer    ...one pass per transformation the census
    -D patch -D cursor              asks for, in this order, each on the file
    -D patch -D rederive            the previous pass wrote
    -D patch -D range_check
    -D patch -D label
    -D patch                     the scopes

A scope's body that does not end in a statement (a comment, #endif, a
block) leaves the `;` of the scope rule on a line of its own in the
block; drop_lone_semicolons() removes it (an SmPL rule removing it would
take the comment before it along).
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from scoped_uaccess.cocci import spatch
from scoped_uaccess.cocci.convert.regions import Region, parse_regions
from scoped_uaccess.core.command import Command, CommandResult, Output, Runner
from scoped_uaccess.core.errors import CommandFailed

# transformation name (as reported) -> the virtual rule of its pass
PASSES = (('invert-begin', 'invert_begin'), ('local-pointer', 'local_pointer'), ('cursor', 'cursor'), ('rederive', 'rederive'),
	  ('range-check', 'range_check'), ('label', 'label'))


@dataclass(frozen=True)
class Environment:
	"""What the rules read from the environment (passes.py)."""
	inlines: Optional[Path] = None
	masking: tuple[str, ...] = ('x86',)
	exclude: tuple[str, ...] = ()		# file:function:index

	def as_dict(self) -> dict[str, str]:
		env = {'SCOPED_UACCESS_MASKING': ','.join(self.masking)}
		if self.inlines is not None:
			env['SCOPED_UACCESS_INLINES'] = str(self.inlines)
		if self.exclude:
			env['SCOPED_UACCESS_EXCLUDE'] = ','.join(self.exclude)
		return env


@dataclass
class FileRun:
	"""What the passes did to one file."""
	name: str
	passes: list[str] = field(default_factory=list)


def command(rules: Path, name: str, wt: Path, variant: Sequence[str], env: Environment,
	    report: bool = False, virtual: str = '') -> Command:
	base = spatch.command(rules, 'report' if report else 'patch', name, wt, variant,
			      in_place=not report, extra=(('-D', virtual) if virtual else ()))
	argv = base.argv
	if virtual:
		# The transformations write declarations with types bound from the
		# code, which --smpl-spacing pads with blanks; it is for the scope
		# line only.
		argv = tuple(a for a in argv if a != '--smpl-spacing')
	return Command(argv, cwd=base.cwd, env={**base.env, **env.as_dict()},
		       mutates=base.mutates)


def _run(runner: Runner, cmd: Command) -> CommandResult:
	run = runner.run(cmd, Output.CAPTURE, check=False)
	if run.returncode != 0 or 'Python failure' in run.stderr or 'Traceback' in run.stderr:
		raise CommandFailed(cmd.shell_line(), run.returncode or 1, run.stderr or run.output,
				    'the conversion rules or spatch failed; rerun the command')
	return run


def census(runner: Runner, rules: Path, wt: Path, name: str, env: Environment) -> list[Region]:
	"""Report mode on every parse variant of the file."""
	found: set[Region] = set()
	for variant in spatch.parse_variants(name):
		found.update(parse_regions(_run(runner, command(rules, name, wt, variant, env,
								report=True)).output))
	return sorted(found)


def rewrite(runner: Runner, rules: Path, wt: Path, name: str, regions: list[Region],
	    env: Environment) -> FileRun:
	"""The passes the regions ask for, then the scopes, in place in wt.  A
	transformation may show that another one is needed (a begin tested
	positively turns out to need its range checked once inverted): the
	census after the scopes asks for it, and the passes run again, at
	most twice."""
	done = FileRun(name)
	wanted = {t for r in regions for t in r.transformations}
	for _ in range(3):
		for variant in spatch.parse_variants(name):
			for transformation, virtual in PASSES:
				if transformation in wanted:
					_run(runner, command(rules, name, wt, variant, env, virtual=virtual))
					done.passes.append(virtual)
			_run(runner, command(rules, name, wt, variant, env))
			done.passes.append('scopes')
		if runner.dry_run:
			break
		drop_lone_semicolons(wt / name)
		wanted = {t for r in census(runner, rules, wt, name, env) for t in r.transformations}
		if not wanted:
			break
	return done


def drop_lone_semicolons(path: Path) -> None:
	"""Removes a line holding only `;` that closes a scope's block."""
	lines = path.read_text(errors='replace').split('\n')
	out = [line for i, line in enumerate(lines)
	       if not (line.strip() == ';' and i + 1 < len(lines)
		       and lines[i + 1].strip() == '}'
		       and len(lines[i + 1]) - len(lines[i + 1].lstrip('\t')) ==
		       len(line) - len(line.lstrip('\t')) - 1)]
	if len(out) != len(lines):
		path.write_text('\n'.join(out))
