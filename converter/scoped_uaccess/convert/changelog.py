# SPDX-License-Identifier: GPL-2.0
"""The changelog of one conversion patch, from the facts it states.

Every sentence comes from something that can be checked: the functions
and what the diff does to them (the region's begin, the ends and labels
that go, an access_ok() that stays in front of a scope or comes in), the
census (why a range check stays, a check made earlier, the calls the
scope keeps), the tree (which architectures build the file, read from
its Makefiles and Kconfig, and which of them mask user pointers), the
clean-ups after the passes (tidy's Notes) and the tests (which syscalls
made each access of the function fault, or why none reaches it).  Only
one sentence, on what a scope does, is the same in every patch; no tool
is named (the cover letter says how the series was made).
"""

import re
import textwrap
from dataclasses import dataclass, field
from typing import Iterable, Optional

from scoped_uaccess.convert.functions import LABEL, functions
from scoped_uaccess.convert.regions import Entry, mode_of
from scoped_uaccess.kernel.builders import Builders, Variant

_END = re.compile(r'\b((?:masked_)?user_(?:read_|write_)?access_end)\s*\(\s*\)')
_MODE_VERB = {'read': 'reads', 'write': 'writes', 'rw': 'reads and writes'}
_NUMBERS = ('no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten')


@dataclass(frozen=True)
class Coverage:
	"""What the tests did with a function: the runs that made its accesses
	fault (`waitid.infop (x86_64)`), or why none reaches it."""
	reached_by: tuple[str, ...] = ()
	unreached: str = ''


@dataclass
class PatchFacts:
	prefix: str
	files: list[str]
	entries: list[Entry]			# the regions the patch converts
	skipped: list[Entry]			# those of its files it leaves open-coded
	builders: dict[str, Builders]
	masking: tuple[Variant, ...]		# the architectures (and widths) that mask in the tree
	old: dict[str, str]			# file -> its text before the patch
	new: dict[str, str]			# file -> its text after
	notes: list = field(default_factory=list)	# tidy Notes
	tests: dict[tuple[str, str], Coverage] = field(default_factory=dict)
	signoff: str = ''


def _para(text: str) -> str:
	return textwrap.fill(' '.join(text.split()), width=72, break_on_hyphens=False,
			     break_long_words=False)


def names(items: Iterable[str]) -> str:
	"""a, b and c."""
	items = list(dict.fromkeys(items))
	if not items:
		return ''
	return items[0] if len(items) == 1 else ', '.join(items[:-1]) + ' and ' + items[-1]


def _count(n: int, thing: str) -> str:
	word = _NUMBERS[n] if n < len(_NUMBERS) else str(n)
	return f'{word} {thing}{"" if n == 1 else "s"}'


def _body(text: str, fn: str) -> list[str]:
	"""The lines of fn's body in a file's text (kernel layout); a compat
	syscall whose body is shared with the native one under #ifdef is
	found under either name."""
	lines = text.split('\n')
	other = re.sub(r'^(compat_)?sys_', 'sys_', fn)
	bodies = [lines[lo:hi] for name, lo, hi in functions(lines) if name in (fn, other)]
	# under #ifdef a function may be defined twice: the one with the regions
	return max(bodies, key=lambda b: sum('access_begin' in x for x in b), default=[])


def grouped(items: list[tuple[str, str]]) -> list[str]:
	"""Sentences about functions, one per distinct text: items are
	(function, text with `{fn}` for its name and `{s}` where a verb takes
	an s for one function); functions with the same text share it."""
	by_text: dict[str, list[str]] = {}
	for fn, text in items:
		by_text.setdefault(text, []).append(fn)
	one = {True: dict(s='s', pl='', es='es', it='it', its='its', has='has'),
	       False: dict(s='', pl='s', es='', it='them', its='their', has='have')}
	return [text.format(fn=names(f + '()' for f in fns), **one[len(fns) == 1])
		for text, fns in by_text.items()]


def _esc(text: str) -> str:
	"""text as literal text of a grouped() template."""
	return text.replace('{', '{{').replace('}', '}}')


