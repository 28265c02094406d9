# SPDX-License-Identifier: GPL-2.0
"""One commit per subsystem: its subject prefix and its message."""

import collections
import re
import textwrap
from pathlib import Path
from typing import Iterable, Optional

from scoped_uaccess.cocci import api
from scoped_uaccess.convert.regions import Entry, mode_of

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
	# powerpc's two signal files have maintainers' prefixes of their own
	(r'^arch/powerpc/kernel/signal_(?P<bits>32|64)\.c$', 'powerpc/signal{bits}'),
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


def _para(text: str) -> str:
	return textwrap.fill(' '.join(text.split()), width=72, break_on_hyphens=False,
			     break_long_words=False)


def _names(items: Iterable[str]) -> str:
	"""a, b and c."""
	items = list(dict.fromkeys(items))
	return items[0] if len(items) == 1 else ', '.join(items[:-1]) + ' and ' + items[-1]


def _fn(e: Entry) -> str:
	return f'{e.region.function}()'


MODE_WORDS = {'read': 'reads', 'write': 'writes', 'rw': 'reads and writes'}
def built_for(file: str) -> Optional[str]:
	"""The architecture a file is built for (x86 files of 32-bit kernels
	are `i386`), None when it is generic."""
	if re.match(api.X86_32_ONLY, file):
		return 'i386'
	m = re.match(r'^arch/([^/]+)/', file)
	return m.group(1) if m else None


def runtime_paragraph(entries: list[Entry], files: list[str], masking: tuple[str, ...]) -> str:
	"""What changes at run time, and where: the checked begin (a range
	check and a speculation barrier) becomes masking where the tree's
	architectures mask; nothing changes elsewhere, nor where the region
	already masked."""
	checked = [e for e in entries if e.begin and not e.begin.startswith('masked')]
	arches = {built_for(f) for f in files}
	where = [a for a in sorted(masking) if None in arches or a in arches]
	if not checked:
		return _para('The function already masked the pointer where the architecture can '
			     '(masked_user_access_begin()), and the scope does the same: nothing '
			     'changes at run time.')
	if not where:
		return _para(f'The code is built for {_arch_words(next(iter(arches)))} only, '
			     'which does not mask user pointers in this tree: the scope begins the '
			     'region with the same user_*_access_begin() as before, and nothing '
			     'changes at run time.')
	reads = any(mode_of(e.scope or e.begin) in ('read', 'rw') for e in checked)
	drops = []
	for a in where:
		if a == 'x86':
			drops.append('on x86-64 the access_ok() range check and the LFENCE of '
				     'barrier_nospec() after it go')
		elif a == 'powerpc':
			drops.append('on powerpc the access_ok() range check goes'
				     + (', and for reads the barrier_nospec() after it' if reads else ''))
		else:
			drops.append(f'on {a} the access_ok() range check goes')
	unmasked = [e for e in checked if built_for(e.region.file) not in (None, *masking)]
	rest = ('Architectures that do not mask begin the region with user_*_access_begin() '
		'as before' + (f', as does {_names(_fn(e) for e in unmasked)}, built for '
			       f'{_arch_words(built_for(unmasked[0].region.file))} only'
			       if unmasked else '') + '.')
	return _para(
		'Where user pointers can be masked, the scope masks the pointer instead of '
		f'checking it: {"; ".join(drops)}.  A bad pointer becomes one that faults on '
		f'its first access, which takes the same error path.{_top(checked, where)}  {rest}')


def _top(entries: list[Entry], where: list[str]) -> str:
	"""What masking changes for a range of run-time size: where it ends
	is no longer checked."""
	sized = [e for e in entries
		 if e.unchecked_size and built_for(e.region.file) in (None, *where)]
	if not sized:
		return ''
	sizes = list(dict.fromkeys(e.unchecked_size for e in sized))
	# The sizes when they read at a glance (t->rseq_len), not a pointer
	# difference over two lines.
	shown = f' ({_names(sizes)})' if all(len(x) <= 24 for x in sizes) else ''
	x86 = ('  x86\'s access_ok() already lets this happen for every constant size up '
	       'to a page.' if 'x86' in where else '')
	fns = list(dict.fromkeys(_fn(e) for e in sized))
	return (f'  {_names(fns)} '
		f'{"accesses a range" if len(fns) == 1 else "access ranges"} whose size is known '
		f'only at run time{shown}, and masking checks only where a range starts: one '
		'that starts below the top of user space and runs past it is no longer refused '
		'before the first access.  The accesses below the top are made and the first one '
		'past it faults, which takes the same error path, as for a range that runs into '
		'any unmapped '
		f'page.{x86}')


