# SPDX-License-Identifier: GPL-2.0
"""Which architectures build a file of a kernel tree, read from its Makefiles and Kconfig.

A changelog that says what changes "on powerpc" must be about a file
powerpc builds: i915 depends on X86, kernel/compat.c is built where an
architecture defines COMPAT, vm86_32.c only where X86_32 is set.  The
answer is read from the tree, the way kbuild decides it:

- the Makefile that names the object (`obj-$(CONFIG_X) += f.o`,
  `lib-y += f.o` under `ifeq ($(CONFIG_X86_32),y)`, a composite
  `i915-y += gem/f.o` built by `obj-$(CONFIG_DRM_I915) += i915.o`), and
  the Makefiles above it that descend into its directory; every
  CONFIG_ symbol on that way is a condition;
- each condition's Kconfig entries: a symbol defined only under
  arch/<a>/ is that architecture's (X86_64, PPC32, and COMPAT, which
  only some architectures define), and the `depends on` of a symbol
  defined elsewhere restricts it to the architecture symbols it names
  (DRM_I915: `depends on X86 && PCI`; COMPILE_TEST does not count);
- under arch/<a>/ the architecture is a, and a symbol or a file name
  ending in 32 or 64 says which width (checksum_32.h, usercopy_$(BITS)).

Headers are known by their users: a header under arch/<a>/ is a's
(its _32/_64 suffix giving the width), any other is built everywhere.
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Optional

# An architecture and, where only one width builds the file, that width.
Variant = tuple[str, Optional[int]]
# make conditionals that test a symbol: ifeq ($(CONFIG_X),y), ifdef CONFIG_X, ...
_IF = re.compile(r'^\s*if(?P<kind>eq|neq|def|ndef)\b\s*(?P<rest>.*)$')
_SYMBOL = re.compile(r'CONFIG_([A-Za-z0-9_]+)')
_CONFIG = re.compile(r'^\s*(?:menu)?config\s+(\w+)\s*$')
_DEPENDS = re.compile(r'^\s*depends\s+on\s+(.*)$')
# `default X86_LEGACY_VM86` of a promptless bool: set exactly when that is
_DEFAULT_SYMBOL = re.compile(r'^\s*default\s+([A-Z][A-Z0-9_]*)\s*$')


@dataclass(frozen=True)
class Builders:
	"""The architectures that build a file; empty: every architecture."""
	variants: frozenset[Variant]
	why: str			# the Makefile or Kconfig line that decides it
	because: str = ''		# in Kconfig's words, for a changelog: `DRM_I915 depends on X86 && PCI`

	@property
	def everywhere(self) -> bool:
		return not self.variants

	def builds(self, arch: str, bits: Optional[int] = None) -> bool:
		"""Whether (arch, bits) builds the file; bits None: any width of arch."""
		if self.everywhere:
			return True
		return any(a == arch and (bits is None or b is None or b == bits)
			   for a, b in self.variants)

	def describe(self) -> str:
		"""`every architecture`, `x86 (32-bit) only`, `powerpc (64-bit) and x86 (64-bit)`."""
		if self.everywhere:
			return 'every architecture'
		names = [f'{a} ({b}-bit)' if b else a for a, b in sorted(self.variants,
									     key=lambda v: (v[0], v[1] or 0))]
		return names[0] + ' only' if len(names) == 1 else \
			', '.join(names[:-1]) + ' and ' + names[-1]


class Tree:
	"""The Makefiles and Kconfig entries of one tree, read once."""

	def __init__(self, root: Path) -> None:
		self.root = root
		self._allowed: dict[str, Optional[frozenset[Variant]]] = {}
		self._reasons: dict[str, str] = {}

	@lru_cache(maxsize=None)
	def kconfig(self) -> dict[str, list[tuple[str, list[str]]]]:
		"""symbol -> [(Kconfig file, its `depends on` expressions)]."""
		found: dict[str, list[tuple[str, list[str]]]] = {}
		for path in sorted(self.root.rglob('Kconfig*')):
			rel = str(path.relative_to(self.root))
			if not path.is_file() or rel.startswith(('Documentation/', 'tools/', 'scripts/')):
				continue
			current: Optional[list[str]] = None
			for line in path.read_text(errors='replace').splitlines():
				m = _CONFIG.match(line)
				if m:
					current = []
					found.setdefault(m.group(1), []).append((rel, current))
					continue
				d = _DEPENDS.match(line) or _DEFAULT_SYMBOL.match(line)
				if d and current is not None:
					current.append(d.group(1).split('#')[0].strip())
				elif re.match(r'^\s*(endmenu|endif|menu|if|choice|endchoice|source)\b', line):
					current = None
		return found

	def allowed(self, symbol: str) -> Optional[frozenset[Variant]]:
		"""The architectures (and widths) where symbol can be set; None
		when Kconfig does not restrict it to some.  A symbol defined only
		under arch/ is its architectures'; any symbol is narrowed by the
		operands of its `depends on` (and of the one symbol a promptless
		bool defaults to, VM86 -> X86_LEGACY_VM86), an operand `A || B` to
		what A or B allows, and nothing that allows COMPILE_TEST, negates
		or compares counts."""
		if symbol in self._allowed:
			return self._allowed[symbol]
		self._allowed[symbol] = None		# a cycle restricts nothing
		defs = self.kconfig().get(symbol, [])
		result: Optional[frozenset[Variant]] = None
		if defs:
			per_def = [self._allowed_by(symbol, f, requires) for f, requires in defs]
			if all(v is not None for v in per_def):
				result = frozenset(x for v in per_def if v is not None for x in v)
		self._allowed[symbol] = result
		return result

	def _allowed_by(self, symbol: str, file: str, requires: list[str]) -> \
			Optional[frozenset[Variant]]:
		"""What one definition of symbol allows."""
		v: Optional[frozenset[Variant]] = None
		if _arch_of(file):
			v = frozenset({(_arch_of(file), _width(symbol))})
		for expr in requires:
			for term in _conjuncts(expr):
				w = self._term(term)
				if w is not None:
					v = w if v is None else _meet(v, w)
					if not _arch_of(file):
						self._reasons.setdefault(symbol, f'{symbol} depends on {expr}')
		return v

	def reason(self, symbol: str) -> str:
		"""Why symbol is only set on some architectures, in Kconfig's words:
		`DRM_I915 depends on X86 && PCI`, `only arm64, ... define COMPAT`."""
		if symbol in self._reasons:
			return self._reasons[symbol]
		defs = self.kconfig().get(symbol, [])
		arches = sorted({_arch_of(f) for f, _ in defs if _arch_of(f)})
		if defs and len(arches) == len({f for f, _ in defs}) and arches:
			return (f'{symbol} is defined by ' + (arches[0] if len(arches) == 1 else
							      ', '.join(arches[:-1]) + ' and ' + arches[-1]))
		return f'{symbol} is set there'


	def _term(self, term: str) -> Optional[frozenset[Variant]]:
		"""What one operand of a `depends on` allows (None: anything)."""
		if '!' in term or 'COMPILE_TEST' in term or '=' in term or '&&' in term:
			return None
		operands = [o.strip('() ') for o in term.split('||')]
		if not all(re.fullmatch(r'[A-Z0-9_]+', o) for o in operands):
			return None
		found: set[Variant] = set()
		for o in operands:
			w = self.allowed(o)
			if w is None:
				return None
			found |= w
		return frozenset(found)

	def allowed_unless(self, symbol: str) -> Optional[frozenset[Variant]]:
		"""Where symbol can be unset, as far as a width tells: X86_32 unset
		on x86 is 64-bit x86; None when that says nothing."""
		allowed = self.allowed(symbol)
		if allowed is None or len(allowed) != 1:
			return None
		arch, bits = next(iter(allowed))
		return frozenset({(arch, 96 - bits)}) if bits else None

	def why(self, symbol: str) -> str:
		"""Where symbol is defined, for a changelog reader to check."""
		files = sorted({f for f, _ in self.kconfig().get(symbol, [])})
		return f'CONFIG_{symbol} ({", ".join(files)})' if files else f'CONFIG_{symbol}'

	@lru_cache(maxsize=None)
	def makefile(self, directory: str) -> list[tuple[str, tuple[str, ...]]]:
		"""The lines of directory's Makefile (or Kbuild), continuations
		joined, each with the CONFIG_ symbols of the conditionals around it."""
		for name in ('Kbuild', 'Makefile'):
			path = self.root / directory / name
			if path.is_file():
				break
		else:
			return []
		text = re.sub(r'\\\n', ' ', path.read_text(errors='replace'))
		out, stack = [], []
		for line in text.splitlines():
			line = line.split('#')[0]
			m = _IF.match(line)
			if m:
				positive = m['kind'] in ('def',) or \
					(m['kind'] == 'eq' and re.search(r',\s*y\s*\)', m['rest']) is not None)
				stack.append(tuple(_SYMBOL.findall(m['rest'])) if positive else ())
			elif re.match(r'^\s*else\b', line) and stack:
				# the other branch of `ifeq ($(CONFIG_X86_32),y)`: X86_32 unset
				stack[-1] = tuple('!' + s for s in stack[-1] if not s.startswith('!'))
			elif re.match(r'^\s*endif\b', line) and stack:
				stack.pop()
			elif line.strip():
				out.append((line, tuple(s for level in stack for s in level)))
		return out


def _arch_of(file: str) -> str:
	"""The architecture whose Kconfig file this is: arch/x86/Kconfig is
	x86's; arch/Kconfig, the symbols every architecture may select
	(HAVE_RSEQ), is none's ('')."""
	parts = file.split('/')
	return parts[1] if parts[0] == 'arch' and len(parts) > 2 else ''


