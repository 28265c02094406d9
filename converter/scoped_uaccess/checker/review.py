# SPDX-License-Identifier: GPL-2.0
"""The checker on a change instead of a tree: what a reviewer or a CI bot runs on a series.

`check --diff A..B` (or A...B: from their merge base; or REV: REV..HEAD)
checks, at A and at B, every C file and header the change touches that
uses the API, and every file whose findings depend on the change: those
that call a static inline function whose definition the change adds,
removes or changes (the header index of each side is its own).  A finding
of B is new when its identity (identity.py) is not among A's: whole files
are compared, so a change that breaks a function it does not touch (a
helper made noinline) is seen, and a renamed file or a converted region
keeps its old findings.  PATH limits the review to those paths of the tree.

`check --patch` builds the commits of the patches first (patches.py) and
reviews each against its parent: every finding is told with the patch
that brings it.

Each file version is written out of git into the run's scratch directory,
under its own path, and checked once (by blob, path and header index).
"""

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence

from scoped_uaccess.checker import check, identity, patches, runs
from scoped_uaccess.checker.findings import Finding, assign_ids
from scoped_uaccess.cocci import index_cache
from scoped_uaccess.cocci.unparsed import NotChecked, ParseFailure
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.kernel.git import git

Progress = Optional[Callable[[str], None]]


@dataclass(frozen=True)
class ReviewRequest:
	tree: Path				# the git tree the revisions are of
	base: str				# A
	head: str				# B
	scripts: tuple[Path, ...] = check.CHECKERS
	jobs: int = check.CheckRequest.jobs
	only: Sequence[str] = ()		# limit to these paths of the tree
	timeout: Optional[int] = None
	memory_mb: int = runs.DEFAULT_MEMORY_MB


@dataclass
class ReviewResult:
	files: list[str] = field(default_factory=list)		# reviewed files that use the API
	new: check.CheckResult = field(default_factory=check.CheckResult)
	old_ids: set[str] = field(default_factory=set)		# identities of A's findings

	@property
	def findings(self) -> list[Finding]:
		return self.new.findings


@dataclass
class _Version:
	"""What the check found in one version of one file."""
	findings: list[Finding] = field(default_factory=list)
	failures: list[ParseFailure] = field(default_factory=list)
	not_checked: list[NotChecked] = field(default_factory=list)
	idents: dict[Finding, str] = field(default_factory=dict)
	uses_api: bool = False


def parse_range(runner: Runner, tree: Path, text: str,
		env: Mapping[str, str] = {}) -> tuple[str, str]:
	"""A..B, A...B (from their merge base) or REV (REV..HEAD) -> the commits
	(base, head); an empty side is HEAD, as git has it."""
	require_repository(runner, tree)
	if '...' in text:
		a, _, b = text.partition('...')
		a, b = commit(runner, tree, a or 'HEAD', env), commit(runner, tree, b or 'HEAD', env)
		run = runner.run(git(tree, '--no-optional-locks', 'merge-base', a, b, env=env),
				 Output.CAPTURE, check=False)
		if run.returncode != 0:
			raise UsageError(f'--diff {text}: the two sides have no common ancestor',
					 'give A..B instead')
		return run.output.strip(), b
	if '..' in text:
		a, _, b = text.partition('..')
		if '..' in b:
			raise UsageError(f'--diff {text}: not a range', 'give A..B, A...B or REV')
		return commit(runner, tree, a or 'HEAD', env), commit(runner, tree, b or 'HEAD', env)
	return commit(runner, tree, text, env), commit(runner, tree, 'HEAD', env)


def require_repository(runner: Runner, tree: Path) -> None:
	if not tree.is_dir() or runner.run(git(tree, '--no-optional-locks', 'rev-parse', '--git-dir'),
					   Output.CAPTURE, check=False).returncode != 0:
		raise UsageError(f'{tree} is not in a git repository',
				 'run from a git tree of the kernel, or give it with --tree')


def commit(runner: Runner, tree: Path, rev: str, env: Mapping[str, str] = {}) -> str:
	run = runner.run(git(tree, '--no-optional-locks', 'rev-parse', '-q', '--verify',
			     f'{rev}^{{commit}}', env=env), Output.CAPTURE, check=False)
	if run.returncode != 0 or rev.startswith('-'):
		raise UsageError(f'{rev} is not a commit of {tree}',
				 'give --diff A..B, A...B or REV of that tree')
	return run.output.strip()


def _z(text: str) -> list[str]:
	return [p for p in text.split('\0') if p]


