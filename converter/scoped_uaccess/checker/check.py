# SPDX-License-Identifier: GPL-2.0
"""The checker scripts over files and directories: their findings as data."""

import collections
import concurrent.futures
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

from scoped_uaccess.checker import findings as fmt
from scoped_uaccess.cocci import shim, spatch
from scoped_uaccess.checker.findings import CheckClass, Finding, Severity
from scoped_uaccess.cocci.spatch import ParseFailure
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import CommandFailed, EnvironmentProblem, UsageError

# The checker: one script (cocci/README.md), whose header lists the classes
# it reports; one spatch run per file.  A tuple, as --cocci may name others:
# every script runs on every file, and no two report the same class.
CHECKERS: tuple[Path, ...] = (spatch.COCCI_DIR / 'scoped_uaccess.cocci',)


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
	inlines: Optional[Path] = None	# the tree's header inline index (inlines.index())


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

	def counts(self) -> dict[str, int]:
		return {cls: sum(1 for f in self.findings if f.cls == cls) for cls in self.classes}

	def errors(self, file: str) -> list[Finding]:
		return [f for f in self.findings if f.file == file and f.severity is Severity.ERROR]

	def to_text(self) -> str:
		return fmt.to_text(self.findings, self.parse_failures)

	def to_json(self) -> str:
		return fmt.to_json(self.findings, self.parse_failures, self.files, self.spatch_version)

	def to_sarif(self, root: Path, tree: fmt.SarifTree = fmt.SarifTree()) -> str:
		"""SARIF of the findings, paths relative to root, whose source gives
		the region snippets; tree says what the log may tell of it."""
		scripts = {c.script for c in self.classes.values()}
		comments = {s.name: fmt.script_comments(s) for s in self.scripts
			    if s.name in scripts and s.is_file()}
		return fmt.to_sarif(self.findings, self.parse_failures, self.classes,
				    self.spatch_version, tree, source_lines(root), comments)


def _size(path: Path) -> int:
	try:
		return path.stat().st_size
	except OSError:
		return 0


def run_check(runner: Runner, request: CheckRequest,
	      progress: Optional[Callable[[str], None]] = None) -> CheckResult:
	"""Runs the scripts on every file of the request that uses the API."""
	for script in request.scripts:
		if not script.is_file():
			raise EnvironmentProblem(f'{script}: no such semantic patch')
	start = time.monotonic()
	root = (request.root or Path.cwd()).resolve()
	files = spatch.find_files(runner, request.paths)
	result = CheckResult(spatch_version=spatch.version(runner),
			     classes=classes(request.scripts), scripts=tuple(request.scripts))
	names = [_relative(f, root) for f in files]
	result.files = names
	done = 0

	# One task per spatch run: every script on every parse variant of a
	# file.  The largest files start first: spatch's time grows with a
	# file's paths, and a long run started last would leave the other
	# workers idle.
	tasks = [(name, variant, script) for name in names
		 for variant in spatch.parse_variants(name) for script in request.scripts]
	tasks.sort(key=lambda task: -_size(root / task[0]))
	remaining = collections.Counter(name for name, _, _ in tasks)
	# Files with scope bodies spatch cannot parse as such run from a copy
	# with braces around them (shim.py), named as the original in the output.
	copies = tempfile.TemporaryDirectory(prefix='scoped-uaccess-check-')
	shimmed = {}
	for name in names:
		try:
			text = (root / name).read_text(errors='replace')
		except OSError:
			continue
		braced = shim.brace_scopes(text)
		if braced != text:
			shimmed[name] = Path(copies.name) / name.lstrip('/')
			shimmed[name].parent.mkdir(parents=True, exist_ok=True)
			shimmed[name].write_text(braced)

	def one(task: tuple[str, tuple[str, ...], Path]) -> tuple[str, list, list, bool]:
		name, variant, script = task
		copy = shimmed.get(name)
		run = runner.run(spatch.command(script, 'report', str(copy or name), root, variant,
						timeout=request.timeout,
						extra=('--verbose-parsing',),
						inlines=request.inlines), Output.CAPTURE,
				 check=False)
		if copy:
			run.output = run.output.replace(str(copy), name)
			run.stderr = run.stderr.replace(str(copy), name)
		if request.timeout and spatch.timed_out(run.returncode, run.stderr + run.output):
			return name, [], [], True
		if run.returncode != 0:
			raise CommandFailed(run.command.shell_line(), run.returncode,
					    run.stderr or run.output,
					    'the semantic patch or spatch failed; rerun the command')
		source = _read_lines(root / name)
		return (name, fmt.parse_report(run.output),
			spatch.parse_failures(run.stderr, name, source), False)

	found: dict[str, set[Finding]] = collections.defaultdict(set)
	unparsed: dict[str, set[ParseFailure]] = collections.defaultdict(set)
	with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, request.jobs)) as pool:
		futures = [pool.submit(one, task) for task in tasks]
		for future in concurrent.futures.as_completed(futures):
			try:
				name, got, failures, late = future.result()
			except BaseException:
				# spatch failed: report it now, not after the queued runs.
				pool.shutdown(wait=False, cancel_futures=True)
				raise
			found[name].update(got)
			unparsed[name].update(failures)
			if late and name not in result.timed_out:
				result.timed_out.append(name)
			remaining[name] -= 1
			if remaining[name]:
				continue
			done += 1
			if progress:
				progress(f'[{done}/{len(names)}] {name}: {len(found[name])} finding(s)'
					 + (f', {len(unparsed[name])} unparsed block(s)'
					    if unparsed[name] else '')
					 + (', timed out' if name in result.timed_out else ''))
			result.findings += found[name]
			result.parse_failures += unparsed[name]
	copies.cleanup()
	result.findings = fmt.assign_ids(sorted(set(result.findings)))
	result.parse_failures.sort()
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


def _relative(path: Path, root: Path) -> str:
	try:
		return str(path.resolve().relative_to(root))
	except ValueError:
		return str(path.resolve())


def _read_lines(path: Path) -> list[str]:
	try:
		return path.read_text(errors='replace').splitlines()
	except OSError:
		return []
