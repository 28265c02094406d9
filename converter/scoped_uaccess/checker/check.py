# SPDX-License-Identifier: GPL-2.0
"""The checker scripts over files and directories: their findings as data."""

import collections
import dataclasses
import os
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

from scoped_uaccess.checker import findings as fmt, runs
from scoped_uaccess.cocci import selection, shim, spatch, unparsed
from scoped_uaccess.checker.findings import CheckClass, Finding, Severity
from scoped_uaccess.cocci.unparsed import NotChecked, ParseFailure
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import EnvironmentProblem, UsageError

# The checker: the scripts the series ships into scripts/coccinelle/misc/,
# each listing its classes in its header; one spatch run per file and
# script.  A tuple, as --cocci may name others: every script runs on every
# file, and no two report the same class.
CHECKERS: tuple[Path, ...] = (spatch.COCCI_DIR / 'scoped_uaccess_regions.cocci',
			      spatch.COCCI_DIR / 'scoped_uaccess_pointers.cocci',
			      spatch.COCCI_DIR / 'scoped_uaccess_reach.cocci')
# The project-only layer (docs/checker.md): what `check` appends to a
# kernel script, the parts the kernel form cannot carry.  It uses the
# script's rules and Python; the rules are not written twice.
PROJECT_LAYER: dict[Path, Path] = {CHECKERS[0]: spatch.COCCI_DIR / 'project_calls.cocci'}


def classes(scripts: Sequence[Path] = CHECKERS) -> dict[str, CheckClass]:
	return fmt.class_table(scripts)


def owner(cls: str, scripts: Sequence[Path] = CHECKERS) -> Path:
	"""The script whose header lists the class: the one to run for it alone."""
	table = classes(scripts)
	if cls not in table:
		raise UsageError(f'no checker script reports [{cls}]',
				 'the classes are: ' + ', '.join(table))
	return next(s for s in scripts if s.name == table[cls].script)


@dataclass(frozen=True)
class CheckRequest:
	paths: Sequence[Path]
	scripts: tuple[Path, ...] = CHECKERS
	root: Optional[Path] = None	# paths in the output are relative to it
	jobs: int = os.cpu_count() or 1
	timeout: Optional[int] = None	# seconds per spatch run; None: no limit
	inlines: Optional[Path] = None	# the tree's header inline index (index_cache.index())
	memory_mb: int = runs.DEFAULT_MEMORY_MB	# address space per spatch run
	project: bool = True		# add the project-only layer (PROJECT_LAYER)


@dataclass
class CheckResult:
	files: list[str] = field(default_factory=list)
	findings: list[Finding] = field(default_factory=list)
	parse_failures: list[ParseFailure] = field(default_factory=list)
	timed_out: list[str] = field(default_factory=list)	# files a run did not finish
	seconds: float = 0.0
	spatch_version: str = ''
	classes: dict[str, CheckClass] = field(default_factory=lambda: classes())
	scripts: tuple[Path, ...] = CHECKERS
	# Files not checked, and why: unreadable, a run that failed, did not
	# finish within its limits or was interrupted.  Never silently clean.
	not_checked: list[NotChecked] = field(default_factory=list)
	interrupted: bool = False	# Ctrl-C or SIGTERM: what finished is here
	dry_run: bool = False		# --dry-run: nothing was run, nothing is known

	@property
	def complete(self) -> bool:
		"""Every line of every file was checked."""
		return not (self.parse_failures or self.not_checked or self.interrupted
			    or self.dry_run)

	def counts(self) -> dict[str, int]:
		return {cls: sum(1 for f in self.findings if f.cls == cls) for cls in self.classes}

	def errors(self, file: str) -> list[Finding]:
		return [f for f in self.findings if f.file == file and f.severity is Severity.ERROR]

	def to_text(self) -> str:
		return fmt.to_text(self.findings, self.parse_failures) + \
			''.join(n.text() + '\n' for n in self.not_checked)

	def to_json(self, **extra: object) -> str:
		return fmt.to_json(self.findings, self.parse_failures, self.files, self.spatch_version,
				   not_checked=self.not_checked, complete=self.complete, **extra)

	def to_sarif(self, root: Path, tree: fmt.SarifTree = fmt.SarifTree(),
		     error: str = '') -> str:
		"""SARIF of the findings, paths relative to root, whose source gives
		the region snippets; tree says what the log may tell of it."""
		scripts = {c.script for c in self.classes.values()}
		comments = {s.name: fmt.script_comments(s) for s in self.scripts
			    if s.name in scripts and s.is_file()}
		return fmt.to_sarif(self.findings, self.parse_failures, self.classes,
				    self.spatch_version, tree, source_lines(root), comments,
				    not_checked=self.not_checked,
				    complete=self.complete, error=error)


