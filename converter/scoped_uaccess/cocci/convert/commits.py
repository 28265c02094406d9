# SPDX-License-Identifier: GPL-2.0
"""One commit per subsystem: its subject prefix and its message."""

import collections
import re
import textwrap
from pathlib import Path
from typing import Iterable, Optional

from scoped_uaccess.cocci.convert.regions import Entry, mode_of

SUBJECT = 'Convert to scoped user access'


# Subject prefixes from paths, first match wins.  Kernel maintainers name
# the subsystem, then the file, as in `x86/signal:` or `io_uring/net:`.
# A template takes {arch}, {stem} (file name without extension and
# without a _32/_64 suffix), {dir} (the directory below the match) and
# {drm} (the driver directory below drivers/gpu/drm).
PREFIX_RULES: tuple[tuple[str, str], ...] = (
	(r'^arch/x86/kvm/', 'KVM: x86'),
	(r'^arch/(?P<arch>[^/]+)/include/asm/', '{arch}/{stem}'),
	(r'^arch/(?P<arch>[^/]+)/kernel/ptrace/', '{arch}/ptrace'),
	(r'^arch/(?P<arch>[^/]+)/lib/', '{arch}/lib'),
	(r'^arch/(?P<arch>[^/]+)/kernel/', '{arch}/{stem}'),
	(r'^arch/(?P<arch>[^/]+)/', '{arch}'),
	(r'^drivers/gpu/drm/(?P<drm>[^/]+)/(?P<dir>[^/]+)/', 'drm/{drm}/{dir}'),
	(r'^drivers/gpu/drm/(?P<drm>[^/]+)/', 'drm/{drm}'),
	(r'^drivers/(?P<dir>[^/]+)/', '{dir}'),
	(r'^net/core/', 'net: {stem}'),
	(r'^net/(?P<dir>[^/]+)/', '{dir}'),
	(r'^kernel/(?P<dir>[^/]+)/', '{dir}'),
	(r'^kernel/', '{stem}'),
	(r'^(?P<dir>fs|mm|lib|io_uring|block|security|ipc)/', '{dir}/{stem}'),
)
# Names the arch directories go by in subjects.
ARCH_NAMES = {'powerpc': 'powerpc', 'x86': 'x86', 'arm64': 'arm64', 'arm': 'ARM',
	      'riscv': 'riscv'}


def prefix_from_path(path: str) -> str:
	"""The subject prefix for a file, from its path alone."""
	stem = re.sub(r'_(32|64)$', '', Path(path).stem)
	for pattern, template in PREFIX_RULES:
		m = re.match(pattern, path)
		if m:
			groups = {k: v for k, v in m.groupdict().items() if v}
			if 'arch' in groups:
				groups['arch'] = ARCH_NAMES.get(groups['arch'], groups['arch'])
			return template.format(stem=stem, **groups)
	return stem


def prefix_from_history(subjects: Iterable[str]) -> Optional[str]:
	"""The prefix most subjects in a file's history use, if any has one."""
	found = collections.Counter()
	for subject in subjects:
		m = re.match(r'^((?:[\w./-]+: )*[\w./-]+): \S', subject)
		if m and not subject.startswith(('Merge ', 'Revert ', 'Linux ')):
			found[m.group(1)] += 1
	if not found:
		return None
	return found.most_common(1)[0][0]


def group_files(prefixes: dict[str, str]) -> list[tuple[str, list[str]]]:
	"""One commit per subject prefix, in path order of their first file."""
	groups: dict[str, list[str]] = {}
	for file in sorted(prefixes):
		groups.setdefault(prefixes[file], []).append(file)
	return list(groups.items())


def commit_message(prefix: str, files: list[str], entries: list[Entry],
		   skipped: list[Entry], signoff: str, rules: str) -> str:
	"""Subject and body of one conversion commit."""
	def para(text: str) -> str:
		return textwrap.fill(' '.join(text.split()), width=72,
				     break_on_hyphens=False, break_long_words=False)

	functions = []
	for e in entries:
		if e.region.function not in functions:
			functions.append(e.region.function)
	names = ', '.join(f'{f}()' for f in functions)
	where = ' and '.join(files) if len(files) <= 2 else f'{len(files)} files'
	n = len(entries)
	regions = f'the {n} open-coded user access regions' if n > 1 else \
		'the open-coded user access region'
	body = [para(f'Replace {regions} in {names} ({where}) with scoped user access.')]
	# One line per change of begin into scope, then its functions, so
	# that no line is longer than checkpatch allows.
	changes: dict[str, list[str]] = {}
	for e in entries:
		old = f'{e.begin}()' if e.begin else 'open-coded region'
		new = f'{e.scope}()' if e.scope else 'a scope'
		names_of = changes.setdefault(f'{old} -> {new}', [])
		if f'{e.region.function}()' not in names_of:
			names_of.append(f'{e.region.function}()')
	lines = []
	for change, fns in changes.items():
		lines.append(f'  {change}:' if len(change) <= 69 else f'  {change.replace(" -> ", chr(10) + "    -> ")}:')
		lines.append(textwrap.fill(', '.join(fns), width=72, initial_indent='      ',
					   subsequent_indent='      ', break_on_hyphens=False,
					   break_long_words=False))
	body.append('\n'.join(lines))
	body.append(para(
		'The scope begins the region and ends it with the matching '
		'user_*_access_end() on every way out of its block: falling off its '
		'end, return, and a fault in an unsafe_*_user() accessor, which '
		'still jumps to the same label.  The end calls that the scope makes '
		'redundant are removed; the accessors, their order and the value '
		'returned on every path stay the same.'))
	if any(mode_of(e.begin) == 'rw' and mode_of(e.scope) in ('read', 'write') for e in entries):
		body.append(para(
			'A region begun for reading and writing that only reads (or only '
			'writes) becomes a read (or write) scope: the access mode follows '
			'the accessors in the region.'))
	if any(not e.begin.startswith('masked') for e in entries if e.begin):
		body.append(para(
			'Where a region checked its range with user_*_access_begin(), the '
			'scope masks the pointer instead when the architecture supports '
			'masked user access.  The rules convert such a region only when '
			'its first access lies within a page of the pointer, so a bad '
			'pointer still faults on that access and takes the same fault '
			'path, with the same error.'))
	if skipped:
		kept = ', '.join(sorted({f'{e.region.function}() ({e.reason})' for e in skipped}))
		body.append(para(f'Left open-coded, as not proven safe to convert: {kept}.'))
	body.append(para(f'Generated with {rules} (spatch -D patch) and checked with '
			 'scoped_uaccess.cocci.  No functional change intended.'))
	return f'{prefix}: {SUBJECT}\n\n' + '\n\n'.join(body) + f'\n\nSigned-off-by: {signoff}\n'
