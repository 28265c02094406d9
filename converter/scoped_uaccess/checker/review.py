# SPDX-License-Identifier: GPL-2.0
"""The checker on a change instead of a tree: what a reviewer or a CI bot runs on a series.

`check --diff A..B` checks the files the change touches, at A and at B,
each version written out of git into a scratch directory under the same
path, and reports the findings of B that lie in a function the change
touches (git diff --function-context gives their extents) and whose id
A does not have.  `check --patch FILE...` is the same for patch files:
they are applied with git am on the tree's HEAD in a scratch worktree
(build/wt-review), and A..B is HEAD..what they make.
"""

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

from scoped_uaccess.checker import check
from scoped_uaccess.cocci import inlines, spatch
from scoped_uaccess.checker.findings import Finding
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import CommandFailed, UsageError
from scoped_uaccess.kernel import worktree
from scoped_uaccess.kernel.git import git

REVIEW_TREE = paths.BUILD / 'wt-review'
_HUNK = re.compile(r'^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@', re.M)


@dataclass(frozen=True)
class ReviewRequest:
	tree: Path				# the git tree the revisions are of
	base: str				# A
	head: str				# B
	scripts: tuple[Path, ...] = check.CHECKERS
	jobs: int = check.CheckRequest.jobs
	only: Sequence[str] = ()		# limit to these paths of the tree


@dataclass
class ReviewResult:
	files: list[str] = field(default_factory=list)		# changed files that use the API
	new: check.CheckResult = field(default_factory=check.CheckResult)
	old_ids: set[str] = field(default_factory=set)

	@property
	def findings(self) -> list[Finding]:
		return self.new.findings


def parse_range(text: str) -> tuple[str, str]:
	"""`A..B` -> (A, B); B defaults to HEAD."""
	base, sep, head = text.partition('..')
	if not sep or not base or '..' in head:
		raise UsageError(f'--diff {text}: not a range A..B', 'give it as v7.3..HEAD')
	return base, head or 'HEAD'


def touched_lines(diff: str) -> list[tuple[int, int]]:
	"""The new-side line ranges of a `git diff --function-context` of one
	file: whole functions wherever the change touches one."""
	ranges = []
	for m in _HUNK.finditer(diff):
		start, count = int(m.group(1)), int(m.group(2) or 1)
		if count:
			ranges.append((start, start + count - 1))
	return ranges


def in_ranges(f: Finding, ranges: list[tuple[int, int]]) -> bool:
	return any(a <= f.line <= b for a, b in ranges)


def _write_version(runner: Runner, tree: Path, rev: str, name: str, root: Path) -> bool:
	"""name as rev has it, written under root; False when rev has no such file."""
	run = runner.run(git(tree, '--no-optional-locks', 'show', f'{rev}:{name}'), Output.CAPTURE,
			 check=False)
	if run.returncode != 0:
		return False
	(root / name).parent.mkdir(parents=True, exist_ok=True)
	(root / name).write_text(run.output)
	return True


def review(runner: Runner, request: ReviewRequest,
	   progress: Optional[Callable[[str], None]] = None) -> ReviewResult:
	tree = request.tree
	for rev in (request.base, request.head):
		if runner.run(git(tree, '--no-optional-locks', 'rev-parse', '-q', '--verify',
				  f'{rev}^{{commit}}'), Output.CAPTURE, check=False).returncode != 0:
			raise UsageError(f'{rev} is not a commit of {tree}', 'give --diff A..B of that tree')
	names = runner.run(git(tree, '--no-optional-locks', 'diff', '--name-only', '--diff-filter=AMR',
			       request.base, request.head, '--', '*.c', '*.h', *request.only),
			   Output.CAPTURE).output.split()
	result = ReviewResult()
	index = inlines.index(runner, tree) if (tree / 'include' / 'linux').is_dir() else None
	with tempfile.TemporaryDirectory(prefix='scoped-uaccess-review-') as tmp:
		old_root, new_root = Path(tmp) / 'a', Path(tmp) / 'b'
		for d in (old_root, new_root):
			d.mkdir()
		for name in names:
			if _write_version(runner, tree, request.head, name, new_root) and \
			   spatch.uses_api((new_root / name).read_text(errors='replace')):
				result.files.append(name)
				_write_version(runner, tree, request.base, name, old_root)
		if not result.files:
			return result

		def run(root: Path) -> check.CheckResult:
			files = [root / n for n in result.files if (root / n).is_file()]
			if not files:
				return check.CheckResult()
			return check.run_check(runner, check.CheckRequest(
				paths=files, scripts=request.scripts, root=root, jobs=request.jobs,
				inlines=index), progress)

		new, old = run(new_root), run(old_root)
	ranges = {}
	for name in result.files:
		diff = runner.run(git(tree, '--no-optional-locks', 'diff', '--function-context',
				      request.base, request.head, '--', name), Output.CAPTURE).output
		ranges[name] = touched_lines(diff)
	result.old_ids = {f.id for f in old.findings} | {p.id for p in old.parse_failures}
	new.findings = [f for f in new.findings
			if f.id not in result.old_ids and in_ranges(f, ranges.get(f.file, []))]
	new.parse_failures = [p for p in new.parse_failures if p.id not in result.old_ids]
	new.files = result.files
	result.new = new
	return result


def apply_patches(runner: Runner, tree: Path, patches: Sequence[Path],
		  scratch: Path = REVIEW_TREE) -> str:
	"""The tree's HEAD with the patch files applied by git am in a scratch
	worktree; the commit they make (the tree itself is not touched)."""
	for p in patches:
		if not p.is_file():
			raise UsageError(f'{p}: no such patch file')
	wt = worktree.worktree(runner, tree, scratch, worktree.head(runner, tree), scratch=True)
	for p in patches:
		try:
			runner.run(git(wt, '-c', 'user.name=scoped-uaccess review',
				       '-c', 'user.email=review@scoped-uaccess.invalid',
				       'am', '-q', '--committer-date-is-author-date',
				       str(p.resolve()), mutates=True), Output.CAPTURE)
		except CommandFailed as e:
			runner.run(git(wt, 'am', '--abort', mutates=True), Output.CAPTURE, check=False)
			raise UsageError(f'{p.name} does not apply to the HEAD of {tree}',
					 'rebase the series on it, or give --diff A..B') from e
	return worktree.head(runner, wt)