class Reviewer:
	"""Reviews revisions of one tree, each file version checked once."""

	def __init__(self, runner: Runner, request: ReviewRequest, scratch: Path,
		     env: Mapping[str, str] = {}, progress: Progress = None) -> None:
		self.runner, self.request, self.scratch = runner, request, scratch
		self.tree, self.env, self.progress = request.tree, dict(env), progress
		self.versions: dict[tuple[str, str, str], _Version] = {}
		self.indexes: dict[str, Optional[Path]] = {}
		self.rounds = 0
		self.spatch_version = ''

	def git(self, *args: str) -> str:
		return self.runner.run(git(self.tree, '--no-optional-locks', *args, env=self.env),
				       Output.CAPTURE).output

	def index(self, rev: str) -> Optional[Path]:
		"""The header index of rev when it is a kernel tree."""
		if rev not in self.indexes:
			probe = self.runner.run(git(self.tree, 'cat-file', '-e', f'{rev}:include/linux',
						    env=self.env), Output.CAPTURE, check=False)
			self.indexes[rev] = None if probe.returncode != 0 or self.runner.dry_run else \
				index_cache.index(self.runner, self.tree, rev, self.env, self.scratch)
		return self.indexes[rev]

	def changes(self, base: str, head: str) -> list[tuple[str, str, str]]:
		"""(status, old path, new path) of the C files and headers that
		differ, renames followed, limited to the request's paths."""
		out = _z(self.git('diff', '--name-status', '-z', '-M', base, head, '--',
				  *self.request.only))
		found, i = [], 0
		while i < len(out):
			status = out[i]
			if status[0] in 'RC':
				old, new, i = out[i + 1], out[i + 2], i + 3
			else:
				old = new = out[i + 1]
				i += 2
			if new.endswith(('.c', '.h')) or old.endswith(('.c', '.h')):
				found.append((status[0], old, new))
		return found

	def dependents(self, base: str, head: str, skip: set[str]) -> list[str]:
		"""Files of head, beyond skip, that call a static inline function
		whose definition differs between base and head."""
		a, b = self.index(base), self.index(head)
		if a is None or b is None or a == b:
			return []
		old, new = json.loads(a.read_text()), json.loads(b.read_text())
		names = sorted(n for n in set(old) | set(new) if old.get(n) != new.get(n))
		if not names:
			return []
		words = [w for n in names for w in ('-e', n)]
		run = self.runner.run(git(self.tree, '--no-optional-locks', 'grep', '-l', '-z', '-w',
					  '-F', *words, head, '--', *(self.request.only or ('.',)),
					  env=self.env), Output.CAPTURE, check=False)
		found = [p.split(':', 1)[1] for p in _z(run.output) if ':' in p]
		return sorted(p for p in found if p.endswith(('.c', '.h')) and p not in skip)

	def check(self, rev: str, paths: list[str]) -> dict[str, _Version]:
		"""Each path as rev has it, checked (once per blob and index)."""
		if not paths:
			return {}
		listed = _z(self.git('ls-tree', '-z', '--full-tree', rev, '--', *paths))
		oids = {}
		for entry in listed:
			meta, _, path = entry.partition('\t')
			if meta.split()[1] == 'blob':
				oids[path] = meta.split()[2]
		index = self.index(rev)
		key = str(index or '')
		todo = [p for p in paths if p in oids and (p, oids[p], key) not in self.versions]
		if todo:
			self.rounds += 1
			root = self.scratch / f'r{self.rounds}'
			blobs = index_cache.read_blobs(self.runner, self.tree, sorted({oids[p] for p in todo}),
						       self.env)
			for p in todo:
				(root / p).parent.mkdir(parents=True, exist_ok=True)
				(root / p).write_bytes(blobs[oids[p]])
			result = check.run_check(self.runner, check.CheckRequest(
				paths=[root / p for p in todo], scripts=self.request.scripts, root=root,
				jobs=self.request.jobs, timeout=self.request.timeout, inlines=index,
				memory_mb=self.request.memory_mb), self.progress)
			self.spatch_version = result.spatch_version
			lines = check.source_lines(root)
			for p in todo:
				v = _Version(uses_api=p in result.files)
				v.findings = [f for f in result.findings if f.file == p]
				v.failures = [f for f in result.parse_failures if f.file == p]
				v.not_checked = [n for n in result.not_checked if n.file == p]
				v.idents = {f: identity.of_finding(f, lines(p, f.line)) for f in v.findings}
				self.versions[(p, oids[p], key)] = v
			if result.interrupted or result.dry_run:
				self.interrupted = result.interrupted
				self.dry_run = result.dry_run
				if result.interrupted:
					raise runs.Interrupted(2)
		return {p: self.versions[(p, oids[p], key)] for p in paths if p in oids}

	interrupted = False
	dry_run = False

	def review(self, base: str, head: str) -> ReviewResult:
		"""The findings head adds to base."""
		changes = self.changes(base, head)
		new_paths = [new for status, _, new in changes if status != 'D' and
			     new.endswith(('.c', '.h'))]
		old_of = {new: old for status, old, new in changes if status in 'RCMT'}
		new_paths += self.dependents(base, head, set(new_paths))
		after = self.check(head, new_paths)
		before = self.check(base, [old_of.get(p, p) for p in new_paths])
		result = ReviewResult()
		new = check.CheckResult(spatch_version=self.spatch_version,
					classes=check.classes(self.request.scripts),
					scripts=tuple(self.request.scripts))
		new.dry_run = self.dry_run
		old_findings: list[str] = []
		old_failures: list[str] = []
		for p in new_paths:
			b = after.get(p)
			a = before.get(old_of.get(p, p))
			if b is None:
				continue
			if b.uses_api or b.not_checked:
				result.files.append(p)
			new.not_checked += b.not_checked
			if a is not None:
				old_findings += a.idents.values()
				old_failures += [identity.of_failure(f) for f in a.failures]
				# Without the old version checked, nothing is known to be old.
				new.not_checked += [NotChecked(p, f'{n.reason} (in {base[:12]}, the '
							     'version compared with)') for n in a.not_checked]
		found = [(f, after[p].idents[f]) for p in new_paths if p in after
			 for f in after[p].findings]
		new.findings = assign_ids([f for f, _ in identity.new_ones(
			old_findings, found, lambda pair: pair[1])])
		failures = [f for p in new_paths if p in after for f in after[p].failures]
		new.parse_failures = sorted(identity.new_ones(old_failures, failures,
							     identity.of_failure))
		new.files = sorted(result.files)
		new.not_checked.sort()
		result.files = new.files
		result.old_ids = set(old_findings)
		result.new = new
		return result


