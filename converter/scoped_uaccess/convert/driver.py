# SPDX-License-Identifier: GPL-2.0
"""Converts a tree's open-coded user access regions into a patch series.

The rules (cocci/convert_scoped_uaccess.cocci) run in two modes: `report`
lists every open-coded region with the shape it is converted as, or the
reason it is skipped; `patch` rewrites.  Everything happens in a scratch
git worktree of the tree, so the user's working copy is never touched:
spatch rewrites there, the checker re-checks every rewritten file, each
subsystem's files become one commit, and `git format-patch` exports the
commits into the output directory with conversion.json (one entry per
region) and summary.md.
"""

import collections
import concurrent.futures
import contextlib
import fcntl
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional

from scoped_uaccess.kernel import worktree
from scoped_uaccess.checker import check
from scoped_uaccess.cocci import api, index_cache, spatch
from scoped_uaccess.convert import spatch_passes
from scoped_uaccess.convert import changelog
from scoped_uaccess.convert.commits import (group_files, prefix_from_history, prefix_from_path,
					    with_preexisting)
from scoped_uaccess.convert.regions import (Entry, added_scopes, begin_call,
						  conversion_json, pair_scopes,
						  summary_markdown)
from scoped_uaccess.analysis.status import Reason, Status
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem, TreeStateError, UsageError
from scoped_uaccess.core.outcome import relative
from scoped_uaccess.kernel import builders, sources, tree, treefacts
from scoped_uaccess.kernel.checkpatch import check_patch
from scoped_uaccess.kernel.git import git

RULES = spatch.COCCI_DIR / 'convert_scoped_uaccess.cocci'
WORKTREE = paths.BUILD / 'wt-convert'
# The open-coded region begins the rules look for; a file without any of
# them has nothing to convert and is not given to spatch.
BEGIN_WORDS = (*api.OPEN_BEGINS, *api.MASKED_BEGINS, api.MASKED_TEST)

# The checker on one rewritten file: some take minutes on a loaded machine;
# one that does not finish is not trusted (Reason.CHECKER_TIMEOUT).
CHECK_TIMEOUT = 300


@dataclass(frozen=True)
class ConvertRequest:
	tree: Path			# the kernel git tree
	out: Path			# where the series, conversion.json and summary.md go
	rev: str = 'HEAD'		# what to convert (default: the tree's HEAD)
	rules: Path = RULES
	worktree: Path = WORKTREE
	jobs: int = os.cpu_count() or 1
	start_number: int = 1


@dataclass
class ConvertResult:
	entries: list[Entry] = field(default_factory=list)
	patches: list[Path] = field(default_factory=list)
	files: list[str] = field(default_factory=list)		# given to spatch
	base: str = ''						# commit converted
	seconds: float = 0.0

	@property
	def converted(self) -> int:
		return sum(e.status is Status.CONVERTED for e in self.entries)

def default_worktree(kdir: Path) -> Path:
	"""The scratch worktree of a tree's conversions: build/wt-convert for
	build/linux, build/wt-convert-7.3 for build/linux-7.3 (a worktree
	belongs to one repository; paths.of_tree())."""
	return paths.of_tree(WORKTREE, kdir)


# ---- running -------------------------------------------------------------