def _template(text: str, fn: str) -> str:
	"""A sentence about fn as a template for grouped(): its name as {fn},
	other braces kept."""
	return _esc(text).replace(f'{fn}()', '{fn}')


def variant_words(v: Variant) -> str:
	arch, bits = v
	if arch == 'x86':
		return {64: 'x86-64', 32: '32-bit x86'}.get(bits or 0, 'x86')
	return f'{bits}-bit {arch}' if bits else arch


# ---- the paragraphs ----------------------------------------------------------

def what(f: PatchFacts) -> str:
	"""What each function's region did, in numbers the diff shows
	(functions alike share a sentence), and the one sentence on what a
	scope does."""
	items = []
	for fn, group in _by_function(f.entries).items():
		e = group[0]
		old = _body(f.old.get(e.region.file, ''), fn)
		ends = [m.group(1) for line in old for m in _END.finditer(line)]
		# the labels whose first statement is an end
		labels = [m.group(1) for k, line in enumerate(old[:-1])
			  if (m := LABEL.match(line)) and _END.search(old[k + 1])]
		modes = {mode_of(g.scope or g.begin) for g in group}
		mode = 'rw' if 'rw' in modes or modes == {'read', 'write'} else modes.pop()
		verb = {'read': 'read{s}', 'write': 'write{s}', 'rw': 'read{s} and write{s}'}[mode]
		begins = names(f'{g.begin}()' for g in group if g.begin)
		regions = 'a region' if len(group) == 1 else f'{_count(len(group), "region")}'
		ended = (f'ended by {_count(len(ends), "call")} to '
			 f'{names(f"{x}()" for x in dict.fromkeys(ends))}' if ends else
			 'ended where the code closes it')
		which = ('' if len(ends) == 1 else 'both ' if len(labels) == len(ends) == 2 else
			 'all ' if len(labels) == len(ends) else
			 f'{"one" if len(labels) == 1 else _NUMBERS[min(len(labels), 10)]} ')
		at = (f', {which}at the fault label{"" if len(labels) == 1 else "s"} {names(labels)}'
		      if labels else '')
		items.append((fn, f'{{fn}} {verb} user memory in {regions} begun with {begins} and '
			      f'{ended}{at}.'))
	scopes = names(f'{e.scope}()' for e in f.entries if e.scope)
	return _para(' '.join(grouped(items)) + f'  With {scopes}, the region ends wherever the '
		     'block is left, so those calls go, and the accesses can use only the pointer '
		     'the scope began with.')


def runtime(f: PatchFacts) -> str:
	"""Which architectures build each file, and what changes on those that
	mask user pointers; nothing changes elsewhere."""
	out = []
	for file in f.files:
		b = f.builders.get(file)
		fns = [e for e in f.entries if e.region.file == file]
		if b is None or not fns:
			continue
		where = [v for v in f.masking if b.builds(*v)]
		because = f' ({b.because})' if b.because and not file.startswith('arch/') else ''
		built = 'every architecture' if b.everywhere else b.describe()
		text = f'{file} is built for {built}{because}.'
		went = [e for e in fns if not _kept(f, e)]
		kept = [e for e in fns if _kept(f, e)]
		if where:
			words = names(variant_words(v) for v in where)
			verb = 'masks' if len(where) == 1 else 'mask'
			if went:
				reads = any(mode_of(e.scope or e.begin) in ('read', 'rw') for e in went)
				fnames = list(dict.fromkeys(e.region.function + '()' for e in went))
				ptrs = list(dict.fromkeys(e.pointer for e in went if e.pointer))
				text += (f'  On {words}, which {verb} user pointers, the '
					 f'{"scope" if len(went) == 1 else "scopes"} of {names(fnames)} '
					 f'{"masks" if len(went) == 1 else "mask"} {names(ptrs) or "the pointer"} '
					 f'instead of checking {"it" if len(ptrs) == 1 else "them"}: '
					 f'{_gone(where, reads)}, and a pointer above the top of user space '
					 'becomes one that faults at the first access, taking the fault path as '
					 'before.')
			if kept:
				text += (f'  {f"There" if went else f"On {words}, which {verb} user pointers,"} '
					 + ' '.join(grouped([(e.region.function, f'{{fn}} keep{{s}} '
						      f'access_ok({e.pointer}, ...) in front of the scope, for the '
						      'reason below, and only the barrier after it goes.')
							     for e in kept])))
		others = _others(b, where)
		if others:
			text += (f'  {others} the {"scope" if len(fns) == 1 else "scopes"} of '
				 f'{names(dict.fromkeys(e.region.function + "()" for e in fns))} '
				 f'{"begins" if len(fns) == 1 else "begin"} the region with '
				 f'{names(e.begin + "()" for e in fns if e.begin)} as before.')
		out.append(_para(text))
	return '\n\n'.join(out)


