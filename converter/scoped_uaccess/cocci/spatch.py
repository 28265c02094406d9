# SPDX-License-Identifier: GPL-2.0
"""spatch: its command lines, the files it is given, and what it could not parse."""

import re
from pathlib import Path
from typing import Iterable, Optional, Sequence

from scoped_uaccess.cocci import selection, unparsed
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem

SPATCH = 'spatch'
# The interpreter of the scripts' Python.  spatch asks `python3` on PATH
# where its library is, at every start; a pyenv shim there costs about two
# seconds a run.  Debian's, as the CLI's own (#!/usr/bin/python3).
PYTHON = '/usr/bin/python3'
COCCI_DIR = paths.REPO / 'cocci'
# Parsing hints coccicheck does not have: COMPAT_SYSCALL_DEFINEn().
MACROS = COCCI_DIR / 'kernel-macros.h'
SOURCE_SUFFIXES = selection.SOURCE_SUFFIXES
# What spatch could not parse, and the test of a file's use of the API,
# live in unparsed.py; these names stay importable from here.
uses_api = unparsed.uses_api
digest = unparsed.digest
ParseFailure = unparsed.ParseFailure
parse_failures = unparsed.parse_failures


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
	default api.words()); selection.select() also says which could not
	be read."""
	return selection.select(runner, targets, names).files