def review(runner: Runner, request: ReviewRequest, progress: Progress = None) -> ReviewResult:
	"""check --diff: the findings request.head adds to request.base."""
	with tempfile.TemporaryDirectory(prefix='scoped-uaccess-review-') as scratch:
		return Reviewer(runner, request, Path(scratch), progress=progress).review(
			request.base, request.head)


@dataclass
class SeriesResult:
	base: str
	patches: list[patches.Patch]
	reviews: list[ReviewResult] = field(default_factory=list)	# one per patch reviewed

	def merged(self) -> check.CheckResult:
		"""Every patch's new findings in one result."""
		out = check.CheckResult()
		for r in self.reviews:
			out.files = sorted(set(out.files) | set(r.new.files))
			out.findings += r.new.findings
			out.parse_failures += r.new.parse_failures
			out.not_checked += r.new.not_checked
			out.spatch_version = r.new.spatch_version or out.spatch_version
			out.dry_run = out.dry_run or r.new.dry_run
		out.interrupted = len(self.reviews) < len(self.patches)
		return out


def review_patches(runner: Runner, request: ReviewRequest, sources: Sequence[str],
		   progress: Progress = None,
		   on_patch: Optional[Callable[[patches.Patch, ReviewResult], None]] = None
		   ) -> SeriesResult:
	"""check --patch: the series applied on its base-commit (or the tree's
	HEAD) in a scratch object store, each patch reviewed against its parent."""
	require_repository(runner, request.tree)
	series = patches.read(sources)
	with tempfile.TemporaryDirectory(prefix='scoped-uaccess-review-') as scratch:
		env = patches.overlay(runner, request.tree, Path(scratch))
		named = series[0].base
		if named:
			try:
				base = commit(runner, request.tree, named, env)
			except UsageError as e:
				raise UsageError(f'the series is based on {named}, which {request.tree} '
						 'does not have', 'fetch it, or review the series with --diff '
						 'on a tree that has it') from e
		else:
			base = commit(runner, request.tree, 'HEAD', env)
		commits = patches.apply(runner, request.tree, series, base, env, Path(scratch))
		result = SeriesResult(base, series)
		reviewer = Reviewer(runner, request, Path(scratch), env, progress)
		parent = base
		for patch, made in zip(series, commits):
			done = reviewer.review(parent, made)
			result.reviews.append(done)
			if on_patch:
				on_patch(patch, done)
			parent = made
		return result