def _arch_words(arch: Optional[str]) -> str:
	return {'i386': '32-bit x86'}.get(arch or '', arch or '')


def _verbs(entries: list[Entry]) -> str:
	"""`a() and b() read, c() writes`: the functions grouped by what their
	regions do."""
	modes: dict[str, set[str]] = {}
	for e in entries:
		modes.setdefault(_fn(e), set()).add(mode_of(e.scope or e.begin))
	what: dict[str, list[str]] = {}
	for fn, m in modes.items():
		key = 'rw' if 'rw' in m or m == {'read', 'write'} else m.pop()
		what.setdefault(key, []).append(fn)
	plural = {'read': 'read', 'write': 'write', 'rw': 'read and write'}
	parts = [f'{_names(fns)} {plural[m] if len(fns) > 1 else MODE_WORDS[m]}'
		 for m, fns in what.items()]
	if len(parts) <= 2:
		return ' and '.join(parts)
	return ', '.join(parts[:-1]) + ', and ' + parts[-1]


def what_paragraph(entries: list[Entry], files: list[str]) -> str:
	begins = _names(f'{e.begin}()' for e in entries if e.begin)
	scope_names = list(dict.fromkeys(f'{e.scope}()' for e in entries if e.scope))
	one = len(entries) == 1
	lead = (f'{_verbs(entries)} user memory in '
		f'{"a user access region" if one else "user access regions"} opened with '
		f'{begins}, which {"has" if one else "have"} to be ended on every way out, '
		f'fault label{"" if one else "s"} included.')
	return _para(
		f'{lead}  Replace {"it" if one else "them"} with '
		f'{_names(scope_names) if scope_names else "scopes"}, which '
		f'{"ends" if len(scope_names) == 1 else "end"} the region on every exit from the '
		'block, so that no error path can leave it open, and '
		f'{"shadows" if len(scope_names) == 1 else "shadow"} the pointer with the copy it '
		'checked, so that no access inside can use the other one.')


def _grouped(entries: list[Entry], t: str) -> list[list[Entry]]:
	"""The entries with transformation t, those on the same pointer together."""
	groups: dict[tuple, list[Entry]] = {}
	for e in entries:
		if t in e.region.transformations:
			groups.setdefault((e.pointer, tuple(e.recomputed)), []).append(e)
	return list(groups.values())