def _width(name: str) -> Optional[int]:
	m = re.search(r'(32|64)$', name)
	return int(m.group(1)) if m else None


def _conjuncts(expr: str) -> list[str]:
	"""The operands of the top-level && of a Kconfig expression."""
	parts, depth, last = [], 0, 0
	for i, c in enumerate(expr):
		depth += {'(': 1, ')': -1}.get(c, 0)
		if depth == 0 and expr.startswith('&&', i):
			parts.append(expr[last:i].strip())
			last = i + 2
	return [p.strip('() ') for p in parts + [expr[last:].strip()]]


def _meet(a: frozenset[Variant], b: frozenset[Variant]) -> frozenset[Variant]:
	"""The variants both allow; a width narrows an architecture."""
	out = set()
	for arch, bits in a:
		for arch2, bits2 in b:
			if arch == arch2 and (bits is None or bits2 is None or bits == bits2):
				out.add((arch, bits or bits2))
	return frozenset(out)


def _names(entry: str, target: str) -> Optional[Optional[int]]:
	"""Whether a Makefile entry names target: None when it does not;
	else the width a `$(BITS)` in it fixes (usercopy_$(BITS).o names
	usercopy_32.o where BITS is 32), or 0 for no width."""
	if entry == target:
		return 0
	pattern = re.sub(r'\\\$\\\([^)]*\\\)', r'\\w*', re.escape(entry))
	if not re.fullmatch(pattern, target):
		return None
	return (_width(target[:-2]) or 0) if '$(' in entry else 0