def validate_request(runner: Runner, request: ConvertRequest) -> str:
	"""One-line errors for bad input; returns the commit to convert."""
	t = request.tree
	if not t.is_dir():
		raise UsageError(f'--tree {t}: no such directory', 'create the tree with `make tree`')
	tree.require_baseline(runner, t)
	version = tree.makefile_version(t)
	source = sources.for_kdir(t)
	if not source.accepts(version):
		raise TreeStateError(f'{t} is Linux {version or "?"}, not {source.describe()}',
				     f'point --tree at a tree made by `make tree KDIR={relative(t)}`')
	status = runner.run(git(t, '--no-optional-locks', 'status', '--porcelain',
				'--untracked-files=no'), Output.CAPTURE).output
	if status.strip():
		raise TreeStateError(f'{t} has uncommitted changes ({status.splitlines()[0].strip()})',
				     'commit or stash them: the conversion starts from a commit')
	if not request.rules.is_file():
		raise EnvironmentProblem(f'{request.rules}: no such semantic patch',
					 'the conversion rules are cocci/convert_scoped_uaccess.cocci')
	if shutil.which('spatch') is None:
		raise EnvironmentProblem('spatch is not installed', 'run `make deps` (coccinelle)')
	rev = runner.run(git(t, 'rev-parse', '--verify', '-q', f'{request.rev}^{{commit}}'),
			 Output.CAPTURE, check=False)
	if rev.returncode != 0:
		raise UsageError(f'{request.rev} is not a commit of {t}', 'give --rev a commit')
	if request.out.resolve() == t.resolve() or t.resolve() in request.out.resolve().parents:
		raise UsageError(f'--out {request.out} is inside the tree', 'write the series elsewhere')
	return rev.output.strip()


def prefilter(runner: Runner, wt: Path) -> list[str]:
	"""The C files and headers of the worktree that use a region begin,
	except those defining the API (api.DEFINITIONS): no regions there."""
	found = spatch.find_files(runner, [wt], BEGIN_WORDS)
	names = [str(f.relative_to(wt)) for f in found]
	return sorted(n for n in names if n not in api.DEFINITIONS)


def _parallel(jobs: int, fn: Callable, items: list) -> list:
	with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
		return list(pool.map(fn, items))


def convert_file(runner: Runner, rules: Path, wt: Path, name: str, env: spatch_passes.Environment,
		 say: Callable[[str], None]) -> tuple[list[Entry], bool]:
	"""Census, passes and scopes for one file, then the census again: what
	is still open-coded must be what the census skipped.  A function where
	it is not is converted again without its regions (excluded), at most
	twice; returns the entries and whether the file changed."""
	source_lines = (wt / name).read_text(errors='replace').splitlines()
	exclude: list[str] = list(env.exclude)
	for _ in range(3):
		env = spatch_passes.Environment(env.inlines, env.masking, tuple(exclude))
		with spatch_passes.plain_syscall_headers(wt / name, runner.dry_run):
			regions = spatch_passes.census(runner, rules, wt, name, env)
			entries = [Entry(r, r.status, r.reason,
					 begin=begin_call(source_lines, r)) for r in regions]
			if not any(e.status is Status.CONVERTED for e in entries):
				return entries, False
			rewritten = spatch_passes.rewrite(runner, rules, wt, name, regions, env)
			for note in rewritten.notes:
				converted = [e for e in entries if e.status is Status.CONVERTED]
				owner = next((e for e in converted if e.region.function == note.function),
					     converted[0])
				if note not in owner.notes:
					owner.notes.append(note)
			if runner.dry_run:
				return entries, False
			after = spatch_passes.census(runner, rules, wt, name, env)
		# A region under two #ifdef'd function headers (one per parse
		# variant) is converted when either converts it.
		converted_lines = {e.region.line for e in entries if e.status is Status.CONVERTED}
		still = collections.Counter(r.function for r in after)
		kept = collections.Counter(e.region.function for e in entries if e.status is Status.SKIPPED
					   and e.region.line not in converted_lines)
		bad = sorted((still - kept) + (kept - still))
		if not bad:
			return entries, True
		say(f'convert: {name}: in {", ".join(f + "()" for f in bad)} what is still '
		    'open-coded is not what the census skipped; again without those regions')
		runner.run(git(wt, 'checkout', '-q', '--', name, mutates=True))
		for f in bad:
			mine = sorted((r for r in regions if r.function == f), key=lambda r: (r.line, r.col))
			exclude += [f'{name}:{f}:{i}' for i, r in enumerate(mine) if not r.skipped]
	return [Entry(r, Status.SKIPPED, Reason.NOT_REWRITTEN, begin=begin_call(source_lines, r))
		for r in regions], False


