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


# Why each transformation leaves the behaviour as it was, for the body.
TRANSFORMATION_TEXT = {
	'invert-begin': 'tested its begin positively: the region is its then branch, and the '
			'else branch moves to a label after the function\'s return, which the scope '
			'jumps to when the begin is rejected, followed by the same return: the same '
			'statements run on each path',
	'local-pointer': 'opened the region on an expression: a local of the same type, set with '
			 'the function\'s other locals, stands for it in the begin and in the '
			 'region, as the scope opens on a plain identifier; the accesses then go '
			 'through the scope\'s (masked) copy of it',
	'cursor': 'advanced the region\'s pointer inside it, while the scope\'s pointer is '
		  'const: a cursor, set first thing in the scope from the scope\'s pointer, walks '
		  'instead, so the mask covers every access made through it',
	'rederive': 'accessed user memory through a pointer computed from the region\'s pointer '
		    'before the region: it is computed again first thing in the scope, from the '
		    'scope\'s pointer, so the mask covers the accesses made through it',
	'range-check': 'checked a range whose size is known only at run time: a masked scope '
		       'checks no size, so access_ok() of the same range stays in front of the '
		       'scope and every call still fails, or does its work, as it did (no partial '
		       'work before a fault past the end of user space)',
	'label': 'returned from a rejected begin with no label doing the same: a label after '
		 'the function\'s last statement returns that value and is the scope\'s label',
	'tail-out': 'ended the region early and then ran code that must run with user access '
		    'closed: that tail moves to a label after the function\'s return, reached by '
		    'a goto out of the scope',
}


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
		'end, return, goto, and a fault in an unsafe_*() accessor, which '
		'still jumps to the same label.  The end calls that the scope makes '
		'redundant are removed, and a label left holding only such an end '
		'merges into the label it fell into; the accessors, their order and '
		'the value returned on every path stay the same.'))
	for name in ('invert-begin', 'local-pointer', 'tail-out', 'cursor', 'rederive',
		     'range-check', 'label'):
		fns = [f'{e.region.function}()' for e in entries if name in e.region.transformations]
		if fns:
			body.append(para(f'{name}: {", ".join(dict.fromkeys(fns))} '
					 f'{TRANSFORMATION_TEXT[name]}.'))
	kept = {}
	for e in entries:
		kept.update(e.kept_calls)
	if kept:
		listed = '; '.join(f'{call}() ({what})' for call, what in sorted(kept.items()))
		body.append(para('The scope keeps the calls the region made, where it made them: '
				 f'{listed}.  No call moves into a scope that was not in the region.'))
	if any(mode_of(e.begin) == 'rw' and mode_of(e.scope) in ('read', 'write') for e in entries):
		body.append(para(
			'A region begun for reading and writing that only reads (or only '
			'writes) through accessors it shows becomes a read (or write) '
			'scope; where an access is out of sight (asm, a helper) the '
			'scope keeps the mode of the begin.'))
	if any(not e.begin.startswith('masked') for e in entries if e.begin):
		body.append(para(
			'Where the architecture supports masked user access, the scope masks '
			'the pointer instead of checking it: a bad pointer makes the first '
			'access fault and take the same fault path.  That first access lies '
			'within the region\'s struct (for a size known at compile time, '
			'which the checked begin of x86 does not check beyond the pointer '
			'either), or the range is checked in front of the scope.'))
	if skipped:
		left = ', '.join(sorted({f'{e.region.function}() ({e.reason})' for e in skipped}))
		body.append(para(f'Left open-coded, as not proven safe to convert: {left}.'))
	body.append(para(f'Generated with {rules} (spatch) and checked with the '
			 'scoped_uaccess_*.cocci checker scripts.  No functional change intended.'))
	subject = f'Convert {functions[0]}() to scoped user access' if len(functions) == 1 else SUBJECT
	return f'{prefix}: {subject}\n\n' + '\n\n'.join(body) + f'\n\nSigned-off-by: {signoff}\n'


def with_preexisting(message: str, issues: list[str]) -> str:
	"""The message with a paragraph on what checkpatch --strict reports on
	lines the patch only re-indents (before the Signed-off-by)."""
	if not issues:
		return message
	head, _, sign = message.rpartition('\n\nSigned-off-by: ')
	kinds: dict[str, list[str]] = {}
	for issue in issues:
		m = re.match(r'^(\S+?):\d+: (?:ERROR|WARNING):(\w+):', issue)
		if m:
			kinds.setdefault(m.group(1), []).append(m.group(2))
	found = '\n'.join(f'  {file}: ' + ', '.join(
		f'{k} ({n.count(k)})' if n.count(k) > 1 else k for k in dict.fromkeys(n))
		for file, n in kinds.items())
	para = ('checkpatch --strict still reports, on lines this patch only\n'
		're-indents into the scope, unchanged otherwise:\n\n' + found)
	return f'{head}\n\n{para}\n\nSigned-off-by: {sign}'
