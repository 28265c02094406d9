# SPDX-License-Identifier: GPL-2.0
"""What each supported compiler needs on the make command line."""

from dataclasses import dataclass

from scoped_uaccess.core.errors import UsageError


@dataclass(frozen=True)
class Toolchain:
	"""One compiler, keyed by the CC value users pass (`make kunit CC=...`)."""
	name: str
	make_options: tuple[str, ...]
	compiler: str		# the binary that must exist
	packages: tuple[str, ...]


GCC = Toolchain(name='gcc', make_options=('CC=gcc',), compiler='gcc',
		packages=('gcc',))
CLANG_14 = Toolchain(name='clang-14', make_options=('LLVM=-14',),
		     compiler='clang-14', packages=('clang-14', 'lld-14', 'llvm-14'))
CLANG_19 = Toolchain(name='clang-19', make_options=('LLVM=-19',),
		     compiler='clang-19', packages=('clang-19', 'lld-19', 'llvm-19'))

TOOLCHAINS: dict[str, Toolchain] = {t.name: t for t in (GCC, CLANG_14, CLANG_19)}


def toolchain(name: str) -> Toolchain:
	"""Looks up a toolchain by its CC name."""
	try:
		return TOOLCHAINS[name]
	except KeyError:
		raise UsageError(f'unknown compiler CC={name}',
				 'use one of ' + ', '.join(TOOLCHAINS)) from None