# `obj-y += f.o`, `lib-$(CONFIG_X) += f.o`, `i915-y += gem/f.o`
_ASSIGNMENT = re.compile(r'^\s*([\w-]+?)-(y|objs|\$\(CONFIG_(\w+)\))\s*[:+]?=\s*(.*)$')


def _ways(tree: Tree, directory: str, target: str, depth: int = 0) -> list[tuple[list[str], int, str]]:
	"""Every way directory's Makefile builds target (`f.o` or `sub/`):
	the CONFIG_ symbols that must be set, the width a $(BITS) fixes (0:
	none), and the line; [] when no line names it."""
	found = []
	for line, guards in tree.makefile(directory):
		m = _ASSIGNMENT.match(line)
		if not m:
			continue
		widths = [w for n in m.group(4).split() if (w := _names(n, target)) is not None]
		if not widths:
			continue
		symbols = list(guards) + ([m.group(3)] if m.group(3) else [])
		owner = m.group(1)
		where = f'{directory}/Makefile: {owner}-{m.group(2)} += {target}'
		if owner in ('obj', 'lib', 'core', 'drivers', 'libs') or depth > 3:
			found.append((symbols, widths[0], where))
			continue
		# part of a composite object, or of a list (gem-y): the ways that
		# build <owner>.o, or that name $(<owner>-y)
		outer = _ways(tree, directory, f'{owner}.o', depth + 1) + \
			_ways(tree, directory, f'$({owner}-y)', depth + 1)
		found += [(symbols + s, widths[0] or w, where) for s, w, _ in outer]
	return found