def _gone(where: list[Variant], reads: bool) -> str:
	"""What goes: the access_ok() compare, with the LFENCE of x86-64's
	checked begins and the barrier_nospec() of powerpc's read begins."""
	barriers = {v: 'the LFENCE' if v[0] == 'x86' else 'the barrier_nospec()'
		    for v in where if v[0] == 'x86' or (v[0] == 'powerpc' and reads)}
	if not barriers:
		return 'the access_ok() compare goes'
	if len(where) == 1:
		return f'the access_ok() compare and {barriers[where[0]]} after it go'
	return 'the access_ok() compare goes, ' + names(
		f'on {variant_words(v)} with {b} after it' for v, b in barriers.items())


def _kept(f: PatchFacts, e: Entry) -> bool:
	"""Whether the scope of e has access_ok() of its pointer in front of it."""
	if not e.pointer:
		return False
	new = _body(f.new.get(e.region.file, ''), e.region.function)
	for k, line in enumerate(new):
		if re.match(rf'^\s*if \(!access_ok\({re.escape(e.pointer)},', line):
			nxt = next((x for x in new[k + 1:] if x.strip() and
				    not re.match(r'^\s*(return|goto)\b', x)), '')
			if re.match(rf'^\s*scoped_user_\w+\({re.escape(e.pointer)}\b', nxt):
				return True
	return False


def _others(b: Builders, where: list[Variant]) -> str:
	"""`On 32-bit x86,` / `On the architectures that do not mask,` when some
	that build the file do not mask; '' when all do."""
	if b.everywhere:
		return 'On the architectures that do not mask,'
	rest: list[Variant] = []
	for arch, bits in b.variants:
		same = [w for w in where if w[0] == arch]
		if any(w[1] is None or w[1] == bits for w in same):
			continue
		if bits is None and same:
			# x86 at both widths, masking at 64: 32-bit x86 does not
			rest += [(arch, 96 - w[1]) for w in same if w[1]]
		else:
			rest.append((arch, bits))
	if not rest:
		return ''
	return f'On {names(variant_words(v) for v in sorted(rest, key=lambda v: (v[0], v[1] or 0)))},'


