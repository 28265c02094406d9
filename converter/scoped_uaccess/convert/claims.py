# SPDX-License-Identifier: GPL-2.0
"""A patch's changelog read against its diff and the tree, as its maintainer reads it.

A changelog is written from facts (changelog.py), and this is the other
side: it takes a patch file as a maintainer gets it and reports every
claim the diff or the tree contradicts.

- access_ok() said to stay in front of a function's scope, and no such
  check in that function's part of the diff; or a check the diff adds
  that the changelog does not explain;
- an architecture named that builds none of the patch's files (i915 is
  x86 only: a sentence about powerpc there is about nothing);
- "checkpatch clean" where checkpatch --strict reports something;
- a tool's name in a conversion's changelog (the cover letter says how
  the series was made, once);
- across a series, a paragraph two changelogs share, or more than one
  shared sentence in one changelog: a template, not a changelog.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from scoped_uaccess.kernel.builders import Builders

TOOL_WORDS = ('scoped-uaccess', 'convert_scoped_uaccess', 'spatch', 'semantic patch',
	      'Coccinelle', 'coccinelle')
# How changelogs name architectures, and what each means: (arch, width).
ARCH_WORDS: dict[str, tuple[str, Optional[int]]] = {
	'x86-64': ('x86', 64), '64-bit x86': ('x86', 64), '32-bit x86': ('x86', 32),
	'x86': ('x86', None), 'powerpc': ('powerpc', None), '64-bit powerpc': ('powerpc', 64),
	'32-bit powerpc': ('powerpc', 32), 'arm64': ('arm64', None), 'riscv': ('riscv', None),
	's390': ('s390', None), 'arm': ('arm', None),
}
_ARCH = re.compile(r'(?<![\w/-])(' + '|'.join(sorted(map(re.escape, ARCH_WORDS), key=len,
							     reverse=True)) + r')(?![\w-])')


@dataclass
class Patch:
	"""A patch file: its subject, changelog paragraphs and, per file and
	function, the lines of its diff."""
	name: str
	subject: str
	paragraphs: list[str]
	files: list[str]
	# (file, function) -> the diff lines of the hunks in that function,
	# with their +/-/space prefix
	hunks: dict[tuple[str, str], list[str]] = field(default_factory=dict)

	@property
	def changelog(self) -> str:
		return '\n\n'.join(self.paragraphs)


def read_patch(path: Path) -> Patch:
	text = path.read_text(errors='replace')
	head, _, rest = text.partition('\n\n')
	subject = ' '.join(re.search(r'^Subject: (.*(?:\n .*)*)', head, re.M).group(1).split()) \
		if 'Subject:' in head else ''
	body, _, diff = rest.partition('\n---\n')
	paragraphs = [' '.join(p.split()) for p in body.split('\n\n') if p.strip()
		      and not p.startswith('Signed-off-by:')]
	patch = Patch(path.name, re.sub(r'^\[PATCH[^\]]*\] ', '', subject), paragraphs, [])
	file, fn = '', ''
	for line in diff.split('\n'):
		if line.startswith('+++ b/'):
			file = line[6:]
			patch.files.append(file)
		elif line.startswith('@@'):
			m = re.search(r'@@ [^@]* @@ (.*)$', line)
			fn = _function_of(m.group(1)) if m else ''
		elif file and line[:1] in ('+', '-', ' ') and not line.startswith(('+++', '---')):
			# a function header inside the hunk starts a new function
			m = re.match(r'^[ +-](?:static |inline |__\w+ )*[\w\s\*]+?\b(\w+)\(', line)
			if m and not line[1:2].isspace() and line[1:2] not in ('{', '}', '#'):
				fn = m.group(1)
			patch.hunks.setdefault((file, fn), []).append(line)
	return patch


def _function_of(header: str) -> str:
	m = re.match(r'(?:COMPAT_)?SYSCALL_DEFINE\d\((\w+)', header)
	if m:
		return ('compat_sys_' if header.startswith('COMPAT') else 'sys_') + m.group(1)
	m = re.search(r'(\w+)\s*\(', header)
	return m.group(1) if m else ''


def _syscall(fn: str) -> str:
	"""compat_sys_x and sys_x as one: a hunk of `SYSCALL_DEFINE3(x` under an
	#ifdef that is the compat one elsewhere names either."""
	return re.sub(r'^(compat_)?sys_', 'sys_', fn)


def _sentences(text: str) -> list[str]:
	return [s.strip() for s in re.split(r'(?<=[.:;])\s+(?=[A-Z])', text) if s.strip()]


def _functions_named(sentence: str) -> list[str]:
	return re.findall(r'\b([A-Za-z_]\w*)\(\)', sentence)


_NOT_SUBJECTS = ('access_ok', 'copy_from_user', 'copy_to_user', 'barrier_nospec', 'sizeof')