def gaining_files(wt: Path, files: list[str]) -> set[str]:
	"""The files a scope changes at run time somewhere: built by an
	architecture (and width) that masks user pointers in this tree."""
	masking = treefacts.masking_variants(wt)
	tree_ = builders.Tree(wt)
	return {f for f in files
		if any(builders.builders(wt, f, tree_).builds(a, b) for a, b in masking)}


def census_only(runner: Runner, rules: Path, wt: Path, name: str,
		env: spatch_passes.Environment) -> list[Entry]:
	"""The census of a file no scope would change at run time: its regions
	the rules would convert are skipped as no-gain."""
	source_lines = (wt / name).read_text(errors='replace').splitlines()
	with spatch_passes.plain_syscall_headers(wt / name, runner.dry_run):
		regions = spatch_passes.census(runner, rules, wt, name, env)
	return [Entry(r, Status.SKIPPED, r.reason or Reason.NO_GAIN, begin=begin_call(source_lines, r))
		for r in regions]


def _error_keys(findings: Iterable) -> collections.Counter:
	return collections.Counter((f.cls, re.sub(r'\bline \d+\b', 'line N', f.message))
				   for f in findings)


def _check(runner: Runner, root: Path, files: list[str], jobs: int,
	   timeout: int) -> check.CheckResult:
	return check.run_check(Runner(dry_run=runner.dry_run, echo=runner.echo, quiet=True),
			       check.CheckRequest(paths=[root / f for f in files], root=root,
						  jobs=jobs, timeout=timeout))


def new_checker_errors(runner: Runner, wt: Path, commit: str, files: list[str], jobs: int,
		       say: Callable[[str], None],
		       timeout: int = CHECK_TIMEOUT) -> dict[str, list[str]]:
	"""The checker on the rewritten files; an ERROR (or unparsable block)
	the unconverted file does not have is a problem of the conversion, and
	so is a check that does not finish within timeout seconds."""
	say(f'convert: checking {len(files)} rewritten file(s) with the checker')
	after = _check(runner, wt, files, jobs, timeout)
	problems: dict[str, list[str]] = {n: [f'the check took more than {timeout} s']
					  for n in after.timed_out}
	unparsed = collections.Counter(p.file for p in after.parse_failures)
	flagged = sorted(n for n in files if n not in after.timed_out
			 and (after.errors(n) or unparsed[n]))
	if not flagged:
		return problems
	# Only now look at the unconverted files: they may have had the ERROR.
	say(f'convert: the checker reports ERRORs in {" ".join(flagged)}; comparing with '
	    'the unconverted files')
	with tempfile.TemporaryDirectory(prefix='convert-orig-') as tmp:
		root = Path(tmp)
		for name in flagged:
			text = runner.run(git(wt, 'show', f'{commit}:{name}'), Output.CAPTURE).output
			(root / name).parent.mkdir(parents=True, exist_ok=True)
			(root / name).write_text(text)
		before = _check(runner, root, flagged, jobs, timeout)
	old_unparsed = collections.Counter(p.file for p in before.parse_failures)
	for name in flagged:
		new = _error_keys(after.errors(name)) - _error_keys(before.errors(name))
		text = [f'[{cls}] {msg}' for cls, msg in new.elements()]
		if unparsed[name] > old_unparsed[name]:
			text.append('spatch cannot parse the result')
		if text:
			problems[name] = text
	return problems


def _identity(runner: Runner, kdir: Path) -> str:
	values = []
	for key in ('user.name', 'user.email'):
		run = runner.run(git(kdir, 'config', key), Output.CAPTURE, check=False)
		if run.returncode != 0 or not run.output.strip():
			raise EnvironmentProblem(f'git config {key} is not set',
						 f'set it: git config --global {key} ...')
		values.append(run.output.strip())
	return f'{values[0]} <{values[1]}>'


