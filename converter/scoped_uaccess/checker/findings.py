# SPDX-License-Identifier: GPL-2.0
"""The checker's findings: the class table, ids, and the text, JSON and SARIF forms."""

import collections
import dataclasses
import enum
import json
import re
import textwrap
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional

from scoped_uaccess.cocci.unparsed import NotChecked, ParseFailure, digest


class Severity(enum.Enum):
	ERROR = 'ERROR'
	WARNING = 'WARNING'


@dataclass(frozen=True)
class CheckClass:
	"""One class of finding, as the header of its checker script describes it."""
	name: str
	text: str		# what it reports, from the header
	severity: Severity	# the default: WARNING when the header says so
	script: str		# the .cocci file that reports it


# `///  [class]   what it reports`, continued on `///` lines indented deeper.
_CLASS_LINE = re.compile(r'^///\s+\[(?P<cls>[a-z-]+)\]\s+(?P<text>\S.*)$')
_CONTINUED = re.compile(r'^///\s{4,}(?P<text>\S.*)$')


def class_table(scripts: Iterable[Path]) -> dict[str, CheckClass]:
	"""The classes the checker scripts report, in the order of their headers:
	the one table that the summary, the counts and the SARIF rules read."""
	table: dict[str, CheckClass] = {}
	for script in scripts:
		current: Optional[list] = None
		for line in script.read_text().splitlines():
			if m := _CLASS_LINE.match(line):
				current = [m['cls'], m['text'].strip()]
				table[m['cls']] = _class(current, script)
			elif current and (m := _CONTINUED.match(line)):
				current[1] += ' ' + m['text'].strip()
				table[current[0]] = _class(current, script)
			else:
				current = None
	return table


def _class(entry: list, script: Path) -> CheckClass:
	name, text = entry
	severity = Severity.WARNING if text.startswith('(WARNING)') else Severity.ERROR
	text = text.removeprefix('(WARNING)').strip()
	return CheckClass(name, text, severity, script.name)


PARSE_ERROR = CheckClass('parse-error', 'code that spatch cannot parse: not checked',
			 Severity.ERROR, '')
NOT_CHECKED = CheckClass('not-checked', 'a file the check did not cover (unreadable, or '
			 'spatch failed or did not finish within its limits)', Severity.ERROR, '')


@dataclass(frozen=True, order=True)
class Finding:
	"""One report of the checker.  Columns are Coccinelle's: 0-based, end
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


# file:line:col-col: SEVERITY: [class] message, as coccilib.report prints;
# the name may hold colons (a:b.c:12:1-5: ...).
_REPORT = re.compile(r'^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+)-(?P<col_end>\d+): '
		     r'(?P<severity>ERROR|WARNING): \[(?P<cls>[a-z-]+)\] (?P<message>.*)$')


def parse_report(text: str) -> list[Finding]:
	"""The findings in spatch's report-mode output."""
	findings = []
	for line in text.splitlines():
		m = _REPORT.match(line)
		if m:
			file = m['file'][2:] if m['file'].startswith('./') else m['file']
			findings.append(Finding(file, int(m['line']), int(m['col']),
						int(m['col_end']), Severity(m['severity']),
						m['cls'], m['message']))
	return findings


# The classes whose findings of one function are one mistake when they say
# the same (the same call, pointer or region at several lines): the
# project-only layer groups them, the kernel scripts print every line.
GROUPED = ('call-in-region', 'range', 'masked-pointer', 'accessor-mode', 'access-outside-region')
# The lines a grouped finding lists after its message (group()).
_ALSO = re.compile(r'; also lines? [0-9, -]+$')


def line_ranges(lines: Iterable[int]) -> str:
	"""Sorted line numbers as text, runs joined: [3, 4, 5, 9] -> '3-5, 9'."""
	out: list[str] = []
	for n in sorted(set(lines)):
		if out and n == out[-1][1] + 1:
			out[-1][1] = n
		else:
			out.append([n, n])
	return ', '.join(f'{a}-{b}' if a != b else f'{a}' for a, b in out)