def details(entries: list[Entry]) -> list[str]:
	"""What the conversion had to do beyond the scope, and why the result
	behaves as the region did, one paragraph per kind, naming the code."""
	paras = []
	for group in _grouped(entries, 'rederive'):
		e, many = group[0], len(group) > 1
		names = _names(e.recomputed) if e.recomputed else 'pointers'
		it = 'it' if len(e.recomputed) == 1 else 'them'
		paras.append(
			f'{_names(_fn(g) for g in group)} {"compute" if many else "computes"} {names} '
			f'from {e.pointer or "the region pointer"} before the region.  The scope '
			f'computes {it} again first thing, from its own {e.pointer or "pointer"}, so '
			f'that the accesses through {it} use the checked (or masked) pointer too.')
	for group in _grouped(entries, 'cursor'):
		e, many = group[0], len(group) > 1
		paras.append(
			f'{_names(_fn(g) for g in group)} {"move" if many else "moves"} '
			f'{"their" if many else "its"} pointer ({e.pointer or "the region pointer"}) '
			"along the range, but the scope's copy of it is const: a cursor declared at "
			"the top of the scope, starting at the scope's pointer, walks instead.")
	for group in _grouped(entries, 'local-pointer'):
		e = group[0]
		paras.append(
			f'{_names(_fn(g) for g in group)} began the region on '
			f'{e.pointer or "an expression"}; the scope opens on a local pointer set to the '
			'same value, as it needs a variable to shadow.')
	checks: dict[str, list[Entry]] = {}
	for e in (e for g in _grouped(entries, 'range-check') for e in g):
		checks.setdefault(e.range_exit, []).append(e)
	for exit_, group in checks.items():
		fns, many = _names(_fn(e) for e in group), len(group) > 1
		if exit_.startswith('the size '):
			size = exit_[len('the size '):]
			why = (f'{fns} {"access" if many else "accesses"} only what '
			       f'{"their" if many else "its"} struct members and sizeof()s reach, '
			       f'whatever {size} is, so the range check of the begin was the only '
			       f'thing that refused a bad {size} (negative, or running past the top '
			       'of user space), failing the call before anything was written; '
			       'masking checks no size')
		elif exit_.startswith('the access '):
			why = (f'{fns} {"access" if many else "accesses"} '
			       f'{exit_[len("the access "):]}, at an index or an offset from '
			       f'{group[0].pointer or "the pointer"}, and masking keeps out of the kernel '
			       'only the accesses that start at the pointer and move up from it')
		else:
			why = (f'{fns} can leave the region early ({exit_}), and with a range that '
			       'runs past the top of user space could do so before an access faults, '
			       'returning that result where the open-coded begin failed the range check')
		paras.append(f'The size of the range is known at run time only: {why}.  So '
			     'access_ok() of the whole range stays in front of the '
			     f'scope{"s" if many else ""}.')
	for group in _grouped(entries, 'tail-out'):
		paras.append(
			f'{_names(_fn(g) for g in group)} ended the region early on one path and then '
			'called code that must run with user access closed: that code now runs at a '
			'label after the scope, which the scope leaves through.')
	for group in _grouped(entries, 'invert-begin'):
		paras.append(
			f'{_names(_fn(g) for g in group)} tested the begin positively; the other branch '
			'now runs at a label the scope jumps to when it refuses the pointer, followed '
			'by the same return.')
	labelled = [e for g in _grouped(entries, 'label') for e in g]
	if labelled:
		paras.append(
			f'{_names(_fn(e) for e in labelled)} returned from a refused begin without a '
			'label; the scope jumps to a new label at the end of the function that returns '
			'the same value.')
	notes = list(dict.fromkeys(note for e in entries for note in e.notes))
	returns = [n for n in notes if n.kind == 'return']
	if returns:
		held = list(dict.fromkeys(n.text for n in returns))
		paras.append(
			f'{_names(n.function + "()" for n in returns)} '
			f'{"return" if len(returns) > 1 else "returns"} the result from inside the '
			'scope, which ends the region on the way out as falling out of it does; '
			f'{_names(held)}, which held it, {"are" if len(held) > 1 else "is"} no '
			'longer needed.')
	paras += [n.text for n in notes if n.kind != 'return']
	kept: dict[str, str] = {}
	for e in entries:
		kept.update(e.kept_calls)
	if kept:
		listed = ', '.join(f'{call}() ({what})' for call, what in sorted(kept.items()))
		paras.append(f'The scope keeps the calls the region made, where it made them: '
			     f'{listed}.')
	narrowed = [e for e in entries if mode_of(e.begin) == 'rw' and
		    mode_of(e.scope) in ('read', 'write')]
	by_mode: dict[str, list[Entry]] = {}
	for e in narrowed:
		by_mode.setdefault(mode_of(e.scope), []).append(e)
	for mode, group in by_mode.items():
		many = len(group) > 1
		paras.append(
			f'{_names(_fn(e) for e in group)} began {"their regions" if many else "the region"} '
			'for reading and writing but only '
			f'{mode if many else MODE_WORDS[mode]}: the '
			f'{"scopes open" if many else "scope opens"} for that alone.')
	return [_para(p) for p in paras]


def commit_message(prefix: str, files: list[str], entries: list[Entry],
		   skipped: list[Entry], signoff: str, rules: str,
		   masking: tuple[str, ...] = ('x86',)) -> str:
	"""Subject and body of one conversion commit: what the regions did,
	what the scopes change and where, what the conversion had to do and
	why it is equivalent, what stays open-coded and why."""
	functions = list(dict.fromkeys(e.region.function for e in entries))
	subject = f'Convert {_names(f"{f}()" for f in functions)} to scoped user access'
	if len(functions) > 2 or len(f'{prefix}: {subject}') > 75:
		subject = SUBJECT
	body = [what_paragraph(entries, files), runtime_paragraph(entries, files, masking),
		*details(entries)]
	if skipped:
		why: dict[str, list[str]] = {}
		for e in skipped:
			why.setdefault(_fn(e), []).append(e.region.text or e.reason.value)
		left = '; '.join(f'{fn} ({", ".join(dict.fromkeys(t))})' for fn, t in why.items())
		body.append(_para(f'Left open-coded: {left}.'))
	body.append(_para(f'Converted with {rules} of scoped-uaccess.'))
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