def subject_prefix(runner: Runner, kdir: Path, commit: str, file: str) -> str:
	"""The prefix the file's history uses (baseline excluded), else from its path."""
	log = runner.run(git(kdir, 'log', '--format=%s', f'{tree.BASELINE_TAG}..{commit}', '--',
			     file), Output.CAPTURE, check=False).output
	return prefix_from_history(log.splitlines()) or prefix_from_path(file)


def run_convert(runner: Runner, request: ConvertRequest,
		say: Optional[Callable[[str], None]] = None) -> ConvertResult:
	"""The whole conversion; the output directory is replaced only at the end."""
	say = say or runner.say
	start = time.monotonic()
	commit = validate_request(runner, request)
	result = ConvertResult(base=commit)
	wt = request.worktree
	with _locked(wt, runner.dry_run), tempfile.TemporaryDirectory(prefix='convert-rules-') as tmp:
		# Every spatch run sees the same rules, even if the file is being
		# edited meanwhile: report and patch mode must agree.
		rules = Path(tmp) / request.rules.name
		shutil.copyfile(request.rules, rules)
		return _convert(runner, request, commit, result, say, start, rules)


@contextlib.contextmanager
def _locked(wt: Path, dry_run: bool):
	"""One conversion at a time per scratch worktree."""
	if dry_run:
		yield
		return
	wt.parent.mkdir(parents=True, exist_ok=True)
	with open(wt.parent / f'.{wt.name}.lock', 'w') as lock:
		try:
			fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
		except BlockingIOError as e:
			raise EnvironmentProblem(f'another conversion is using {wt}',
						 'wait for it, or give --worktree another directory') from e
		yield


def _convert(runner: Runner, request: ConvertRequest, commit: str, result: ConvertResult,
	     say: Callable[[str], None], start: float, rules: Path) -> ConvertResult:
	wt = request.worktree
	worktree.worktree(runner, request.tree, wt, commit, scratch=True)
	if runner.dry_run and not wt.exists():
		files = []
		say(f'convert: dry run: would list the files of {wt} that use a region begin')
	else:
		files = prefilter(runner, wt)
	result.files = files
	say(f'convert: {len(files)} file(s) of {commit[:12]} use a region begin; '
	    f'rules {request.rules.name}, {request.jobs} job(s)')
	if runner.dry_run:
		for name in files:
			runner.run(spatch.command(rules, 'report', name, wt, in_place=True))
			runner.run(spatch.command(rules, 'patch', name, wt, in_place=True))
		say('convert: dry run: then the checker on the rewritten files, one commit per '
		    f'subsystem in {wt}, git format-patch into {request.out}')
		return result
	env = spatch_passes.Environment(index_cache.index(runner, request.tree), treefacts.masking_arches(wt))
	gains = gaining_files(wt, files)
	done = [0]

	def one(name: str) -> tuple[str, list[Entry], bool]:
		if name in gains:
			found, changed = convert_file(runner, rules, wt, name, env, say)
		else:
			found, changed = census_only(runner, rules, wt, name, env), False
		# A function under two #ifdef'd headers (signal_32.c's swapcontext)
		# is one region, whichever parse variant converts it.
		by_line: dict[int, Entry] = {}
		for e in found:
			have = by_line.get(e.region.line)
			if have is None or (have.status is Status.SKIPPED and e.status is Status.CONVERTED):
				by_line[e.region.line] = e
		found = [by_line[k] for k in sorted(by_line)]
		done[0] += 1
		converted = sum(e.status is Status.CONVERTED for e in found)
		say(f'convert: [{done[0]}/{len(files)}] {name}: {len(found)} region(s), '
		    f'{converted} converted')
		return name, found, changed
	entries: dict[str, list[Entry]] = {}
	rewritten = []
	for name, found, changed in _parallel(request.jobs, one, files):
		entries[name] = found
		if changed:
			rewritten.append(name)
	rewritten.sort()
	if rewritten:
		problems = new_checker_errors(runner, wt, commit, rewritten, request.jobs, say)
		for name, text in problems.items():
			say(f'convert: {name}: dropped, the checker reports: {"; ".join(text)}')
			runner.run(git(wt, 'checkout', '-q', '--', name, mutates=True))
			_skip(entries[name], Reason.CHECKER_TIMEOUT if text[0].startswith('the check took')
			      else Reason.CHECKER_ERROR)
		rewritten = [n for n in rewritten if n not in problems]
	result.patches = commit_and_export(runner, request, wt, commit, rewritten, entries, say)
	result.entries = [e for name in files for e in entries[name]]
	result.seconds = time.monotonic() - start
	write_outputs(runner, request, result, say)
	return result