def group(findings: list[Finding]) -> list[Finding]:
	"""One finding per mistake: findings of a GROUPED class in one file and
	function with the same message are one, at the first of them, with
	the other lines listed."""
	first: dict[tuple, Finding] = {}
	others: dict[tuple, set[int]] = collections.defaultdict(set)
	out = []
	for f in sorted(findings):
		if f.cls not in GROUPED:
			out.append(f)
			continue
		k = (f.file, function_of(f.message), f.cls, f.message)
		if k in first:
			others[k].add(f.line)
		else:
			first[k] = f
	for k, f in first.items():
		rest = others[k] - {f.line}
		if rest:
			f = dataclasses.replace(f, message=f'{f.message}; also line'
						f'{"s" if len(rest) > 1 else ""} {line_ranges(rest)}')
		out.append(f)
	return sorted(out)


def function_of(message: str) -> str:
	"""The function a message names first: `emulate_spe(): ...`."""
	m = re.match(r'(\w+)\(\): ', message)
	return m.group(1) if m else ''


def stem(message: str) -> str:
	"""A message without what moves when code moves: its line numbers and
	the list of the other lines of the mistake."""
	return re.sub(r'\blines? \d+\b', 'line N', _ALSO.sub('', message))


def fingerprint(f: Finding) -> str:
	"""What identifies a mistake across runs and trees: the file, the
	function, the class and the message stem, which names the pointer or
	the function called.  Line numbers are not part of it, so it survives
	code moving up or down and a verdict carries over from one tree to the
	next.  The file is: the same function and words in another file is
	another argument (csum_and_copy_from_user() on x86 and on powerpc)."""
	return digest(f'{f.file}\0{function_of(f.message)}\0{f.cls}\0{stem(f.message)}')


def assign_ids(findings: list[Finding]) -> list[Finding]:
	"""Gives every finding its id: class and fingerprint, and a counter
	when one function makes the same mistake in two places that the
	checker tells apart (two regions, each with its finding)."""
	seen: dict[str, int] = {}
	out = []
	for f in sorted(findings):
		base = fingerprint(f)
		n = seen.get(base, 0)
		seen[base] = n + 1
		fid = f'{f.cls}-{base}' + (f'-{n}' if n else '')
		out.append(Finding(f.file, f.line, f.col, f.col_end, f.severity, f.cls,
				   f.message, fid))
	return out


def findings_from_json(text: str) -> list[Finding]:
	data = json.loads(text)
	return [Finding.from_dict(d) for d in data.get('findings', [])]


# ---- output forms ------------------------------------------------------------

def to_text(findings: list[Finding], failures: list[ParseFailure]) -> str:
	lines = [f.text() for f in findings] + [p.text() for p in failures]
	return ''.join(line + '\n' for line in lines)


# The tool's name in JSON and SARIF, that of the checker scripts
# (scoped_uaccess_*.cocci): SARIF consumers (code scanning) match earlier
# results by tool name and fingerprint.
TOOL_NAME = 'scoped_uaccess'


def to_json(findings: list[Finding], failures: list[ParseFailure], files: list[str],
	    spatch_version: str, not_checked: Iterable[NotChecked] = (), complete: bool = True,
	    **extra: object) -> str:
	"""The findings as JSON; complete says every line of every file was
	checked, not_checked names the files that were not; extra keys (an
	error, a review's range) go at the end."""
	return json.dumps({
		'tool': {'name': TOOL_NAME, 'spatch': spatch_version},
		'complete': complete,
		'files': files,
		'findings': [f.as_dict() for f in findings],
		'parse_failures': [p.as_dict() for p in failures],
		'not_checked': [n.as_dict() for n in not_checked],
		**extra,
	}, indent=1) + '\n'


SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json'
SARIF_LEVEL = {Severity.ERROR: 'error', Severity.WARNING: 'warning'}
# Where a kernel version names its source: the stable tree tags every release.
KERNEL_REPOSITORY = 'https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git'
# The base id of every artifact location: the top of the kernel tree, or
# the directory the checker ran in (SarifTree.base says which).
SRCROOT = 'SRCROOT'
TREE_TOP = 'the top of the kernel tree'


