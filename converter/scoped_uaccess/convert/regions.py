# SPDX-License-Identifier: GPL-2.0
"""The regions the rules report, and the tables the conversion writes: conversion.json, summary.md."""

import collections
import json
import re
from dataclasses import dataclass, field
from typing import Optional

from scoped_uaccess.analysis.status import Reason, Status, Tag

# FILE:LINE:COL: REGION [tag] FUNCTION(): text  (cocci/README.md)
_REGION = re.compile(r'^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+)(?:-\d+)?: REGION '
		     r'\[(?P<tag>[^\]\s]+)\] (?P<function>[A-Za-z_]\w*)\(\): ?(?P<text>.*)$')
_SCOPE = re.compile(r'\bscoped_user_(?:read|write|rw)_access(?:_size)?\b')
_BEGIN_CALL = re.compile(r'\b((?:masked_)?user_(?:read_|write_|rw_)?access_begin)\b')


@dataclass(frozen=True, order=True)
class CensusRegion:
	"""One open-coded region as the census (the rules' report mode) lists it, in
	the unconverted tree: a REGION line."""
	file: str
	line: int
	col: int
	function: str
	tag: Tag
	text: str = ''

	@property
	def skipped(self) -> bool:
		return self.tag.skipped

	@property
	def status(self) -> Status:
		return self.tag.status

	@property
	def reason(self) -> Optional[Reason]:
		return self.tag.reason

	@property
	def shape(self) -> str:
		"""fault-label, two-level, shared-exit, masked or no-fault."""
		return self.tag.shape

	@property
	def transformations(self) -> list[str]:
		"""What the passes do to the region before the scope pass."""
		return list(self.tag.transformations)


@dataclass
class Entry:
	"""A region's line in conversion.json."""
	region: CensusRegion
	status: Status = Status.CONVERTED
	reason: Optional[Reason] = None	# when skipped
	patch: str = ''			# the patch file that converts it
	begin: str = ''			# what opened the region
	scope: str = ''			# what replaces it
	# What the clean-up after the scopes did in its function, for the
	# changelog (tidy.tidy()); not part of conversion.json.
	notes: list = field(default_factory=list)	# tidy.Note

	@property
	def kept_calls(self) -> dict[str, str]:
		"""The calls the scope keeps, from the census text `...; keeps f() (why), ...`."""
		m = re.search(r'; keeps (.*)$', self.region.text)
		if not m:
			return {}
		return {c: w for c, w in re.findall(r'(\w+)\(\) \(([^)]*)\)', m.group(1))}

	def _field(self, name: str) -> str:
		"""`; NAME value` of the census text (hooks.report_lines())."""
		m = re.search(r'; %s (.*?)(?:; (?:on|recomputes|range check for|range checked on line|'
			      r'unchecked size|keeps) |$)' % name,
			      self.region.text)
		return m.group(1) if m else ''

	@property
	def pointer(self) -> str:
		"""The pointer the region was begun on."""
		return self._field('on')

	@property
	def recomputed(self) -> list[str]:
		"""The pointers the scope computes again from its pointer (rederive)."""
		return [n for n in self._field('recomputes').split(', ') if n]

	@property
	def unchecked_size(self) -> str:
		"""The run-time size of a range masking no longer checks
		(`; unchecked size nfds * sizeof(*ufds)` in the census text)."""
		return self._field('unchecked size')

	@property
	def checked_before(self) -> int:
		"""The line of an earlier check of the same range on every path to
		the begin (`; range checked on line 717`), 0 when none."""
		return int(self._field('range checked on line') or 0)

	@property
	def range_exit(self) -> str:
		"""The early exit for which access_ok() stays in front of the scope
		(`; range check for goto done;` in the census text)."""
		return self._field('range check for')

	def as_dict(self) -> dict:
		d = {'file': self.region.file, 'line': self.region.line,
		     'function': self.region.function, 'status': self.status.value}
		if self.status is Status.SKIPPED:
			assert self.reason is not None
			d['reason'] = self.reason.value
			if self.region.text:
				d['why'] = self.region.text
		else:
			d['shape'] = self.region.shape
			d['transformations'] = self.region.transformations
		for key in ('begin', 'scope', 'patch'):
			if getattr(self, key):
				d[key] = getattr(self, key)
		return d