def _skip(entries: list[Entry], reason: Reason) -> None:
	for e in entries:
		if e.status is Status.CONVERTED:
			e.status, e.reason = Status.SKIPPED, reason


def commit_and_export(runner: Runner, request: ConvertRequest, wt: Path, commit: str,
		      rewritten: list[str], entries: dict[str, list[Entry]],
		      say: Callable[[str], None]) -> list[Path]:
	"""One commit per subject prefix; checkpatch on each; format-patch."""
	signoff = _identity(runner, request.tree)
	prefixes = {name: subject_prefix(runner, request.tree, commit, name) for name in rewritten}
	arches = builders.Tree(wt)
	masking = treefacts.masking_variants(wt)
	coverage = changelog.optional_coverage(_sweep_report(request.tree))
	staging = Path(tempfile.mkdtemp(prefix='.convert-', dir=request.out.parent
					if request.out.parent.exists() else None))
	try:
		for prefix, group in group_files(prefixes):
			diff = runner.run(git(wt, 'diff', '--', *group), Output.CAPTURE).output
			done = [e for name in group for e in entries[name] if e.status is Status.CONVERTED]
			for name in group:
				pair_scopes(entries[name], added_scopes(runner.run(
					git(wt, 'diff', '--', name), Output.CAPTURE).output))
			if not diff.strip() or not done:
				continue
			left = [e for name in group for e in entries[name] if e.status is Status.SKIPPED]
			message = changelog.message(changelog.PatchFacts(
				prefix, group, done, left, {n: builders.builders(wt, n, arches) for n in group},
				masking, {n: runner.run(git(wt, 'show', f'{commit}:{n}'), Output.CAPTURE).output
					  for n in group},
				{n: (wt / n).read_text(errors='replace') for n in group},
				[note for e in done for note in e.notes], coverage, signoff))
			msg = staging / 'message'
			msg.write_text(message)
			# Debian's .gitignore ignores everything: -f.
			runner.run(git(wt, 'add', '-f', '--', *group, mutates=True))
			runner.run(git(wt, '-c', 'commit.gpgsign=false', 'commit', '-q', '--no-verify',
					'-F', str(msg), mutates=True))
			one = runner.run(git(wt, 'format-patch', f'-U{tree.EXPORT_CONTEXT}', '-1',
					     '-o', str(staging / 'check'), 'HEAD', mutates=True),
					 Output.CAPTURE).output.strip()
			checked = check_patch(runner, wt, Path(one))
			Path(one).unlink()
			if not checked.clean:
				say(f'convert: {prefix}: dropped, checkpatch: {"; ".join(checked.issues[:3])}')
				# Undo the commit and this group's files only: the other
				# groups' rewrites are still uncommitted in the worktree.
				runner.run(git(wt, 'reset', '-q', 'HEAD~1', mutates=True))
				runner.run(git(wt, 'checkout', '-q', 'HEAD', '--', *group, mutates=True))
				for name in group:
					_skip(entries[name], Reason.CHECKPATCH)
				continue
			if checked.preexisting:
				msg.write_text(with_preexisting(message, checked.preexisting))
				runner.run(git(wt, '-c', 'commit.gpgsign=false', 'commit', '-q', '--amend',
						'--no-verify', '-F', str(msg), mutates=True))
			say(f'convert: committed {message.splitlines()[0]} ({len(done)} region(s), '
			    f'{len(group)} file(s))')
		# Anything not committed (dropped groups) is thrown away.
		runner.run(git(wt, 'reset', '-q', '--hard', mutates=True))
		series = staging / 'series'
		series.mkdir()
		count = int(runner.run(git(wt, 'rev-list', '--count', f'{commit}..HEAD'),
				       Output.CAPTURE).output.strip())
		if count:
			runner.run(git(wt, 'format-patch', '-q', f'-U{tree.EXPORT_CONTEXT}',
					f'--start-number={request.start_number}', '-o', str(series),
					f'{commit}..HEAD', mutates=True), Output.CAPTURE)
		names = sorted(p.name for p in series.glob('*.patch'))
		by_subject = {}
		for p in sorted(series.glob('*.patch')):
			header = p.read_text().split('\n\n', 1)[0].replace('\n ', ' ')
			m = re.search(r'^Subject: \[PATCH[^\]]*\] (.*?): Convert (?:.*?\(\) )?to scoped user access',
				      header, re.M)
			if m:
				by_subject[m.group(1)] = p.name
		for name, group_entries in entries.items():
			prefix = prefixes.get(name)
			for e in group_entries:
				if e.status is Status.CONVERTED:
					e.patch = by_subject.get(prefix, '')
				if e.status is Status.CONVERTED and not e.patch:
					# No commit has it: whatever happened, it is not converted.
					e.status, e.reason = Status.SKIPPED, Reason.NOT_REWRITTEN
		request.out.mkdir(parents=True, exist_ok=True)
		for old in request.out.glob('*.patch'):
			old.unlink()
		for name in names:
			shutil.copyfile(series / name, request.out / name)
		return [request.out / n for n in names]
	finally:
		shutil.rmtree(staging, ignore_errors=True)


