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
take the comment before it along).  tidy() puts the lines a pass added
into kernel layout where spatch's printer does not: a `{` it opens after
`else` on the same line as the first statement, blank lines it copies
with their indentation, or twice; and it drops the #ifdef/#endif pair a
scope emptied (spatch moves statements, not directives).
"""

import contextlib
import difflib
import re

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional, Sequence

from scoped_uaccess.cocci import spatch
from scoped_uaccess.cocci.convert.regions import Region, parse_regions
from scoped_uaccess.core.command import Command, CommandResult, Output, Runner
from scoped_uaccess.core.errors import CommandFailed

# transformation name (as reported) -> the virtual rule of its pass
PASSES = (('invert-begin', 'invert_begin'), ('local-pointer', 'local_pointer'),
	  ('tail-out', 'tail_out'), ('cursor', 'cursor'), ('rederive', 'rederive'),
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
					before = (wt / name).read_text(errors='replace')
					_run(runner, command(rules, name, wt, variant, env, virtual=virtual))
					tidy(wt / name, before)
					done.passes.append(virtual)
			before = (wt / name).read_text(errors='replace')
			_run(runner, command(rules, name, wt, variant, env))
			tidy(wt / name, before)
			done.passes.append('scopes')
		if runner.dry_run:
			break
		drop_lone_semicolons(wt / name)
		left = [r for r in census(runner, rules, wt, name, env) if not r.skipped]
		if not left:
			break
		wanted = {t for r in left for t in r.transformations}
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


def tidy(path: Path, before: str) -> None:
	"""Kernel layout for the lines a pass inserted (the others stay as
	they were)."""
	old = before.split('\n')
	new = path.read_text(errors='replace').split('\n')
	out: list[str] = []
	for op, _, _, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
		if op == 'equal':
			out.extend(new[j1:j2])
			continue
		for line in new[j1:j2]:
			m = re.match(r'^(\t*)(\} else \{|else \{)(\S.*)$', line)
			if m:
				out.extend([m.group(1) + m.group(2), m.group(1) + '\t' + m.group(3)])
			elif not line.strip():
				if out and not out[-1].strip():
					continue
				out.append('')
			else:
				out.append(line)
	# A conditional block whose statements moved into a scope stays behind
	# empty (spatch moves statements, not directives).
	i = 0
	while i + 1 < len(out):
		pair = out[i] + '\n' + out[i + 1]
		if re.match(r'^\s*#\s*if', out[i]) and re.match(r'^\s*#\s*endif', out[i + 1]) \
		   and pair not in before:
			del out[i:i + 2]
		else:
			i += 1
	if out != new:
		path.write_text('\n'.join(out))


# ---- syscall headers ---------------------------------------------------------
# spatch parses a function under SYSCALL_DEFINEn() only in its recovery
# passes, which also expand the file's own statement macros: a region
# using one (powerpc's unsafe_setup_sigcontext()) has a statement spatch
# places in the #define and cannot move.  For the passes, the header is
# written as the function it declares, line for line, and put back after.

SYSCALL_HEADER = re.compile(r'^(COMPAT_)?SYSCALL_DEFINE(\d)\(', re.MULTILINE)


def plain_headers(path: Path) -> list[tuple[str, str]]:
	"""Rewrites the file's syscall headers; (written, original) pairs for
	restore_headers()."""
	text = path.read_text(errors='replace')
	pairs, out, last = [], [], 0
	for m in SYSCALL_HEADER.finditer(text):
		close = _closing_paren(text, m.end() - 1)
		if close is None:
			continue
		args = spatch_args(text[m.end():close])
		if len(args) != 1 + 2 * int(m.group(2)):
			continue
		name = args[0].strip()
		prefix = 'compat_sys_' if m.group(1) else 'sys_'
		params = []
		for i in range(1, len(args), 2):
			params.append(args[i].rstrip() + ('' if args[i].rstrip().endswith('*') else ' ') +
				      args[i + 1].lstrip(' '))
		plain = f'long {prefix}{name}(' + (','.join(params) if params else 'void') + ')'
		original = text[m.start():close + 1]
		if plain.count('\n') != original.count('\n') or plain in text:
			continue
		out.append(text[last:m.start()] + plain)
		last = close + 1
		pairs.append((plain, original))
	if pairs:
		path.write_text(''.join(out) + text[last:])
	return pairs


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