# A name spatch would take for an option, or that breaks its line-based
# output: such a file runs from a link with a plain name.
_PLAIN = re.compile(r'^[^-\x00-\x1f\x7f][^\x00-\x1f\x7f]*$')


def _aliases(root: Path, names: list[str], in_top: dict[str, str],
	     scratch: Path) -> dict[str, tuple[str, Optional[Path], str]]:
	"""name -> (what spatch is given, the directory it runs in, the text
	it parses) for the files that do not run under their own name: a copy
	with braces around the scope bodies spatch cannot parse as such
	(shim.py), under its name in the tree in a directory of its own, so
	that the project-only layer sees the same name; or a link with a plain
	name."""
	out: dict[str, tuple[str, Optional[Path], str]] = {}
	for n, name in enumerate(names):
		try:
			text = selection.read_source(root / name)
		except OSError:
			continue
		braced = shim.brace_scopes(text)
		if braced != text and _PLAIN.match(in_top[name]):
			alias = scratch / 'alias' / str(n) / in_top[name]
			alias.parent.mkdir(parents=True)
			alias.write_bytes(braced.encode('utf-8', errors='surrogateescape'))
			out[name] = (in_top[name], scratch / 'alias' / str(n), braced)
		elif braced != text or not _PLAIN.match(name):
			alias = scratch / 'alias' / str(n) / Path(name).name.lstrip('-').replace('\n', '_')
			if not alias.name.endswith(selection.SOURCE_SUFFIXES):
				alias = alias.with_name(alias.name + Path(name).suffix)
			alias.parent.mkdir(parents=True)
			alias.write_bytes(braced.encode('utf-8', errors='surrogateescape')
					  if braced != text else (root / name).read_bytes())
			out[name] = (str(alias), None, braced)
	return out


def kernel_tree(path: Path) -> Optional[Path]:
	"""The top of the kernel tree path lies in, if any."""
	for d in (path.resolve(), *path.resolve().parents):
		if (d / 'include' / 'linux').is_dir() and (d / 'Makefile').is_file():
			return d
	return None


def _with_layer(script: Path, project: bool, scratch: Path) -> Path:
	"""The script spatch runs: the kernel script, with its project-only
	layer appended when it has one."""
	layer = PROJECT_LAYER.get(script.resolve()) if project else None
	if layer is None:
		return script
	composed = scratch / script.name
	composed.write_text(script.read_text() + '\n' + layer.read_text())
	return composed


