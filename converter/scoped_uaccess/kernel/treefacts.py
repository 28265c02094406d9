# SPDX-License-Identifier: GPL-2.0
"""What a kernel tree says about its user access API, read from the tree itself.

The tools work on trees before the scoped API (6.12, 6.1) and after it
(7.x), where more architectures mask: what differs is read from the
headers, not kept in a table of one version's facts.
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from scoped_uaccess.kernel.sources import makefile_version

UACCESS_H = Path('include/linux/uaccess.h')
_MASKED = re.compile(r'#\s*define\s+masked_user_access_begin\b')
_SCOPE = re.compile(r'#\s*define\s+(scoped_user_(?:read|write|rw)_access(?:_size)?)\s*\(')


@dataclass(frozen=True)
class TreeFacts:
	version: str
	masking: tuple[str, ...]	# architectures whose uaccess headers define masked_user_access_begin
	scopes: tuple[str, ...]		# the scoped_user_*_access*() macros include/linux/uaccess.h defines

	@property
	def native_scopes(self) -> bool:
		"""Whether the tree has the scoped API itself (v6.19 and later); a
		6.12 tree gets it from patches/ (the core series)."""
		return bool(self.scopes)


def masking_arches(kdir: Path) -> tuple[str, ...]:
	"""The architectures whose uaccess headers provide masked user access
	(can_do_masked_user_access() is 1 there): x86 in 6.12, x86 and powerpc
	in 7.3."""
	found: list[str] = []
	for header in sorted(kdir.glob('arch/*/include/asm/uaccess*.h')):
		if _MASKED.search(header.read_text(errors='replace')):
			arch = header.parts[-4]
			if arch not in found:
				found.append(arch)
	return tuple(found)


def masking_variants(kdir: Path) -> tuple[tuple[str, Optional[int]], ...]:
	"""The architectures that mask user pointers, with the width when
	only one does: x86's masked_user_access_begin() is in uaccess_64.h
	(64-bit x86 only), powerpc's in uaccess.h (both widths)."""
	found: list[tuple[str, Optional[int]]] = []
	for header in sorted(kdir.glob('arch/*/include/asm/uaccess*.h')):
		if _MASKED.search(header.read_text(errors='replace')):
			m = re.search(r'_(32|64)$', header.stem)
			variant = (header.parts[-4], int(m.group(1)) if m else None)
			if variant not in found:
				found.append(variant)
	return tuple(found)


def scopes(kdir: Path) -> tuple[str, ...]:
	try:
		text = (kdir / UACCESS_H).read_text(errors='replace')
	except OSError:
		return ()
	return tuple(sorted(set(_SCOPE.findall(text))))


def read(kdir: Path) -> TreeFacts:
	return TreeFacts(makefile_version(kdir) or '', masking_arches(kdir), scopes(kdir))