def range_checks(f: PatchFacts) -> list[str]:
	"""Where access_ok() stays in front of a scope, and why; where an
	earlier check decides; where the end of a range is no longer checked.
	Functions alike share a sentence."""
	items: list[tuple[str, str]] = []
	for e in f.entries:
		fn = e.region.function
		kept = _kept(f, e)
		if kept and e.range_exit.startswith('the size '):
			size = e.range_exit[len('the size '):]
			items.append((fn, f'{{fn}} access{{es}} only the members of {e.pointer} whatever '
				      f'{size} says, so access_ok({e.pointer}, {size}) was all that refused '
				      f'a bad {size} (negative, or reaching past the top of user space) with '
				      '-EFAULT before anything was written.  A masked scope checks no size, '
				      f'so access_ok({e.pointer}, {size}) stays in front of the scope of '
				      f'{{fn}}, and only the barrier after it goes: every access is at a '
				      f'constant offset from the masked {e.pointer}.'))
		elif kept and e.range_exit.startswith('the access '):
			items.append((fn, f'{{fn}} make{{s}} {e.range_exit}, at an index that can skip '
				      'elements, so the first access need not be near the start of the '
				      'range: access_ok() of the whole range stays in front of the scope.'))
		elif kept and e.range_exit:
			items.append((fn, f'{{fn}} can leave the region early ({_esc(e.range_exit)}) '
				      f'before the whole range at {e.pointer} is read.  Masking checks where '
				      'a range starts, not where it ends: without the range check, a range at '
				      f'{e.pointer} that runs past the top of user space could take that exit '
				      'instead of -EFAULT, so access_ok() of the whole range stays in front of '
				      f'the scope of {{fn}}.  Only the barrier after it goes, as in the masked '
				      f'copy_from_user(): the accesses walk up from the masked {e.pointer}, '
				      'which a mispredicted branch cannot put above the top of user space, '
				      'and fault before any kernel address.'))
		elif e.checked_before:
			old = f.old.get(e.region.file, '').split('\n')
			line = old[e.checked_before - 1].strip() if e.checked_before <= len(old) else ''
			m = re.search(r'(!?access_ok\([^;]*?\)|copy_(?:from|to)_user)\(?', line)
			what_ = (m.group(1).lstrip('!') + ('()' if m.group(1).startswith('copy') else '')
				 if m else 'a check')
			items.append((fn, f'{{fn}} check{{s}} the same range earlier, on every way to the '
				      f'region ({_esc(what_)}), so the range check of the begin always '
				      'passed: the scope needs no access_ok() of its own.'))
		elif e.unchecked_size:
			items.append((fn, f'The size of the range, {_esc(e.unchecked_size)}, is known only '
				      'at run time in {fn}, and masking checks where a range starts: one '
				      'that starts below the top of user space and runs past it is no longer '
				      'refused up front; the accesses below the top are made and the first '
				      'one past it faults, taking the fault path as a refused range did.'))
	return [_para(p) for p in grouped(items)]


def transformations(f: PatchFacts) -> list[str]:
	"""What the conversion did beyond the scope; functions alike share a
	sentence."""
	items: list[tuple[str, str]] = []
	for e in f.entries:
		fn = e.region.function
		t = e.region.transformations
		if 'rederive' in t and e.recomputed:
			them = 'it' if len(e.recomputed) == 1 else 'them'
			items.append((fn, f'{{fn}} computed {names(e.recomputed)} from {e.pointer} before '
				      f'the region; the scope computes {them} again from its own pointer '
				      f'first, so that the accesses through {them} use the masked value too.'))
		if 'cursor' in t:
			items.append((fn, f'{{fn}} moved {e.pointer} along the range; the scope\'s pointer '
				      'is const, so a cursor starting at it walks instead.'))
		if 'local-pointer' in t:
			items.append((fn, f'{{fn}} began the region on {e.pointer}; the scope opens on a '
				      'local set to the same value, as it needs a variable to shadow.'))
		if 'tail-out' in t:
			items.append((fn, '{fn} ended the region early on one path to call code that must '
				      'run with user access closed; that code now runs after the scope, at '
				      'a label the scope leaves through.'))
		if 'invert-begin' in t:
			items.append((fn, '{fn} tested the begin positively; the other branch runs at a '
				      'label the scope jumps to when it refuses the pointer.'))
		if e.kept_calls:
			items.append((fn, 'The scope of {fn} keeps the calls the region made: ' + ', '.join(
				f'{c}() ({w})' for c, w in sorted(e.kept_calls.items())) + '.'))
		if mode_of(e.begin) == 'rw' and mode_of(e.scope) in ('read', 'write'):
			verb = mode_of(e.scope)
			b = f.builders.get(e.region.file)
			kuap = (', which powerpc\'s KUAP then opens user access for alone'
				if b is None or b.builds('powerpc') else
				'; on x86 both open user access whole, and the scope says what the '
				'region does')
			items.append((fn, f'{{fn}} began the region for reading and writing but only '
				      f'{verb}{{s}} user memory: the scope opens for that{kuap}.'))
		if e.begin and _mismatched(f, e):
			items.append((fn, f'{{fn}} began the region with {e.begin}() but ended it with '
				      'user_access_end(); the scope ends it with the end of its own mode.'))
	return [_para(p) for p in grouped(items)]


def _mismatched(f: PatchFacts, e: Entry) -> bool:
	begin = mode_of(e.begin)
	if begin == 'rw':
		return False
	old = _body(f.old.get(e.region.file, ''), e.region.function)
	return any(m.group(1) == 'user_access_end' for line in old for m in _END.finditer(line))


