# SPDX-License-Identifier: GPL-2.0
"""The project-only part of call-in-region: calls the kernel scripts leave to objtool.

scoped_uaccess_regions.cocci reports a call in a region only when the
file itself defines the function without __always_inline: spatch runs
with --no-includes, and a script the kernel ships may not read files.
`scoped-uaccess check` appends cocci/project_calls.cocci to that script;
its last rule hands the calls the script found in regions, with their
regions, to judge() here, which knows what the tree's headers define
(inlines.py: the index the CLI names in SCOPED_UACCESS_INLINES), what the
file's macros call (a text scan), and the tables of cocci/api.py that the
converter shares.  The rules that find the calls are the kernel script's:
this module only judges them.
"""

import re
from pathlib import Path
from typing import Iterable, Optional

from scoped_uaccess.cocci import api, inlines

_DEFINE = re.compile(r'^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)(.*)$', re.M)
_CALLED = re.compile(r'\b(\w+)\s*\(')
_KEYWORDS = frozenset({'while', 'if', 'for', 'switch', 'sizeof', 'typeof', 'return'})
_MACROS: dict[str, dict[str, tuple[set[str], bool]]] = {}


def file_macros(path: str) -> dict[str, tuple[set[str], bool]]:
	"""name -> (the names its body calls, whether it takes the label of the
	accessors in its body or ends a region) for every function-like macro
	of the file.  A macro defined twice (a stub for another configuration)
	is what either definition makes it."""
	if path not in _MACROS:
		try:
			text = re.sub(r'\\\n', ' ', Path(path).read_text(errors='replace'))
		except OSError:
			text = ''
		macros: dict[str, tuple[set[str], bool]] = {}
		for m in _DEFINE.finditer(text):
			name, params, body = m.groups()
			called = {c for c in _CALLED.findall(body) if c not in _KEYWORDS}
			label = params.split(',')[-1].strip()
			api_part = any(c in api.ENDS for c in called) or (
				any(api.is_accessor(c) for c in called) and
				re.match(r'\w+$', label) is not None and
				re.search(r'\b%s\s*\)' % re.escape(label), body) is not None)
			old_called, old_api = macros.get(name, (set(), False))
			macros[name] = (old_called | called, old_api or api_part)
		_MACROS[path] = macros
	return _MACROS[path]


def _safe(name: str, path: str, file: str, index: dict[str, str], seen: tuple = ()) -> bool:
	"""Whether name compiles to no out-of-line call: a builtin, a macro by
	kernel naming, a known safe helper, an __always_inline function of a
	header, or a macro of the file that calls only such."""
	if name in api.SAFE_CALLS or name.startswith('__builtin_') or \
	   re.match(r'[A-Z][A-Z0-9_]*$', name) or api.is_accessor(name) or name in api.ENDS:
		return True
	prefix = api.SAFE_IN.get(name)
	if prefix is not None and file.startswith(prefix):
		return True
	if index.get(name) == inlines.ALWAYS:
		return True
	macro = file_macros(path).get(name)
	if macro is None or name in seen:
		return name in seen
	called, api_part = macro
	return api_part or all(_safe(c, path, file, index, seen + (name,)) for c in called)


def judge(name: str, path: str, file: str, index: dict[str, str]) -> Optional[str]:
	"""What is wrong with calling name in a region (the message after the
	function's name), None when nothing is.  path opens the file, file is
	its name in the tree."""
	if _safe(name, path, file, index):
		return None
	macro = file_macros(path).get(name)
	hidden = sorted(c for c in (macro[0] if macro else ()) if c in api.UNSAFE_CALLS)
	if hidden:
		return '%s(), a macro of this file, calls %s(), which may fault or sleep; used ' \
		       'inside the region begun with {}' % (name, hidden[0])
	if name in api.UNSAFE_CALLS:
		return '%s() may fault or sleep; called inside the region begun with {}' % name
	if index.get(name) == inlines.INLINE:
		return 'call to %s() inside the region begun with {}: a static inline of a ' \
		       'header, not __always_inline: the compiler may call it out of line' % name
	return 'call to %s() inside the region begun with {}: not known to be inlined' % name


def findings(calls: Iterable[tuple], saved: set,
	     index: Optional[dict[str, str]] = None) -> list[tuple]:
	"""(position, text) of the calls the kernel script left: calls is
	(position, name, key, how its region was begun), saved the keys of the
	calls made between user_access_save() and user_access_restore().
	spatch runs from the top of the tree: a position's file is its name
	there."""
	index = inlines.load() if index is None else index
	out = []
	for p, name, key, begun in calls:
		if key in saved or name in api.OPEN_BEGINS or name in api.MASKED_BEGINS or \
		   name in api.INLINE_SCOPES:
			continue
		what = judge(name, p.file, p.file.removeprefix('./'), index)
		if what:
			out.append((p, 'WARNING: [call-in-region] %s(): %s' % (
				p.current_element, what.format(begun))))
	return out
