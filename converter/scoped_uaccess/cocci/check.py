# SPDX-License-Identifier: GPL-2.0
"""scoped_uaccess.cocci over files and directories: its findings as data."""

import collections
import concurrent.futures
import enum
import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import CommandFailed, EnvironmentProblem, UsageError

COCCI = paths.REPO / 'cocci' / 'scoped_uaccess.cocci'
# Parsing hints coccicheck does not have: COMPAT_SYSCALL_DEFINEn().
MACROS = paths.REPO / 'cocci' / 'kernel-macros.h'
SPATCH = 'spatch'
SOURCE_SUFFIXES = ('.c', '.h')
# What the rule's gate looks for: a file without any of these is not
# parsed by spatch either.  Accessors alone (helpers) are not checked.
API_WORDS = ('user_access_begin', 'user_rw_access_begin', 'user_read_access_begin',
	     'user_write_access_begin', 'masked_user_access_begin',
	     'masked_user_rw_access_begin', 'masked_user_read_access_begin',
	     'masked_user_write_access_begin', 'user_access_end', 'user_rw_access_end',
	     'user_read_access_end', 'user_write_access_end',
	     'scoped_user_read_access', 'scoped_user_read_access_size',
	     'scoped_user_write_access', 'scoped_user_write_access_size',
	     'scoped_user_rw_access', 'scoped_user_rw_access_size')
API_PATTERN = r'\b(' + '|'.join(API_WORDS) + r')\b'
# Uses of the API that a parse failure would hide, accessors included.
_API_USE = re.compile(r'\b(' + '|'.join(API_WORDS) +
		      r'|get_user_inline|put_user_inline|unsafe_[a-z0-9_]+)\s*\(')

# Files whose functions spatch can only parse with one side of an #ifdef
# chosen: both sides are checked, one run each, and the findings merged.
# arch/powerpc/kernel/signal_32.c: swapcontext() has a COMPAT_SYSCALL_DEFINE3
# and a SYSCALL_DEFINE3 header under #ifdef CONFIG_PPC64 for one body.
PARSE_VARIANTS: dict[str, tuple[tuple[str, ...], ...]] = {
	'arch/powerpc/kernel/signal_32.c': (('--defined', 'CONFIG_PPC64'),
					    ('--undefined', 'CONFIG_PPC64')),
}

# file:line:col-col: SEVERITY: [class] message, as coccilib.report prints
_REPORT = re.compile(r'^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+)-(?P<col_end>\d+): '
		     r'(?P<severity>ERROR|WARNING): \[(?P<cls>[a-z-]+)\] (?P<message>.*)$')


class Severity(enum.Enum):
	ERROR = 'ERROR'
	WARNING = 'WARNING'


# The classes the rule reports, in the order of the issue.
CLASSES = ('mode-mismatch', 'accessor-mode', 'missing-end', 'end-without-begin',
	   'access-outside-region', 'range', 'call-in-region', 'nesting',
	   'masked-pointer', 'masked-range')


@dataclass(frozen=True, order=True)
class Finding:
	"""One report of the rule.  Columns are Coccinelle's: 0-based, end
	exclusive."""
	file: str
	line: int
	col: int
	col_end: int
	severity: Severity = field(compare=False)
	cls: str
	message: str
	id: str = field(default='', compare=False)

	def text(self) -> str:
		return (f'{self.file}:{self.line}:{self.col}-{self.col_end}: '
			f'{self.severity.value}: [{self.cls}] {self.message}')

	def as_dict(self) -> dict:
		return {'id': self.id, 'file': self.file, 'line': self.line, 'col': self.col,
			'col_end': self.col_end, 'severity': self.severity.value,
			'class': self.cls, 'message': self.message}

	@staticmethod
	def from_dict(d: dict) -> 'Finding':
		return Finding(d['file'], d['line'], d['col'], d['col_end'],
			       Severity(d['severity']), d['class'], d['message'], d.get('id', ''))


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
		return 'parse-' + _digest(f'{self.file}\0{" ".join(self.uses)}')

	def text(self) -> str:
		return (f'{self.file}:{self.line}:0-0: ERROR: [parse-error] spatch cannot parse '
			f'lines {self.first}-{self.last}, which use {", ".join(self.uses)}: '
			'not checked')

	def as_dict(self) -> dict:
		return {'id': self.id, 'file': self.file, 'line': self.line, 'first': self.first,
			'last': self.last, 'uses': list(self.uses)}