def parse_regions(text: str) -> list[CensusRegion]:
	"""The REGION lines of spatch's report-mode output; other lines ignored."""
	found = []
	for line in text.splitlines():
		m = _REGION.match(line.strip())
		if m:
			file = m['file'][2:] if m['file'].startswith('./') else m['file']
			found.append(CensusRegion(file, int(m['line']), int(m['col']), m['function'],
					    Tag.parse(m['tag']), m['text'].strip()))
	return sorted(set(found))


def pair_scopes(entries: list[Entry], added_scopes: list[str]) -> None:
	"""Names each converted region's scope, pairing in source order when the
	diff adds exactly one scope per converted region."""
	converted = [e for e in entries if e.status is Status.CONVERTED]
	if len(converted) == len(added_scopes):
		for e, scope in zip(converted, added_scopes):
			e.scope = scope


def added_scopes(diff: str) -> list[str]:
	"""The scoped_user_*_access*() macros a diff adds, in order."""
	return [m.group(0) for line in diff.splitlines()
		if line.startswith('+') and not line.startswith('+++')
		for m in _SCOPE.finditer(line)]


def begin_call(source_lines: list[str], region: CensusRegion) -> str:
	"""The begin (or masking test) named at a region's position."""
	if 0 < region.line <= len(source_lines):
		text = source_lines[region.line - 1]
		m = _BEGIN_CALL.search(text, max(0, region.col - 1)) or _BEGIN_CALL.search(text)
		if m:
			return m.group(1)
		if 'can_do_masked_user_access' in text:
			return 'masked_user_access_begin'
	return ''


def mode_of(name: str) -> str:
	for mode in ('read', 'write', 'rw'):
		if f'_{mode}_' in name:
			return mode
	return 'rw' if name else ''


def conversion_json(entries: list[Entry], meta: dict) -> str:
	"""conversion.json: what was converted, one entry per region, in file order."""
	regions = [e.as_dict() for e in sorted(entries, key=lambda e: e.region)]
	return json.dumps({**meta, 'regions': regions}, indent=1) + '\n'


def summary_markdown(entries: list[Entry], meta: dict, patches: list[str]) -> str:
	"""summary.md (reports/linux-<version>/conversion.md): counts by status,
	transformation, shape and reason, then the patches and the skipped
	regions with why.  Nothing in it varies between runs on the same tree."""
	total = len(entries)
	done = [e for e in entries if e.status is Status.CONVERTED]
	skipped = [e for e in sorted(entries, key=lambda e: e.region) if e.status is Status.SKIPPED]
	share = f'{100 * len(done) / total:.0f}%' if total else 'n/a'
	lines = [f'# Conversion to scoped user access: Linux {meta.get("version", "?")}', '',
		 f'Tree: {meta.get("base", "?")}; rules `{meta.get("rules", "?")}`, '
		 f'spatch {meta.get("spatch", "?")}; {meta.get("files", 0)} files given to spatch.', '',
		 f'{total} open-coded regions: {len(done)} converted ({share}), '
		 f'{len(skipped)} skipped.', '']

	def table(title: str, counts: collections.Counter) -> list[str]:
		rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
		return [f'| {title} | regions |', '|---|---|'] + [f'| {k} | {n} |' for k, n in rows] + ['']

	lines += table('converted, shape', collections.Counter(e.region.shape for e in done))
	lines += table('converted, transformation', collections.Counter(
		t for e in done for t in e.region.transformations) + collections.Counter(
		{'(none)': sum(1 for e in done if not e.region.transformations)}))
	lines += table('skipped, reason', collections.Counter(e.reason.value for e in skipped))
	lines += [f'## Patches ({len(patches)})', '']
	lines += [f'- `{p}`' for p in patches] or ['none']
	if skipped:
		lines += ['', '## Skipped regions', '', '| file:line | function | reason | why |',
			  '|---|---|---|---|']
		lines += [f'| {e.region.file}:{e.region.line} | {e.region.function}() | {e.reason.value} | '
			  f'{e.region.text.replace("|", "/")} |' for e in skipped]
	return '\n'.join(lines) + '\n'
