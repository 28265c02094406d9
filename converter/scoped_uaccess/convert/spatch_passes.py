# SPDX-License-Identifier: GPL-2.0
"""The spatch passes over one file: the census, each transformation, the scopes.

    report                       the census: one REGION line per begin
    -D patch -D <transformation> one pass per transformation the census asks
                                 for, in the order of model.TRANSFORMATIONS,
                                 each on the file the previous pass wrote
                                 (the virtual rule: the name with '_' for '-')
    -D patch                     the scopes

The layout and clean-ups after each pass are tidy.py's.
"""

import contextlib
import re

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional, Sequence

from scoped_uaccess.cocci import spatch
from scoped_uaccess.analysis import declarations
from scoped_uaccess.analysis.model import TRANSFORMATIONS
from scoped_uaccess.convert.notes import Note
from scoped_uaccess.convert.tidy import drop_lone_semicolons, tidy
from scoped_uaccess.convert.regions import CensusRegion, parse_regions
from scoped_uaccess.core.command import Command, CommandResult, Output, Runner
from scoped_uaccess.core.errors import CommandFailed

# transformation name (as reported) -> the virtual rule of its pass
PASSES = tuple((t, t.replace('-', '_')) for t in TRANSFORMATIONS)


@dataclass(frozen=True)
class Environment:
	"""What the rules read from the environment (hooks.py)."""
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
	# What tidy() did beyond layout, for the changelog.
	notes: list[Note] = field(default_factory=list)


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


# One spatch run per pass and file, no parse variants (the checker's
# --defined/--undefined runs, spatch.PARSE_VARIANTS): with one side of an
# #ifdef left out, spatch neither removes nor sees the statements on the
# other side, which a scope must take along.  The header pair that made
# the variants necessary is written as one plain header for the passes
# (plain_headers()).
NO_VARIANT: tuple[str, ...] = ()


def census(runner: Runner, rules: Path, wt: Path, name: str, env: Environment) -> list[CensusRegion]:
	"""Report mode: one REGION line per begin of the file."""
	return parse_regions(_run(runner, command(rules, name, wt, NO_VARIANT, env,
						  report=True)).output)


def rewrite(runner: Runner, rules: Path, wt: Path, name: str, regions: list[CensusRegion],
	    env: Environment) -> FileRun:
	"""The passes the regions ask for, then the scopes, in place in wt.  A
	transformation may show that another one is needed (a begin tested
	positively turns out to need its range checked once inverted): the
	census after the scopes asks for it, and the passes run again, at
	most twice."""
	done = FileRun(name)
	wanted = {t for r in regions for t in r.transformations}
	for _ in range(3):
		for transformation, virtual in PASSES:
			if transformation in wanted:
				before = (wt / name).read_text(errors='replace')
				_run(runner, command(rules, name, wt, NO_VARIANT, env, virtual=virtual))
				done.notes += tidy(wt / name, before)
				done.passes.append(virtual)
		before = (wt / name).read_text(errors='replace')
		_run(runner, command(rules, name, wt, NO_VARIANT, env))
		done.notes += tidy(wt / name, before)
		done.passes.append('scopes')
		if runner.dry_run:
			break
		drop_lone_semicolons(wt / name)
		text = (wt / name).read_text(errors='replace')
		if (tidied := declarations.scope_locals(text)) != text:
			(wt / name).write_text(tidied)
		left = [r for r in census(runner, rules, wt, name, env) if not r.skipped]
		if not left:
			break
		wanted = {t for r in left for t in r.transformations}
	return done


SYSCALL_HEADER = re.compile(r'^(COMPAT_)?SYSCALL_DEFINE(\d)\(', re.MULTILINE)


def plain_headers(path: Path) -> list[tuple[str, str]]:
	"""Rewrites the file's syscall headers; (written, original) pairs for
	restore_headers().  Two headers for one body under #ifdef/#else (the
	native and the compat system call) become the first one, followed by
	blank lines: spatch then parses the body once, without choosing a
	side of the #ifdef."""
	text = path.read_text(errors='replace')
	pairs, out, last = [], [], 0
	for m in SYSCALL_HEADER.finditer(text):
		if m.start() < last:
			continue
		header = _plain_header(text, m)
		if header is None:
			continue
		plain, close = header
		start, end = m.start(), close + 1
		# #ifdef X / header / #else / header / #endif: one header
		before = text.rfind('\n', 0, max(m.start() - 1, 0)) + 1
		if re.match(r'#\s*if', text[before:m.start()]):
			other = re.compile(r'\n#\s*else\n').match(text, end)
			second = other and SYSCALL_HEADER.match(text, other.end())
			close2 = second and _plain_header(text, second)
			endif = close2 and re.compile(r'\n#\s*endif[^\n]*').match(text, close2[1] + 1)
			if endif:
				start, end = before, endif.end()
				plain += '\n' * (text[start:end].count('\n') - plain.count('\n'))
		original = text[start:end]
		if plain.count('\n') != original.count('\n') or plain in text:
			continue
		out.append(text[last:start] + plain)
		last = end
		pairs.append((plain, original))
	if pairs:
		path.write_text(''.join(out) + text[last:])
	return pairs


def _plain_header(text: str, m: re.Match) -> Optional[tuple[str, int]]:
	"""The plain function header for the SYSCALL_DEFINEn( at m, and where
	the macro call closes; None when the arguments do not fit n."""
	close = _closing_paren(text, m.end() - 1)
	if close is None:
		return None
	args = spatch_args(text[m.end():close])
	if len(args) != 1 + 2 * int(m.group(2)):
		return None
	prefix = 'compat_sys_' if m.group(1) else 'sys_'
	params = [args[i].rstrip() + ('' if args[i].rstrip().endswith('*') else ' ') +
		  args[i + 1].lstrip(' ') for i in range(1, len(args), 2)]
	return (f'long {prefix}{args[0].strip()}(' + (','.join(params) if params else 'void') + ')',
		close)


@contextlib.contextmanager
def plain_syscall_headers(path: Path, dry_run: bool = False) -> Iterator[None]:
	"""The file with plain function headers while the block runs."""
	pairs = [] if dry_run else plain_headers(path)
	try:
		yield
	finally:
		if pairs:
			restore_headers(path, pairs)


def restore_headers(path: Path, pairs: list[tuple[str, str]]) -> None:
	text = path.read_text(errors='replace')
	for plain, original in pairs:
		text = text.replace(plain, original, 1)
	path.write_text(text)


def _closing_paren(text: str, i: int) -> Optional[int]:
	depth = 0
	for j in range(i, min(len(text), i + 2000)):
		if text[j] == '(':
			depth += 1
		elif text[j] == ')':
			depth -= 1
			if depth == 0:
				return j
	return None


def spatch_args(text: str) -> list[str]:
	"""Top-level comma-separated parts, whitespace kept."""
	parts, depth, cur = [], 0, ''
	for ch in text:
		if ch == ',' and depth == 0:
			parts.append(cur)
			cur = ''
			continue
		depth += ch in '(['
		depth -= ch in ')]'
		cur += ch
	parts.append(cur)
	return parts