@dataclass(frozen=True)
class CheckRequest:
	paths: Sequence[Path]
	cocci: Path = COCCI
	root: Optional[Path] = None	# paths in the output are relative to it
	jobs: int = os.cpu_count() or 1


@dataclass
class CheckResult:
	files: list[str] = field(default_factory=list)
	findings: list[Finding] = field(default_factory=list)
	parse_failures: list[ParseFailure] = field(default_factory=list)
	seconds: float = 0.0
	spatch_version: str = ''

	def counts(self) -> dict[str, int]:
		return {cls: sum(1 for f in self.findings if f.cls == cls) for cls in CLASSES}


def _size(path: Path) -> int:
	try:
		return path.stat().st_size
	except OSError:
		return 0


def _digest(text: str) -> str:
	return hashlib.sha1(text.encode()).hexdigest()[:12]


def spatch_options(cocci: Path) -> list[str]:
	"""The `// Options:` of the rule, as coccicheck passes them."""
	try:
		text = cocci.read_text()
	except OSError as e:
		raise EnvironmentProblem(f'cannot read {cocci}: {e.strerror}') from e
	for line in text.splitlines():
		if line.startswith('// Options:'):
			return line.split(':', 1)[1].split()
	return []


def spatch_version(runner: Runner) -> str:
	result = runner.run(Command((SPATCH, '--version'), mutates=False), Output.CAPTURE,
			    fix='install coccinelle (make deps)')
	first = result.output.splitlines()[0] if result.output else ''
	match = re.search(r'version (\S+)', first)
	return match.group(1) if match else first


def find_files(runner: Runner, targets: Iterable[Path]) -> list[Path]:
	"""The C files and headers under targets that use the API."""
	found: list[Path] = []
	for target in targets:
		if target.is_file():
			if not target.name.endswith(SOURCE_SUFFIXES):
				raise UsageError(f'{target}: not a C source or header')
			found.append(target)
		elif target.is_dir():
			found += _files_using_api(runner, target)
		else:
			raise UsageError(f'{target}: no such file or directory')
	return sorted(set(found))


def _files_using_api(runner: Runner, directory: Path) -> list[Path]:
	# git grep is fast on a kernel tree; plain directories are walked.
	if (directory / '.git').exists():
		result = runner.run(Command(('git', '--no-optional-locks', 'grep', '-l', '-E',
					     API_PATTERN, '--', '*.c', '*.h'), cwd=directory,
					    mutates=False), Output.CAPTURE, check=False)
		if result.returncode in (0, 1):
			return [directory / name for name in result.output.splitlines() if name]
	pattern = re.compile(API_PATTERN)
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


def parse_variants(name: str) -> tuple[tuple[str, ...], ...]:
	"""The spatch runs a file needs: a kernel path matches at any depth."""
	for path, variants in PARSE_VARIANTS.items():
		if name == path or name.endswith('/' + path):
			return variants
	return ((),)


def spatch_command(cocci: Path, file: str, cwd: Path, variant: Sequence[str] = ()) -> Command:
	"""spatch in report mode on one file: one file per run, so that its
	parse messages on stderr belong to that file."""
	hints = ('--macro-file', str(MACROS)) if MACROS.is_file() else ()
	return Command((SPATCH, '-D', 'report', '--no-show-diff', '--verbose-parsing',
			'--sp-file', str(cocci), *spatch_options(cocci), *hints, *variant, file),
		       cwd=cwd, mutates=False)