def builders(root: Path, path: str, tree: Optional[Tree] = None) -> Builders:
	"""The architectures that build path (relative to the tree's top)."""
	tree = tree or Tree(root)
	parts = path.split('/')
	arch = parts[1] if parts[0] == 'arch' and len(parts) > 2 else None
	if path.endswith('.h'):
		if arch:
			return Builders(frozenset({(arch, _width(Path(path).stem))}),
					f'{path} is a header of arch/{arch}/')
		return Builders(frozenset(), f'{path} is a generic header')
	# From the file's directory up: the Makefile that names it (a
	# composite object may name it by a path below its directory:
	# gem/i915_gem_execbuffer.o), then each Makefile that descends into
	# the directory on the way up, whose conditions hold for all of it.
	directory, target = '/'.join(parts[:-1]), parts[-1][:-2] + '.o'
	ways: list[tuple[list[str], int, str]] = []
	above: list[str] = []
	while directory:
		found = _ways(tree, directory, target)
		name = directory.split('/')[-1]
		if found and not ways:
			ways, target = found, name + '/'
		elif found:
			above += found[0][0]
			target = name + '/'
		else:
			target = f'{name}/{target}'
		directory = '/'.join(directory.split('/')[:-1])
	if not ways:
		ways = [([], 0, f'{path}: no Makefile line names it')]
	variants: set[Variant] = set()
	everywhere = False
	deciding: list[str] = []
	reasons: list[str] = []
	for symbols, width, _ in ways:
		v: Optional[frozenset[Variant]] = frozenset({(arch, width or None)}) if arch else \
			(frozenset({('', width)}) if width else None)
		for s in symbols + above:
			allowed = tree.allowed_unless(s[1:]) if s.startswith('!') else tree.allowed(s)
			if allowed is not None:
				v = allowed if v is None else _meet_any(v, allowed)
				deciding.append(tree.why(s.lstrip('!')))
				if not s.startswith('!') and not (arch and s.startswith(arch.upper())):
					reasons.append(tree.reason(s))
		if v is None:
			everywhere = True
		else:
			variants |= v
	why = '; '.join(dict.fromkeys([w for _, _, w in ways] + deciding))
	return Builders(frozenset() if everywhere else frozenset(variants), why,
			'; '.join(dict.fromkeys(reasons)))


def _meet_any(a: frozenset[Variant], b: frozenset[Variant]) -> frozenset[Variant]:
	"""_meet(), where an architecture '' (a width alone) matches any."""
	out = set()
	for arch, bits in a:
		for arch2, bits2 in b:
			if arch in ('', arch2) and (bits is None or bits2 is None or bits == bits2):
				out.add((arch2, bits or bits2))
	return frozenset(out)


def describe_all(root: Path, paths: Iterable[str]) -> dict[str, Builders]:
	tree = Tree(root)
	return {p: builders(root, p, tree) for p in paths}
