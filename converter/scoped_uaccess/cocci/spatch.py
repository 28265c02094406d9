# SPDX-License-Identifier: GPL-2.0
"""spatch: its command lines, the files it is given, and what it could not parse."""

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Sequence

from scoped_uaccess.cocci import api
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem, UsageError
from scoped_uaccess.kernel.git import git

SPATCH = 'spatch'
# The interpreter of the scripts' Python.  spatch asks `python3` on PATH
# where its library is, at every start; a pyenv shim there costs about two
# seconds a run.  Debian's, as the CLI's own (#!/usr/bin/python3).
PYTHON = '/usr/bin/python3'
COCCI_DIR = paths.REPO / 'cocci'
# Parsing hints coccicheck does not have: COMPAT_SYSCALL_DEFINEn().
MACROS = COCCI_DIR / 'kernel-macros.h'
SOURCE_SUFFIXES = ('.c', '.h')
# Uses of the API that a parse failure would hide, accessors included.
_API_USE = re.compile(r'\b(' + '|'.join(api.words()) +
		      r'|get_user_inline|put_user_inline|unsafe_[a-z0-9_]+)\s*\(')

def uses_api(text: str) -> bool:
	"""Whether C text calls the API: a begin, end, scope or accessor."""
	return _API_USE.search(text) is not None


# Files whose functions spatch can only parse with one side of an #ifdef
# chosen: both sides are checked, one run each, and the results merged.
# arch/powerpc/kernel/signal_32.c: swapcontext() has a COMPAT_SYSCALL_DEFINE3
# and a SYSCALL_DEFINE3 header under #ifdef CONFIG_PPC64 for one body.
PARSE_VARIANTS: dict[str, tuple[tuple[str, ...], ...]] = {
	'arch/powerpc/kernel/signal_32.c': (('--defined', 'CONFIG_PPC64'),
					    ('--undefined', 'CONFIG_PPC64')),
}


def options(cocci: Path) -> list[str]:
	"""The `// Options:` of a script, as coccicheck passes them."""
	try:
		text = cocci.read_text()
	except OSError as e:
		raise EnvironmentProblem(f'cannot read {cocci}: {e.strerror}') from e
	for line in text.splitlines():
		if line.startswith('// Options:'):
			return line.split(':', 1)[1].split()
	return []


def version(runner: Runner) -> str:
	result = runner.run(Command((SPATCH, '--version'), mutates=False), Output.CAPTURE,
			    fix='install coccinelle (make deps)')
	first = result.output.splitlines()[0] if result.output else ''
	match = re.search(r'version (\S+)', first)
	return match.group(1) if match else first


def parse_variants(name: str) -> tuple[tuple[str, ...], ...]:
	"""The spatch runs a file needs: a kernel path matches at any depth."""
	for path, variants in PARSE_VARIANTS.items():
		if name == path or name.endswith('/' + path):
			return variants
	return ((),)


def command(cocci: Path, mode: str, file: str, cwd: Path, variant: Sequence[str] = (),
	    in_place: bool = False, timeout: Optional[int] = None,
	    extra: Sequence[str] = (), inlines: Optional[Path] = None) -> Command:
	"""spatch in mode (report, patch) on one file: one file per run, so that
	its parse messages on stderr belong to that file.  in_place rewrites
	the file (marked mutating, so --dry-run shows it without the minutes
	spatch takes); timeout wraps the run in timeout(1); inlines names the
	tree's header inline index for the scripts that read it."""
	hints = ('--macro-file', str(MACROS)) if MACROS.is_file() else ()
	argv = [SPATCH, '--python', PYTHON, '-D', mode, '--no-show-diff', *extra,
		'--sp-file', str(cocci), *options(cocci), *hints, *variant,
		*(('--in-place',) if in_place else ()), file]
	if timeout:
		argv = ['timeout', str(timeout), *argv]
	# The conversion rules import their Python from the package.
	env = {'PYTHONPATH': str(paths.REPO / 'converter')}
	if inlines:
		env['SCOPED_UACCESS_INLINES'] = str(inlines)
	return Command(tuple(argv), cwd=cwd, env=env, mutates=in_place)


def timed_out(returncode: int, output: str) -> bool:
	"""timeout(1)'s status, or spatch's own --timeout."""
	return returncode == 124 or 'Common.Timeout' in output


def find_files(runner: Runner, targets: Iterable[Path],
	       names: tuple[str, ...] = ()) -> list[Path]:
	"""The C files and headers under targets that use the API (names,
	default api.words())."""
	found: list[Path] = []
	for target in targets:
		if target.is_file():
			if not target.name.endswith(SOURCE_SUFFIXES):
				raise UsageError(f'{target}: not a C source or header')
			# a named file that calls nothing of the API has nothing to check
			if uses_api(target.read_text(errors='replace')):
				found.append(target)
		elif target.is_dir():
			found += _files_using(runner, target, names or api.words())
		else:
			raise UsageError(f'{target}: no such file or directory')
	return sorted(set(found))