def _sweep_report(kdir: Path) -> Optional[dict]:
	"""The committed fault sweep report of the tree's version, whose
	regions say which syscalls made each converted function's accesses
	fault (for the changelogs); None when there is none."""
	path = paths.REPORTS / f'linux-{tree.makefile_version(kdir)}' / 'faultsweep.json'
	try:
		return json.loads(path.read_text())
	except (OSError, ValueError):
		return None


def meta(request: ConvertRequest, result: ConvertResult, runner: Runner) -> dict:
	# Not the commit id: it changes whenever a core patch is amended, and
	# conversion.json must compare equal after a regeneration.
	count = runner.run(git(request.tree, 'rev-list', '--count',
				f'{tree.BASELINE_TAG}..{result.base}'), Output.CAPTURE, check=False)
	described = (f'{tree.BASELINE_TAG} + {count.output.strip()} commit(s)'
		     if count.returncode == 0 else result.base[:12])
	return {'version': tree.makefile_version(request.tree), 'base': described,
		'rules': str(request.rules.relative_to(paths.REPO)
			     if paths.REPO in request.rules.resolve().parents else request.rules),
		'spatch': spatch.version(runner), 'files': len(result.files),
		'seconds': round(result.seconds)}


def write_outputs(runner: Runner, request: ConvertRequest, result: ConvertResult,
		  say: Callable[[str], None]) -> None:
	info = meta(request, result, runner)
	request.out.mkdir(parents=True, exist_ok=True)
	# The seconds vary from run to run: kept out of conversion.json so that
	# a regeneration compares equal.
	stable = {k: v for k, v in info.items() if k != 'seconds'}
	(request.out / 'conversion.json').write_text(conversion_json(result.entries, stable))
	(request.out / 'summary.md').write_text(
		summary_markdown(result.entries, info, [p.name for p in result.patches]))
	converted = result.converted
	say(f'convert: {len(result.entries)} region(s): {converted} converted, '
	    f'{len(result.entries) - converted} skipped; {len(result.patches)} patch(es) in '
	    f'{request.out} ({result.seconds:.0f} s)')