@dataclass(frozen=True)
class SarifTree:
	"""What a SARIF log says of the tree it checked.  A committed log has
	only the version and the description: root_uri and revision name this
	machine's checkout and go into logs that stay under build/.  The
	stable tree's tag is claimed (released) only for a git tree that is
	clean at that tag; otherwise the log says what is known of the tree."""
	version: Optional[str] = None		# the version the tree's Makefile declares
	description: str = ''			# how the tree was made, with no commit id
	root_uri: Optional[str] = None		# file:///.../ of the base
	revision: Optional[str] = None		# the tree's commit, when it is a git tree
	base: str = TREE_TOP			# what the paths are relative to
	released: bool = False			# a clean git tree at tag v<version>


def rule_name(cls: str) -> str:
	"""SARIF's friendly name of a class: mode-mismatch -> ModeMismatch."""
	return ''.join(part.capitalize() for part in cls.split('-'))


def _rule(c: CheckClass, comments: dict[str, str]) -> dict:
	text = c.text[:1].upper() + c.text[1:]
	if c.script:
		help_text = (f'{text}.  Reported by {c.script} (cocci/{c.script} in the scoped-uaccess '
			     'repository, scripts/coccinelle/misc/ in a tree with the series); '
			     'its header explains the class.')
	else:
		help_text = (f'{text}.  spatch gave up on these lines: the API calls in them are '
			     'not checked; read them by hand.')
	if comments.get(c.script):
		help_text += '\n\n' + comments[c.script]
	rule: dict = {'id': c.name}
	# SARIF1001: a name equal to the id, case aside, must be left out.
	if rule_name(c.name).lower() != c.name.lower():
		rule['name'] = rule_name(c.name)
	return {**rule,
		'shortDescription': {'text': text},
		'fullDescription': {'text': text + '.'},
		'help': {'text': help_text},
		'defaultConfiguration': {'level': SARIF_LEVEL[c.severity]}}


def _snippets(file: str, line: int, col: int, col_end: Optional[int],
	      source_line: Optional[Callable[[str, int], str]]) -> tuple[dict, Optional[dict]]:
	"""The region (1-based columns, end exclusive) with the text it covers,
	and a context region of the line before and after it."""
	region: dict = {'startLine': line, 'startColumn': col}
	if col_end is not None and col_end > col:
		region['endColumn'] = col_end
	if source_line is None:
		return region, None
	text = source_line(file, line)
	if not text:
		return region, None
	region['snippet'] = {'text': text[col - 1:col_end - 1] if 'endColumn' in region
			     else text[col - 1:]}
	lines = [(n, source_line(file, n)) for n in range(max(1, line - 1), line + 2)]
	while lines and lines[-1][0] > line and not lines[-1][1]:
		lines.pop()	# past the end of the file
	context = {'startLine': lines[0][0], 'endLine': lines[-1][0],
		   'snippet': {'text': ''.join(t + '\n' for _, t in lines)}}
	return region, context