def _files_using(runner: Runner, directory: Path, names: tuple[str, ...]) -> list[Path]:
	pattern = re.compile(api.words_pattern(names))
	# git grep -F is fast on a kernel tree (a regex one takes ten times
	# longer); the exact words are checked after it.  Plain directories
	# are walked.
	if (directory / '.git').exists():
		words = [w for n in names for w in ('-e', n)]
		result = runner.run(git(directory, '--no-optional-locks', 'grep', '-l', '-F', *words,
					'--', '*.c', '*.h'), Output.CAPTURE, check=False)
		if result.returncode in (0, 1):
			return [directory / name for name in result.output.splitlines()
				if name and pattern.search((directory / name).read_text(errors='replace'))]
	found = []
	for dirpath, dirnames, filenames in os.walk(directory):
		dirnames[:] = sorted(d for d in dirnames if not d.startswith('.'))
		for name in sorted(filenames):
			if name.endswith(SOURCE_SUFFIXES):
				path = Path(dirpath) / name
				try:
					if pattern.search(path.read_text(errors='replace')):
						found.append(path)
				except OSError:
					continue
	return found


# ---- what spatch could not parse -------------------------------------------

def digest(text: str) -> str:
	"""A short stable hash for ids."""
	return hashlib.sha1(text.encode()).hexdigest()[:12]


@dataclass(frozen=True, order=True)
class ParseFailure:
	"""Lines spatch could not parse that use the API: they were not checked."""
	file: str
	line: int		# first line that uses the API
	first: int		# the lines spatch gave up on
	last: int
	uses: tuple[str, ...]	# the API names used there

	@property
	def id(self) -> str:
		return 'parse-' + digest(f'{self.file}\0{" ".join(self.uses)}')

	def text(self) -> str:
		return (f'{self.file}:{self.line}:0-0: ERROR: [parse-error] spatch cannot parse '
			f'lines {self.first}-{self.last}, which use {", ".join(self.uses)}: '
			'not checked')

	def as_dict(self) -> dict:
		return {'id': self.id, 'file': self.file, 'line': self.line, 'first': self.first,
			'last': self.last, 'uses': list(self.uses)}


def _code_lines(source: list[str]) -> list[str]:
	"""The source with comments and preprocessor lines blanked, line for line."""
	out, in_comment, in_define = [], False, False
	for raw in source:
		line, text = raw, ''
		i = 0
		if in_define:
			in_define = line.rstrip().endswith('\\')
			out.append('')
			continue
		if line.lstrip().startswith('#') and not in_comment:
			in_define = line.rstrip().endswith('\\')
			out.append('')
			continue
		while i < len(line):
			if in_comment:
				end = line.find('*/', i)
				if end < 0:
					i = len(line)
				else:
					in_comment, i = False, end + 2
			elif line.startswith('/*', i):
				in_comment, i = True, i + 2
			elif line.startswith('//', i):
				break
			else:
				text += line[i]
				i += 1
		out.append(text)
	return out


def parse_failures(stderr: str, file: str, source: list[str]) -> list[ParseFailure]:
	"""Blocks spatch gave up on (`badcount: N` and N `bad:` lines after the
	error position, with --verbose-parsing) that use the API outside
	comments and macro bodies."""
	lines = stderr.splitlines()
	code = _code_lines(source)
	failures = []
	error_line = None
	i = 0
	while i < len(lines):
		m = re.match(r'^\s*=\s*File "(?P<file>[^"]+)", line (?P<line>\d+)', lines[i])
		if m:
			error_line = int(m['line'])
		m = re.match(r'^badcount: (\d+)$', lines[i])
		if m and error_line is not None:
			count = int(m.group(1))
			block = lines[i + 1:i + 1 + count]
			marks = [k for k, b in enumerate(block) if b.startswith('BAD:!!!!!')]
			at = marks[0] if marks else len(block) - 1
			first = max(1, error_line - at)
			last = min(len(source), first + len(block) - 1)
			uses = []
			api_lines = []
			for n in range(first, last + 1):
				found = _API_USE.findall(code[n - 1]) if n - 1 < len(code) else []
				if found:
					api_lines.append(n)
					uses += [u for u in found if u not in uses]
			if uses:
				failures.append(ParseFailure(file, api_lines[0], first, last,
							     tuple(sorted(uses))))
			i += 1 + count
			error_line = None
			continue
		i += 1
	return sorted(set(failures))
