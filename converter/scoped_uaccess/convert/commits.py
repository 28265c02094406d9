# SPDX-License-Identifier: GPL-2.0
"""One commit per subsystem: its subject prefix, and what checkpatch still says of it.

The changelog itself is changelog.py's."""

import collections
import re
from pathlib import Path
from typing import Iterable, Optional

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