def to_sarif(findings: list[Finding], failures: list[ParseFailure], classes: dict[str, CheckClass],
	     spatch_version: str, tree: SarifTree = SarifTree(),
	     source_line: Optional[Callable[[str, int], str]] = None,
	     comments: Optional[dict[str, str]] = None, not_checked: Iterable[NotChecked] = (),
	     complete: bool = True, error: str = '') -> str:
	"""SARIF 2.1.0: one run, one rule per class, columns made 1-based;
	source_line gives the region snippets, comments each script's
	deliberate limits and known false positives for the rules' help.  The
	run is successful only when every line was checked (complete, nothing
	in failures or not_checked, no error)."""
	not_checked = list(not_checked)
	rules = [*classes.values(), PARSE_ERROR, NOT_CHECKED]
	index = {c.name: i for i, c in enumerate(rules)}
	results = []
	for f in findings:
		results.append({
			'ruleId': f.cls,
			'ruleIndex': index[f.cls],
			'level': SARIF_LEVEL[f.severity],
			'message': {'text': f.message},
			'locations': [_sarif_location(f.file, f.line, f.col + 1, f.col_end + 1,
						      source_line)],
			'partialFingerprints': {'scopedUaccessId/v1': f.id},
		})
	for p in failures:
		results.append({
			'ruleId': PARSE_ERROR.name,
			'ruleIndex': index[PARSE_ERROR.name],
			'level': 'error',
			'message': {'text': p.text().split('[parse-error] ', 1)[1]},
			'locations': [_sarif_location(p.file, p.line, 1, None, source_line)],
			'partialFingerprints': {'scopedUaccessId/v1': p.id},
		})
	for n in not_checked:
		results.append({
			'ruleId': NOT_CHECKED.name,
			'ruleIndex': index[NOT_CHECKED.name],
			'level': 'error',
			'message': {'text': f'{n.reason}: not checked'},
			'locations': [_sarif_location(n.file, 1, 1, None)],
			'partialFingerprints': {'scopedUaccessId/v1': 'not-checked-' + digest(n.file)},
		})
	root: dict = {'description': {'text': tree.base
				       + (f' (Linux {tree.version})' if tree.version and
					  tree.base == TREE_TOP else '')}}
	if tree.root_uri:
		root['uri'] = tree.root_uri
	run: dict = {
		'tool': {'driver': {
			'name': TOOL_NAME,
			'informationUri': 'https://coccinelle.gitlabpages.inria.fr/website/',
			'version': spatch_version or 'unknown',
			'rules': [_rule(c, comments or {}) for c in rules],
		}},
		'originalUriBaseIds': {SRCROOT: root},
	}
	if tree.version and tree.released:
		provenance: dict = {'repositoryUri': KERNEL_REPOSITORY,
				    'revisionTag': f'v{tree.version}',
				    'mappedTo': {'uriBaseId': SRCROOT}}
		if tree.revision:
			provenance['revisionId'] = tree.revision
		run['versionControlProvenance'] = [provenance]
	if tree.description:
		run['properties'] = {'tree': tree.description}
	# Coccinelle counts characters: a tab is one column
	run['columnKind'] = 'unicodeCodePoints'
	invocation: dict = {'executionSuccessful': complete and not failures and not not_checked
			    and not error}
	notes = [f'{n.file}: {n.reason}: not checked' for n in not_checked]
	if failures:
		notes.append(f'{len(failures)} block(s) spatch cannot parse: not checked')
	if error:
		notes.insert(0, error)
	elif not complete and not failures and not not_checked:
		notes.append('the run did not finish: not every file was checked')
	if notes:
		invocation['toolExecutionNotifications'] = [
			{'level': 'error', 'message': {'text': note}} for note in notes]
	run['invocations'] = [invocation]
	run['results'] = results
	log = {'$schema': SARIF_SCHEMA_URI, 'version': '2.1.0', 'runs': [run]}
	return json.dumps(log, indent=1) + '\n'


def _sarif_location(file: str, line: int, col: int, col_end: Optional[int],
		    source_line: Optional[Callable[[str, int], str]] = None) -> dict:
	region, context = _snippets(file, line, col, col_end, source_line)
	if Path(file).is_absolute():
		artifact = {'uri': Path(file).as_uri()}
	else:
		# A relative reference, percent-encoded: a colon too, or a:b.c
		# would read as a URI of scheme a.
		artifact = {'uri': urllib.parse.quote(file, safe="/!$&'()*+,;=@-._~"),
			    'uriBaseId': SRCROOT}
	location: dict = {'artifactLocation': artifact, 'region': region}
	if context:
		location['contextRegion'] = context
	return {'physicalLocation': location}


def script_comments(script: Path) -> str:
	"""The `// Comments:` block of a script's header, up to the next
	`// Field:` line, as plain text: its deliberate limits and known false
	positives."""
	out, inside = [], False
	for line in script.read_text().splitlines():
		if line.startswith('// Comments:'):
			inside = True
			continue
		if inside:
			if not line.startswith('//') or re.match(r'^// [A-Z][a-z]+:', line):
				break
			out.append(line[2:].rstrip())
	return textwrap.dedent('\n'.join(out)).strip('\n')
