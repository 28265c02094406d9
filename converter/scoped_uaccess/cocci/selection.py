# SPDX-License-Identifier: GPL-2.0
"""The files a check covers: every C file and header under the paths given
that uses the API, and every one that could not be read, by name.

A directory is walked whole: tracked, untracked and ignored files alike
(a new file is the one most likely to hold a new bug).  Only the metadata
of version control (.git, .hg, .svn) is left out, and symbolic links to
directories are not followed (their targets are walked where they lie
under the directory given).  In a git tree, git grep tells which tracked
files name the API (it is fast); every other file is read here.  A file
or directory that cannot be read, a link that leads nowhere and a FIFO
named .c are not skipped: they are listed, and a check that lists them
does not end clean.
"""

import errno
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from scoped_uaccess.cocci import api
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.kernel.git import git

SOURCE_SUFFIXES = ('.c', '.h')
SKIP_DIRS = frozenset({'.git', '.hg', '.svn'})


@dataclass
class Selection:
	files: list[Path] = field(default_factory=list)			# use the API
	unread: list[tuple[Path, str]] = field(default_factory=list)	# path, why not


def why(e: OSError) -> str:
	"""An OSError as a reason a file was not read."""
	if e.errno == errno.ELOOP:
		return 'unreadable: a loop of symbolic links'
	if e.errno == errno.ENOENT:
		return 'unreadable: a symbolic link to nothing'
	return f'unreadable: {e.strerror.lower() if e.strerror else e}'


def read_source(path: Path) -> str:
	"""A C file's text, whatever its bytes (line feeds stay where they are)."""
	with open(path, 'rb') as f:
		return f.read().decode('utf-8', errors='replace')


def select(runner: Runner, targets: Iterable[Path], names: tuple[str, ...] = ()) -> Selection:
	"""The files under targets that use the API (names, default api.words()),
	and those that could not be read."""
	pattern = re.compile(api.words_pattern(names))
	out = Selection()
	seen: set[tuple[int, int]] = set()

	def consider(path: Path, st: os.stat_result) -> None:
		if (st.st_dev, st.st_ino) in seen:
			return
		seen.add((st.st_dev, st.st_ino))
		if not stat.S_ISREG(st.st_mode):
			out.unread.append((path, 'not a regular file'))
			return
		try:
			text = read_source(path)
		except OSError as e:
			out.unread.append((path, why(e)))
			return
		if pattern.search(text):
			out.files.append(path)

	for target in targets:
		try:
			st = os.stat(target)
		except OSError as e:
			raise UsageError(f'{target}: {e.strerror or e}',
					 'give C files, headers or directories') from e
		if stat.S_ISDIR(st.st_mode):
			_walk(runner, target, pattern, names or api.words(), consider, out, seen)
		elif not target.name.endswith(SOURCE_SUFFIXES):
			raise UsageError(f'{target}: not a C source or header',
					 'give .c or .h files, or directories')
		else:
			consider(target, st)
	out.files.sort()
	out.unread.sort()
	return out


def _walk(runner: Runner, top: Path, pattern: re.Pattern, names: tuple[str, ...],
	  consider, out: Selection, seen: set) -> None:
	def unreadable_dir(e: OSError) -> None:
		out.unread.append((Path(e.filename), why(e) + ' (a directory)'))

	sources: list[Path] = []
	for dirpath, dirnames, filenames in os.walk(top, onerror=unreadable_dir):
		dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
		sources += [Path(dirpath) / n for n in sorted(filenames)
			    if n.endswith(SOURCE_SUFFIXES)]
	grepped = _git_grep(runner, top, names)
	for path in sources:
		try:
			st = os.stat(path)
		except OSError as e:
			out.unread.append((path, why(e)))
			continue
		if grepped is not None and path in grepped.tracked and path not in grepped.hits \
		   and stat.S_ISREG(st.st_mode) and os.access(path, os.R_OK):
			seen.add((st.st_dev, st.st_ino))	# git grep read it: no API
			continue
		consider(path, st)


@dataclass
class _Grep:
	tracked: set[Path]
	hits: set[Path]


def _git_grep(runner: Runner, top: Path, names: tuple[str, ...]) -> _Grep | None:
	"""The tracked files under top, and those of them git grep -F finds a
	name of the API in; None when top is not in a git work tree."""
	inside = runner.run(git(top, '--no-optional-locks', 'rev-parse', '--is-inside-work-tree'),
			    Output.CAPTURE, check=False)
	if inside.returncode != 0 or inside.output.strip() != 'true':
		return None
	listed = runner.run(git(top, '--no-optional-locks', 'ls-files', '-z', '--', '*.c', '*.h'),
			    Output.CAPTURE, check=False)
	words = [w for n in names for w in ('-e', n)]
	grep = runner.run(git(top, '--no-optional-locks', 'grep', '-l', '-z', '-F', *words,
			      '--', '*.c', '*.h'), Output.CAPTURE, check=False)
	if listed.returncode != 0 or grep.returncode not in (0, 1):
		return None
	return _Grep({top / n for n in listed.output.split('\0') if n},
		     {top / n for n in grep.output.split('\0') if n})