def run_check(runner: Runner, request: CheckRequest,
	      progress: Optional[Callable[[str], None]] = None) -> CheckResult:
	"""Runs the scripts on every file of the request that uses the API;
	Ctrl-C or SIGTERM (runs.interruptible()) ends it early, with what
	finished and the rest as not checked."""
	for script in request.scripts:
		if not script.is_file():
			raise EnvironmentProblem(f'{script}: no such semantic patch')
	start = time.monotonic()
	root = (request.root or Path.cwd()).resolve()
	selected = selection.select(runner, request.paths)
	result = CheckResult(spatch_version=spatch.version(runner),
			     classes=classes(request.scripts), scripts=tuple(request.scripts))
	names = [_relative(f, root) for f in selected.files]
	result.files = names
	result.not_checked = [NotChecked(_relative(p, root), reason) for p, reason in selected.unread]
	limits = runs.Limits(request.timeout or 10 ** 9, request.memory_mb)
	done = 0
	# spatch runs from the top of the tree the files lie in, on their
	# names there: the same run wherever check is started, and the names
	# PARSE_VARIANTS and the project-only layer know.
	top = {name: kernel_tree(root / name) or root for name in names}
	in_top = {name: _relative(root / name, top[name]) for name in names}

	# One task per spatch run: every script on every parse variant of a
	# file.  The largest files start first: spatch's time grows with a
	# file's paths, and a long run started last would leave the other
	# workers idle.
	tasks = [(name, variant, script) for name in names
		 for variant in spatch.parse_variants(in_top[name]) for script in request.scripts]
	tasks.sort(key=lambda task: -_size(root / task[0]))
	remaining = collections.Counter(name for name, _, _ in tasks)
	found: dict[str, set[Finding]] = collections.defaultdict(set)
	unparsed: dict[str, set[ParseFailure]] = collections.defaultdict(set)
	failed: dict[str, str] = {}

	with tempfile.TemporaryDirectory(prefix='scoped-uaccess-check-') as scratch:
		aliases = _aliases(root, names, in_top, Path(scratch))
		scripts = {s: _with_layer(s, request.project, Path(scratch)) for s in request.scripts}
		given = {name: aliases[name][0] if name in aliases else in_top[name] for name in names}
		cwd = {name: (aliases[name][1] if name in aliases else None) or top[name]
		       for name in names}

		def finished(run: runs.Run) -> None:
			nonlocal done
			name = run.key[0]
			alias, text = given[name], aliases[name][2] if name in aliases else None
			if run.status is runs.Status.NOT_RUN:
				result.dry_run = True
			elif run.status is runs.Status.DONE:
				for f in fmt.parse_report(run.stdout):
					found[name].add(dataclasses.replace(f, file=name) if f.file in
							(alias, name) else f)
				if text is None:
					try:
						text = selection.read_source(root / name)
					except OSError as e:
						failed.setdefault(name, selection.why(e))
						text = ''
				unparsed[name].update(spatch.parse_failures(run.stderr, name, text))
			else:
				failed.setdefault(name, run.reason(limits))
				if run.status is runs.Status.TIMED_OUT and name not in result.timed_out:
					result.timed_out.append(name)
			remaining[name] -= 1
			if remaining[name]:
				return
			done += 1
			if progress:
				progress(f'[{done}/{len(names)}] {name}: {len(found[name])} finding(s)'
					 + (f', {len(unparsed[name])} unparsed block(s)'
					    if unparsed[name] else '')
					 + (f', not checked: {failed[name]}' if name in failed else ''))

		commands = [(task, spatch.command(scripts[task[2]], 'report', given[task[0]],
						  cwd[task[0]], task[1], extra=('--verbose-parsing',),
						  inlines=request.inlines)) for task in tasks]
		try:
			runs.run_all(runner, commands, request.jobs, limits, Path(scratch), finished)
		except runs.Interrupted:
			result.interrupted = True
			for name in names:
				if remaining[name]:
					failed.setdefault(name, 'interrupted before spatch finished')
	for name in names:
		if name in failed:
			# Half of a file's runs say nothing of the rest of it.
			result.not_checked.append(NotChecked(name, failed[name]))
		elif not remaining[name]:
			result.findings += found[name]
			result.parse_failures += unparsed[name]
	result.findings = fmt.assign_ids(fmt.group(sorted(set(result.findings))))
	result.parse_failures.sort()
	result.not_checked.sort()
	result.timed_out.sort()
	result.seconds = time.monotonic() - start
	return result


def source_lines(root: Path) -> Callable[[str, int], str]:
	"""file, line -> the text of that line under root ('' past the end),
	each file read once."""
	lines: dict[str, list[str]] = {}

	def source_line(file: str, line: int) -> str:
		if file not in lines:
			lines[file] = _read_lines(root / file)
		text = lines[file]
		return text[line - 1] if 0 < line <= len(text) else ''
	return source_line


def _size(path: Path) -> int:
	try:
		return path.stat().st_size
	except OSError:
		return 0


def _relative(path: Path, root: Path) -> str:
	"""path relative to root (resolved), under its own name: a link to a
	file keeps its name, a link loop does not stop the check."""
	plain = Path(os.path.abspath(path))
	for candidate in (plain, plain.parent.resolve() / plain.name):
		try:
			return str(candidate.relative_to(root))
		except ValueError:
			continue
	return str(plain)


def _read_lines(path: Path) -> list[str]:
	"""The lines of a file as spatch numbers them."""
	try:
		return unparsed.source_lines(selection.read_source(path))
	except OSError:
		return []
