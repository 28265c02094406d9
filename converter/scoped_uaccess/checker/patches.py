# SPDX-License-Identifier: GPL-2.0
"""Patches to review: read from files, an mbox or standard input, and applied
in a scratch object store, never in the user's repository.

`check --patch` takes what `git format-patch` writes: one file per patch,
one mbox of a whole series (`--stdout`), or either on standard input
(`-`).  The series applies on the commit its `base-commit:` line names
(format-patch --base), else on the HEAD of the tree.  Each patch is applied
with `git apply --cached` to an index file of the run's own, and committed
with `git commit-tree`; the objects go to an object directory of the run
that borrows the tree's as an alternate (GIT_OBJECT_DIRECTORY,
GIT_ALTERNATE_OBJECT_DIRECTORIES).  So nothing is written to the user's
.git, no worktree is registered, two runs never share anything, and the
scratch directory goes when the run ends.
"""

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import CommandFailed, UsageError
from scoped_uaccess.kernel.git import git

STDIN = '-'
# An mbox message starts at a `From ` line; format-patch's carry a commit id.
_FROM = re.compile(rb'^From \S+ .*\d{4}$', re.M)
_SUBJECT = re.compile(r'^Subject:[ \t]*(.*(?:\n[ \t]+.*)*)', re.M)
_BASE = re.compile(r'^base-commit: ([0-9a-f]{7,64})\s*$', re.M)
_DIFF = re.compile(r'^(?:diff --git |--- \S)', re.M)
# What the review's commits say of their author: they are never pushed.
IDENTITY = {'GIT_AUTHOR_NAME': 'scoped-uaccess review',
	    'GIT_AUTHOR_EMAIL': 'review@scoped-uaccess.invalid',
	    'GIT_COMMITTER_NAME': 'scoped-uaccess review',
	    'GIT_COMMITTER_EMAIL': 'review@scoped-uaccess.invalid'}


@dataclass(frozen=True)
class Patch:
	number: int
	total: int
	source: str		# the file it came from, or `standard input`
	subject: str
	text: bytes
	base: str = ''		# the base-commit it names

	@property
	def label(self) -> str:
		return f'patch {self.number}/{self.total} ({self.source}): {self.subject}'


def _messages(data: bytes) -> list[bytes]:
	"""An mbox's messages; a file that is not one is one message."""
	starts = [m.start() for m in _FROM.finditer(data)]
	if not starts:
		return [data]
	if starts[0] != 0 and data[:starts[0]].strip():
		starts.insert(0, 0)
	return [data[a:b] for a, b in zip(starts, starts[1:] + [len(data)])]


def _subject(text: str) -> str:
	m = _SUBJECT.search(text)
	if not m:
		return '(no subject)'
	subject = ' '.join(m.group(1).split())
	return re.sub(r'^\[[^]]*PATCH[^]]*\]\s*', '', subject)


def read(sources: Sequence[str]) -> list[Patch]:
	"""The patches of the files (or `-`) in order; the cover letter of a
	series (no diff) gives its base-commit only."""
	found: list[tuple[str, bytes]] = []
	for source in sources:
		if source == STDIN:
			data, name = sys.stdin.buffer.read(), 'standard input'
		else:
			try:
				data, name = Path(source).read_bytes(), Path(source).name
			except OSError as e:
				raise UsageError(f'--patch {source}: {e.strerror}',
						 'give patch files, an mbox, or - for standard input') from e
		found += [(name, m) for m in _messages(data)]
	base = ''
	kept = []
	for name, message in found:
		text = message.decode('utf-8', errors='replace')
		m = _BASE.search(text)
		base = base or (m.group(1) if m else '')
		if _DIFF.search(text):
			kept.append((name, text, message))
		elif not _SUBJECT.search(text):
			raise UsageError(f'--patch {name}: not a patch (no diff in it)',
					 'give what git format-patch writes')
	if not kept:
		raise UsageError('--patch: no patch with a diff in what was given',
				 'give what git format-patch writes')
	return [Patch(n, len(kept), name, _subject(text), message, base)
		for n, (name, text, message) in enumerate(kept, 1)]


def overlay(runner: Runner, tree: Path, scratch: Path) -> dict[str, str]:
	"""The environment of git commands whose new objects go to scratch, with
	the tree's objects borrowed: the tree is only read."""
	objects = runner.run(git(tree, 'rev-parse', '--path-format=absolute', '--git-path', 'objects'),
			     Output.CAPTURE).output.strip()
	mine = scratch / 'objects'
	(mine / 'info').mkdir(parents=True, exist_ok=True)
	(mine / 'pack').mkdir(exist_ok=True)
	return {'GIT_OBJECT_DIRECTORY': str(mine), 'GIT_ALTERNATE_OBJECT_DIRECTORIES': objects}


def apply(runner: Runner, tree: Path, series: Sequence[Patch], base: str,
	  env: Mapping[str, str], scratch: Path) -> list[str]:
	"""The commits the patches make, one after the other, on base."""
	index = {**env, **IDENTITY, 'GIT_INDEX_FILE': str(scratch / 'index')}
	runner.run(git(tree, 'read-tree', base, env=index), Output.CAPTURE)
	commits, parent = [], base
	for patch in series:
		path = scratch / f'patch-{patch.number}'
		path.write_bytes(patch.text)
		try:
			runner.run(git(tree, 'apply', '--cached', '--whitespace=nowarn', str(path),
				       env=index), Output.CAPTURE)
		except CommandFailed as e:
			raise UsageError(f'{patch.label} does not apply to {parent[:12]} of {tree} '
					 f'({e.output.strip().splitlines()[0] if e.output.strip() else "git apply failed"})',
					 'give the tree the series is based on, or base it on this one') from e
		tree_id = runner.run(git(tree, 'write-tree', env=index), Output.CAPTURE).output.strip()
		parent = runner.run(git(tree, 'commit-tree', tree_id, '-p', parent, '-m', patch.subject,
					env=index), Output.CAPTURE).output.strip()
		commits.append(parent)
	return commits
