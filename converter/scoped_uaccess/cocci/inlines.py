# SPDX-License-Identifier: GPL-2.0
"""The static inline functions the tree's headers define, indexed once.

spatch runs with --no-includes, so a call to a helper defined in a header
is a call to an unknown function.  A fast text scan of the headers finds
every `static inline` and `static __always_inline` definition; the index
is cached by the content of the headers (index_cache.py) and read by the
converter and the checker's classification of calls.
"""

import json
import os
import re
from pathlib import Path
from typing import Optional


ALWAYS = 'always'	# static __always_inline: inlined whatever the compiler decides
INLINE = 'inline'	# static inline: usually inlined, not guaranteed
ENV = 'SCOPED_UACCESS_INLINES'
# A definition: static, inline-ish qualifiers and attributes, the return
# type, the name and its parameter list, then the body.
_DEFINITION = re.compile(
	r'^static\s+(?P<quals>(?:(?:__always_inline|inline|__inline__|__inline|'
	r'nokprobe_inline|__attribute__\s*\(\([^)]*\)\)|const|unsigned|signed|struct|'
	r'enum|union|\w+)\s+|\*\s*)+?)\**\s*(?P<name>[A-Za-z_]\w*)\s*\([^;{]*\)\s*\{',
	re.MULTILINE)


def scan_text(text: str) -> dict[str, str]:
	"""name -> ALWAYS or INLINE for every static inline definition in text."""
	found: dict[str, str] = {}
	for m in _DEFINITION.finditer(text):
		quals = m.group('quals')
		if '__always_inline' in quals or 'nokprobe_inline' in quals:
			kind = ALWAYS
		elif re.search(r'\b(inline|__inline__|__inline)\b', quals):
			kind = INLINE
		else:
			continue
		# An __always_inline definition anywhere wins over a plain one
		# (the same helper may be defined per configuration).
		if found.get(m.group('name')) != ALWAYS:
			found[m.group('name')] = kind
	return found


# Not kernel code, or not built into it.
SKIP_DIRS = ('Documentation', 'tools', 'scripts', 'samples', 'usr', '.git')


def header_files(kdir: Path) -> list[Path]:
	"""Every header of the tree: include/, arch/*/include/ and the local
	headers beside the C files (drivers, arch/*/kernel)."""
	found = []
	for dirpath, dirnames, names in os.walk(kdir):
		if Path(dirpath) == kdir:
			dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
		found += [Path(dirpath) / n for n in names if n.endswith('.h')]
	return sorted(found)


def build(kdir: Path) -> dict[str, str]:
	index: dict[str, str] = {}
	for header in header_files(kdir):
		try:
			text = header.read_text(errors='replace')
		except OSError:
			continue
		for name, kind in scan_text(text).items():
			if index.get(name) != ALWAYS:
				index[name] = kind
	return index


def load(path: Optional[str] = None) -> dict[str, str]:
	"""The index named by the environment (spatch's scripts read it so)."""
	path = path or os.environ.get(ENV)
	if not path:
		return {}
	try:
		return json.loads(Path(path).read_text())
	except (OSError, ValueError):
		return {}