def cleanups(f: PatchFacts) -> list[str]:
	"""What tidy did: one paragraph per set of functions that share
	clean-ups, so a sentence true of two functions is written once and
	what only one of them had follows on its own."""
	texts: dict[str, list[str]] = {}	# text -> the functions it is true of
	for n in f.notes:
		if n.kind == 'return':
			text = (f'{{fn}} return{{s}} the result from inside the scope, which ends the '
				f'region on the way out; {n.text}, which held it, goes.')
		else:
			text = _template(n.text, n.function)
		fns = texts.setdefault(text, [])
		if n.function not in fns:
			fns.append(n.function)
	paragraphs: dict[tuple[str, ...], list[str]] = {}
	for text, fns in texts.items():
		paragraphs.setdefault(tuple(fns), []).append(text)
	return [_para(p) for fns, sentences in paragraphs.items()
		for p in grouped([(fn, '  '.join(sentences)) for fn in fns])[:1]]


def tested(f: PatchFacts) -> str:
	"""Which runs made the functions' accesses fault, and which functions no
	test here reaches, with the reason."""
	items: list[tuple[str, str]] = []
	for e in dict((e.region.function, e) for e in f.entries).values():
		c = f.tests.get((e.region.file, e.region.function))
		if c is None:
			continue
		if c.reached_by:
			calls = names(dict.fromkeys(r.split(' (')[0].split('.')[0] + '()' for r in c.reached_by))
			archs = names(dict.fromkeys(_arch(r) for r in c.reached_by))
			items.append((e.region.function, f'Each access of {{fn}} was made to fault in turn, '
				      f'through {calls} on {archs}, with the same results before and after '
				      'the patch.'))
		else:
			items.append((e.region.function, 'No test here runs {fn}: '
				      + (c.unreached or 'no test reaches it').replace('{', '{{')
				      .replace('}', '}}') + '.'))
	return _para(' '.join(grouped(items))) if items else ''


def _arch(run: str) -> str:
	m = re.search(r'\((\w+)\)$', run)
	return {'x86_64': 'x86-64', 'i386': 'i386 (compat)'}.get(m.group(1), m.group(1)) if m else run


def left_open(f: PatchFacts) -> str:
	if not f.skipped:
		return ''
	why: dict[str, list[str]] = {}
	for e in f.skipped:
		why.setdefault(f'{e.region.function}()', []).append(e.region.text or e.reason.value)
	left = '; '.join(f'{fn} ({", ".join(dict.fromkeys(t))})' for fn, t in why.items())
	return _para(f'Left open-coded: {left}.')


def _by_function(entries: list[Entry]) -> dict[str, list[Entry]]:
	out: dict[str, list[Entry]] = {}
	for e in entries:
		out.setdefault(e.region.function, []).append(e)
	return out


SUBJECT = 'Convert to scoped user access'


def subject(f: PatchFacts) -> str:
	functions_ = list(dict.fromkeys(e.region.function for e in f.entries))
	text = f'Convert {names(x + "()" for x in functions_)} to scoped user access'
	if len(functions_) > 2 or len(f'{f.prefix}: {text}') > 75:
		text = SUBJECT
	return f'{f.prefix}: {text}'


def message(f: PatchFacts) -> str:
	"""Subject and body; the paragraphs that have something to say."""
	body = [what(f), runtime(f), *range_checks(f), *transformations(f), *cleanups(f),
		tested(f), left_open(f)]
	text = '\n\n'.join(p for p in body if p)
	return f'{subject(f)}\n\n{text}\n\nSigned-off-by: {f.signoff}\n'


def optional_coverage(report: Optional[dict]) -> dict[tuple[str, str], Coverage]:
	"""The functions a fault sweep report (faultsweep.json) reached, or not."""
	out: dict[tuple[str, str], Coverage] = {}
	for r in (report or {}).get('regions', []):
		out[(r['file'], r['function'])] = Coverage(tuple(r.get('reached_by', ())),
							   r.get('unreached', ''))
	return out