def access_ok_claims(p: Patch) -> list[str]:
	"""access_ok() said to stay where the diff has none, and the reverse."""
	problems = []
	added = {_syscall(fn) for (_, fn), lines in p.hunks.items()
		 if any(re.match(r'^\+\s*if \(!access_ok\(', x) for x in lines)}
	kept = {(_syscall(fn), m.group(1)) for (_, fn), lines in p.hunks.items() for x in lines
		if (m := re.match(r'^[+ ]\s*if \(!access_ok\(([^,]+),', x))}
	present = {fn for fn, _ in kept}
	said = set()
	for para in p.paragraphs:
		for s in _sentences(para):
			if not ('access_ok(' in s and re.search(r'\b(stays?|keeps?)\b', s) and
				'in front of' in s):
				continue
			# the functions the sentence is about: its subject (named before
			# access_ok()), else those of `the scope of f() and g()`, else
			# those its paragraph names
			after = re.search(r'in front of the scopes? of (.+)$', s)
			named = [f for f in _functions_named(s[:s.index('access_ok(')])
				 if f not in _NOT_SUBJECTS] or \
				[f for f in _functions_named(after.group(1) if after else '')
				 if f not in _NOT_SUBJECTS] or \
				[f for f in _functions_named(para) if f not in _NOT_SUBJECTS]
			said.update(_syscall(fn) for fn in named)
			if not any(_syscall(fn) in present for fn in named):
				problems.append(f'{p.name}: says access_ok() stays in front of the scope '
						f'of {", ".join(f + "()" for f in named) or "a function"}, '
						'and the diff has no access_ok() there')
		for s in _sentences(para):
			# `the scope of f() masks p instead of checking it: the
			# access_ok() compare ... go`: f() must have no check left
			# (a sentence that names no function speaks of all of them)
			if 'access_ok(' in s and re.search(r'\bgo(es)?\b', s) and 'in front of' not in s:
				named = [f for f in _functions_named(s) if f not in _NOT_SUBJECTS] or \
					sorted(present)
				# `masks p, q and r instead of checking them`: those pointers
				m = re.search(r'\bmasks? (.+?) instead of checking', s)
				ptrs = set(re.split(r', | and ', m.group(1))) if m else None
				for fn in named:
					if any(f == _syscall(fn) and (ptrs is None or ptr in ptrs)
					       for f, ptr in kept):
						problems.append(f'{p.name}: says the access_ok() of {fn}() goes, '
								'and the diff keeps one in front of its scope')
	for fn in sorted(added - said):
		problems.append(f'{p.name}: adds access_ok() in {fn}() and the changelog does not say '
				'why')
	return problems


def arch_claims(p: Patch, builders: dict[str, Builders]) -> list[str]:
	"""Architectures named that build none of the patch's files."""
	problems = []
	known = [builders[f] for f in p.files if f in builders]
	if not known:
		return []
	for word in sorted(set(_ARCH.findall(p.changelog))):
		arch, bits = ARCH_WORDS[word]
		if not any(b.builds(arch, bits) for b in known):
			problems.append(f'{p.name}: names {word}, which builds none of '
					f'{", ".join(p.files)}')
	return problems


def checkpatch_claims(p: Patch, counts: Optional[tuple[int, int, int]]) -> list[str]:
	"""A claim of checkpatch cleanliness that its counts deny."""
	if not re.search(r'checkpatch[^.]*\bclean\b', p.changelog):
		return []
	if counts is None or any(counts):
		return [f'{p.name}: says checkpatch clean; checkpatch --strict gives '
			f'{counts[0] if counts else "?"} errors, {counts[1] if counts else "?"} '
			f'warnings, {counts[2] if counts else "?"} checks']
	return []


def tool_claims(p: Patch) -> list[str]:
	return [f'{p.name}: names the tool ({w})' for w in TOOL_WORDS if w in p.changelog]


def shared_text(patches: Iterable[Patch]) -> list[str]:
	"""Paragraphs two changelogs share, and changelogs that share more than
	one sentence with the others."""
	patches = list(patches)
	problems = []
	owners: dict[str, set[str]] = {}
	for p in patches:
		for para in p.paragraphs:
			owners.setdefault(para, set()).add(p.name)
	for para, who in owners.items():
		if len(who) > 1 and len(_sentences(para)) > 1:
			problems.append(f'{", ".join(sorted(who))}: share the paragraph '
					f'"{para[:60]}..."')
	sentences: dict[str, set[str]] = {}
	for p in patches:
		for s in {s for para in p.paragraphs for s in _sentences(para)}:
			sentences.setdefault(s, set()).add(p.name)
	for p in patches:
		shared = [s for s, who in sentences.items() if p.name in who and len(who) > 1]
		if len(shared) > 1:
			problems.append(f'{p.name}: shares {len(shared)} sentences with other changelogs '
					f'("{shared[0][:50]}...")')
	return problems


def check_series(patches: list[Path], builders: dict[str, Builders],
		 checkpatch: Optional[dict[str, tuple[int, int, int]]] = None) -> list[str]:
	"""Every contradiction in the conversion patches of a series."""
	read = [read_patch(p) for p in patches]
	problems = []
	for p in read:
		problems += access_ok_claims(p) + arch_claims(p, builders) + tool_claims(p)
		problems += checkpatch_claims(p, (checkpatch or {}).get(p.name))
	return problems + shared_text(read)