def parse_report(text: str) -> list[Finding]:
	findings = []
	for line in text.splitlines():
		m = _REPORT.match(line)
		if m:
			file = m['file'][2:] if m['file'].startswith('./') else m['file']
			findings.append(Finding(file, int(m['line']), int(m['col']),
						int(m['col_end']), Severity(m['severity']),
						m['cls'], m['message']))
	return findings


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
	error position) that use the API outside comments and macro bodies."""
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


def assign_ids(findings: list[Finding], source_line: Callable[[str, int], str]) -> list[Finding]:
	"""Gives every finding an id that survives code moving up or down:
	file, class, message without line numbers and the text of its line."""
	seen: dict[str, int] = {}
	out = []
	for f in sorted(findings):
		message = re.sub(r'\bline \d+\b', 'line N', f.message)
		base = _digest(f'{f.file}\0{f.cls}\0{message}\0{source_line(f.file, f.line).strip()}')
		n = seen.get(base, 0)
		seen[base] = n + 1
		fid = f'{f.cls}-{base}' + (f'-{n}' if n else '')
		out.append(Finding(f.file, f.line, f.col, f.col_end, f.severity, f.cls,
				   f.message, fid))
	return out


def run_check(runner: Runner, request: CheckRequest,
	      progress: Optional[Callable[[str], None]] = None) -> CheckResult:
	"""Runs the rule on every file of the request that uses the API."""
	if not request.cocci.is_file():
		raise EnvironmentProblem(f'{request.cocci}: no such semantic patch')
	start = time.monotonic()
	root = (request.root or Path.cwd()).resolve()
	files = find_files(runner, request.paths)
	result = CheckResult(spatch_version=spatch_version(runner))
	names = [_relative(f, root) for f in files]
	result.files = names
	done = 0

	# One task per spatch run; a file with parse variants has several.  The
	# largest files start first: spatch's time grows with a file's paths, and
	# a long run started last would leave the other workers idle.
	tasks = [(name, variant) for name in names for variant in parse_variants(name)]
	tasks.sort(key=lambda task: -_size(root / task[0]))
	remaining = collections.Counter(name for name, _ in tasks)

	def one(task: tuple[str, tuple[str, ...]]) -> tuple[str, list[Finding], list[ParseFailure]]:
		name, variant = task
		run = runner.run(spatch_command(request.cocci, name, root, variant),
				 Output.CAPTURE, check=False)
		if run.returncode != 0:
			raise CommandFailed(run.command.shell_line(), run.returncode,
					    run.stderr or run.output,
					    'the semantic patch or spatch failed; rerun the command')
		source = _read_lines(root / name)
		return name, parse_report(run.output), parse_failures(run.stderr, name, source)

	found: dict[str, set[Finding]] = collections.defaultdict(set)
	unparsed: dict[str, set[ParseFailure]] = collections.defaultdict(set)
	with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, request.jobs)) as pool:
		futures = [pool.submit(one, task) for task in tasks]
		for future in concurrent.futures.as_completed(futures):
			try:
				name, findings, failures = future.result()
			except BaseException:
				# spatch failed: report it now, not after the queued runs.
				pool.shutdown(wait=False, cancel_futures=True)
				raise
			found[name].update(findings)
			unparsed[name].update(failures)
			remaining[name] -= 1
			if remaining[name]:
				continue
			done += 1
			if progress:
				progress(f'[{done}/{len(names)}] {name}: {len(found[name])} finding(s)'
					 + (f', {len(unparsed[name])} unparsed block(s)'
					    if unparsed[name] else ''))
			result.findings += found[name]
			result.parse_failures += unparsed[name]
	lines: dict[str, list[str]] = {}

	def source_line(file: str, line: int) -> str:
		if file not in lines:
			lines[file] = _read_lines(root / file)
		text = lines[file]
		return text[line - 1] if 0 < line <= len(text) else ''

	result.findings = assign_ids(sorted(set(result.findings)), source_line)
	result.parse_failures.sort()
	result.seconds = time.monotonic() - start
	return result


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


# ---- output formats -----------------------------------------------------

def to_text(result: CheckResult) -> str:
	lines = [f.text() for f in result.findings]
	lines += [p.text() for p in result.parse_failures]
	return ''.join(line + '\n' for line in lines)


def to_json(result: CheckResult) -> str:
	return json.dumps({
		'tool': {'name': 'scoped_uaccess.cocci', 'spatch': result.spatch_version},
		'files': result.files,
		'findings': [f.as_dict() for f in result.findings],
		'parse_failures': [p.as_dict() for p in result.parse_failures],
	}, indent=1) + '\n'


def findings_from_json(text: str) -> list[Finding]:
	data = json.loads(text)
	return [Finding.from_dict(d) for d in data.get('findings', [])]


SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json'
SARIF_LEVEL = {Severity.ERROR: 'error', Severity.WARNING: 'warning'}
RULE_HELP = {
	'mode-mismatch': 'Region begun in one mode and ended in another',
	'accessor-mode': 'Accessor of the wrong mode for its region',
	'missing-end': 'Path out of a region without its end',
	'end-without-begin': 'End of a region with no region open',
	'access-outside-region': 'User accessor with no region open',
	'range': 'Accessor address not based on the begin pointer',
	'call-in-region': 'Call inside a user access region',
	'nesting': 'Region or scope opened inside another one',
	'masked-pointer': 'Masked pointer discarded or bypassed',
	'masked-range': 'First masked access may lie beyond a page',
	'parse-error': 'Code that spatch cannot parse, not checked',
}


def to_sarif(result: CheckResult, root: Path) -> str:
	"""SARIF 2.1.0: one run, one rule per class, columns made 1-based."""
	rules = list(RULE_HELP)
	results = []
	for f in result.findings:
		results.append({
			'ruleId': f.cls,
			'ruleIndex': rules.index(f.cls),
			'level': SARIF_LEVEL[f.severity],
			'message': {'text': f.message},
			'locations': [_sarif_location(f.file, f.line, f.col + 1, f.col_end + 1)],
			'partialFingerprints': {'scopedUaccessId/v1': f.id},
		})
	for p in result.parse_failures:
		results.append({
			'ruleId': 'parse-error',
			'ruleIndex': rules.index('parse-error'),
			'level': 'error',
			'message': {'text': p.text().split('[parse-error] ', 1)[1]},
			'locations': [_sarif_location(p.file, p.line, 1, None)],
			'partialFingerprints': {'scopedUaccessId/v1': p.id},
		})
	log = {
		'$schema': SARIF_SCHEMA_URI,
		'version': '2.1.0',
		'runs': [{
			'tool': {'driver': {
				'name': 'scoped_uaccess.cocci',
				'informationUri': 'https://coccinelle.gitlabpages.inria.fr/website/',
				'version': result.spatch_version or 'unknown',
				'rules': [{'id': r, 'shortDescription': {'text': RULE_HELP[r]},
					   'defaultConfiguration': {'level': 'warning' if r == 'masked-range'
								    else 'error'}}
					  for r in rules],
			}},
			'originalUriBaseIds': {'SRCROOT': {'uri': root.resolve().as_uri() + '/'}},
			# Coccinelle counts characters: a tab is one column
			'columnKind': 'unicodeCodePoints',
			'invocations': [{'executionSuccessful': not result.parse_failures}],
			'results': results,
		}],
	}
	return json.dumps(log, indent=1) + '\n'


def _sarif_location(file: str, line: int, col: int, col_end: Optional[int]) -> dict:
	region: dict = {'startLine': line, 'startColumn': col}
	if col_end is not None and col_end > col:
		region['endColumn'] = col_end
	if Path(file).is_absolute():
		artifact = {'uri': Path(file).as_uri()}
	else:
		artifact = {'uri': file, 'uriBaseId': 'SRCROOT'}
	return {'physicalLocation': {'artifactLocation': artifact, 'region': region}}
