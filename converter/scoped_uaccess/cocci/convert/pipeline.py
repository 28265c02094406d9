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
from scoped_uaccess.cocci.convert import declarations, source
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


# One spatch run per pass and file, no parse variants (the checker's
# --defined/--undefined runs, spatch.PARSE_VARIANTS): with one side of an
# #ifdef left out, spatch neither removes nor sees the statements on the
# other side, which a scope must take along.  The header pair that made
# the variants necessary is written as one plain header for the passes
# (plain_headers()).
NO_VARIANT: tuple[str, ...] = ()


def census(runner: Runner, rules: Path, wt: Path, name: str, env: Environment) -> list[Region]:
	"""Report mode: one REGION line per begin of the file."""
	return parse_regions(_run(runner, command(rules, name, wt, NO_VARIANT, env,
						  report=True)).output)


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
		for transformation, virtual in PASSES:
			if transformation in wanted:
				before = (wt / name).read_text(errors='replace')
				_run(runner, command(rules, name, wt, NO_VARIANT, env, virtual=virtual))
				tidy(wt / name, before)
				done.passes.append(virtual)
		before = (wt / name).read_text(errors='replace')
		_run(runner, command(rules, name, wt, NO_VARIANT, env))
		tidy(wt / name, before)
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
	ops = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
	out: list[str] = []
	for op, _, _, j1, j2 in ops:
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
			elif re.match(r'^\s+#\s*(?:if|ifdef|ifndef|elif|else|endif)\b', line) and \
			     not (out and out[-1].rstrip().endswith('\\')):
				# spatch indents a directive it moves like code: the
				# kernel keeps them in column 0.
				out.append(line.lstrip(' \t'))
			elif line.strip() == '{}' and _after_statement(out):
				# spatch leaves an empty block where it removed the
				# statements in front of a do-while that a scope took.
				continue
			else:
				# spatch indents what it adds like the statement before
				# it, spaces included: the kernel indents with tabs.
				m = re.match(r'^(\t*)((?: {8})+)(\S.*)$', line)
				out.append(m.group(1) + '\t' * (len(m.group(2)) // 8) + m.group(3) if m else line)
	out = _drop_orphans(out, before)
	out = _merge_tail_return(out, before)
	out = _fold_known_test(out, before)
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


def _added_label(line: str, before: str) -> bool:
	"""Whether line is a label (`name:`) that the file did not have before."""
	return bool(re.match(r'^[A-Za-z_]\w*:$', line)) and \
		not re.search(rf'^{re.escape(line)}', before, re.M)


def _merge_tail_return(lines: list[str], before: str) -> list[str]:
	"""`return E;` then a fault label the conversion added whose code is
	the same `return E;`: the scope falls through into the label instead
	(the same statement runs on both paths)."""
	out = list(lines)
	i = 0
	while i + 2 < len(out):
		ret, label, tail = out[i:i + 3]
		if re.match(r'^\t+return\b[^;]*;$', ret) and ret == tail and \
		   _added_label(label, before):
			del out[i]
		else:
			i += 1
	return out


def _fold_known_test(lines: list[str], before: str) -> list[str]:
	"""Under a fault label the conversion added, `err = -EFOO;` then
	`if (err) S;` (the function's tail, copied behind the label): the test
	is always true there, so S stays and the test goes."""
	out = list(lines)
	label_added = False
	i = 0
	while i + 2 < len(out):
		line = out[i]
		if re.match(r'^[A-Za-z_]\w*:$', line):
			label_added = _added_label(line, before)
		elif line.startswith('}'):
			label_added = False
		m = re.match(r'^(\t+)([A-Za-z_]\w*) = -E[A-Z0-9]+;$', line)
		if label_added and m:
			ind, var = m.groups()
			body = out[i + 2]
			rest = out[i + 3] if i + 3 < len(out) else ''
			if out[i + 1] == f'{ind}if ({var})' and re.match(rf'^{ind}\t\S.*;$', body) \
			   and not rest.startswith(ind + '\t') and not rest.startswith(ind + 'else'):
				out[i + 1:i + 3] = [ind + body[len(ind) + 1:]]
		i += 1
	return out


def _after_statement(out: list[str]) -> bool:
	"""Whether the last non-blank line of out ends a statement or opens or
	closes a block (so a `{}` after it is a statement of its own, not the
	body of an if or a loop)."""
	last = next((line for line in reversed(out) if line.strip()), '')
	return bool(re.search(r"[;{}]\s*$", source.strip_comments(last)))


SCOPE_HEAD = re.compile(r'^\t*scoped_user_(?:read|write|rw)_access(?:_size)?\(.*\{$')


def _drop_orphans(lines: list[str], before: str) -> list[str]:
	"""Comments and directives of a region that spatch left in front of
	the scope that now holds them: spatch removes statements, and what
	lay between them stays.  Above each new scope, the run of comment,
	directive and blank lines whose text the scope's block repeats goes,
	if its conditionals balance."""
	old = set(before.split('\n'))
	code = source.blank_comments('\n'.join(lines)).split('\n')
	drop: set[int] = set()
	for h, line in enumerate(lines):
		if not SCOPE_HEAD.match(line) or line in old:
			continue
		close = _block_end(lines, h)
		if close is None:
			continue
		inside = {x.strip() for x in lines[h + 1:close]}
		run: list[int] = []
		i = h - 1
		while i >= 0:
			if not lines[i].strip():
				run.append(i)
				i -= 1
				continue
			if code[i].lstrip().startswith('#') and lines[i].strip() in inside:
				run.append(i)
				i -= 1
				continue
			# a comment goes whole or not at all
			start = _comment_start(lines, code, i)
			if start is None or any(lines[j].strip() not in inside for j in range(start, i + 1)):
				break
			run.extend(range(i, start - 1, -1))
			i = start - 1
		while run and not lines[run[-1]].strip():
			run.pop()
		text = [lines[j] for j in run]
		opened = sum(bool(re.match(r'^\s*#\s*if', t)) for t in text)
		closed = sum(bool(re.match(r'^\s*#\s*endif', t)) for t in text)
		if any(t.strip() for t in text) and opened == closed:
			drop.update(run)
	return [line for j, line in enumerate(lines) if j not in drop]


def _comment_start(lines: list[str], code: list[str], end: int) -> Optional[int]:
	"""The first line of the comment that ends on line end and holds
	nothing but comment from its start; None if line end is not that."""
	if code[end].strip() or not lines[end].rstrip().endswith('*/'):
		return None
	for j in range(end, max(end - 50, -1), -1):
		if code[j].strip():
			return None
		if lines[j].lstrip().startswith('/*'):
			return j
	return None


def _block_end(lines: list[str], head: int) -> Optional[int]:
	"""The line of the brace that closes the block opened at the end of
	lines[head], by indentation."""
	tabs = len(lines[head]) - len(lines[head].lstrip('\t'))
	for j in range(head + 1, len(lines)):
		if lines[j] == '\t' * tabs + '}':
			return j
	return None


# ---- syscall headers ---------------------------------------------------------
# spatch parses a function under SYSCALL_DEFINEn() only in its recovery
# passes, which also expand the file's own statement macros: a region
# using one (powerpc's unsafe_setup_sigcontext()) has a statement spatch
# places in the #define and cannot move.  For the passes, the header is
# written as the function it declares, line for line, and put back after.

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
