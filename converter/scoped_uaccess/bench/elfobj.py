# SPDX-License-Identifier: GPL-2.0
"""Just enough of an x86_64 relocatable ELF object to find its user access regions.

Reading the sections directly keeps the tree-wide scan of the code section
at one open() per object; objdump runs only on the objects that hold a
region.
"""

import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

_EHDR = struct.Struct('<16sHHIQQQIHHHHHH')
_SHDR = struct.Struct('<IIQQQQIIQQ')
_RELA = struct.Struct('<QQq')
_SYM = struct.Struct('<IBBHQQ')
SHT_SYMTAB, SHT_RELA = 2, 4
STT_FUNC, STT_SECTION = 2, 3
SHF_EXECINSTR = 0x4
EM_X86_64 = 62
ET_REL = 1
# struct alt_instr (arch/x86/include/asm/alternative.h): s32 instr_offset,
# s32 repl_offset, u32 ft_flags, u8 instrlen, u8 replacementlen.
ALT_INSTR = struct.Struct('<iiIBB')
STAC = bytes.fromhex('0f01cb')
LFENCE = bytes.fromhex('0faee8')
LFENCE_BYTES = len(LFENCE)


@dataclass(frozen=True)
class Section:
	name: str
	type: int
	flags: int
	offset: int
	size: int
	link: int
	info: int


@dataclass(frozen=True)
class Alternative:
	"""One .altinstructions entry: where it patches and what it puts there."""
	section: str		# of the patched instruction
	offset: int
	feature: int
	instrlen: int
	replacement: bytes


class ElfObject:
	"""The sections, relocations and symbols of one ELF64 relocatable object."""

	def __init__(self, data: bytes) -> None:
		self.data = data
		ehdr = _EHDR.unpack_from(data)
		shoff, shentsize, shnum, shstrndx = ehdr[6], ehdr[11], ehdr[12], ehdr[13]
		raw = [_SHDR.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]
		names = raw[shstrndx][4] if raw else 0
		self.sections = [Section(self._str(names, s[0]), s[1], s[2], s[4], s[5], s[6], s[7])
				 for s in raw]

	def _str(self, table_offset: int, index: int) -> str:
		end = self.data.index(b'\0', table_offset + index)
		return self.data[table_offset + index:end].decode(errors='replace')

	def section(self, name: str) -> Optional[Section]:
		return next((s for s in self.sections if s.name == name), None)

	def contents(self, s: Section) -> bytes:
		return self.data[s.offset:s.offset + s.size]

	def symbols(self) -> list[tuple[str, int, int, int, int]]:
		"""(name, section index, value, size, type) of .symtab; section symbols
		named after their section."""
		symtab = next((s for s in self.sections if s.type == SHT_SYMTAB), None)
		if symtab is None:
			return []
		strtab = self.sections[symtab.link].offset
		out = []
		for off in range(symtab.offset, symtab.offset + symtab.size, _SYM.size):
			name, info, _, shndx, value, size = _SYM.unpack_from(self.data, off)
			text = self._str(strtab, name)
			if info & 0xf == STT_SECTION and shndx < len(self.sections):
				text = self.sections[shndx].name
			out.append((text, shndx, value, size, info & 0xf))
		return out

	def relocations(self, target: str) -> dict[int, tuple[str, int]]:
		"""offset -> (section the symbol lies in, offset in it) of the RELA of @target."""
		index = next((i for i, s in enumerate(self.sections) if s.name == target), None)
		rela = next((s for s in self.sections if s.type == SHT_RELA and s.info == index), None)
		if index is None or rela is None:
			return {}
		symbols = self.symbols()
		found = {}
		for off in range(rela.offset, rela.offset + rela.size, _RELA.size):
			r_offset, r_info, addend = _RELA.unpack_from(self.data, off)
			_, shndx, value, _, _ = symbols[r_info >> 32]
			if 0 < shndx < len(self.sections):
				found[r_offset] = (self.sections[shndx].name, value + addend)
		return found

	def functions(self) -> dict[str, tuple[str, int, int]]:
		"""name -> (section, start, size) of the function symbols."""
		return {name: (self.sections[shndx].name, value, size)
			for name, shndx, value, size, kind in self.symbols()
			if kind == STT_FUNC and 0 < shndx < len(self.sections)}

	def text_bytes(self) -> int:
		"""Bytes of the executable sections, the alternatives' replacements aside."""
		return sum(s.size for s in self.sections if s.flags & SHF_EXECINSTR
			   and s.name != '.altinstr_replacement')

	def alternatives(self, flags_shift: int = 16) -> list[Alternative]:
		alt = self.section('.altinstructions')
		repl = self.section('.altinstr_replacement')
		if alt is None:
			return []
		relocs = self.relocations('.altinstructions')
		table = self.contents(alt)
		repl_data = self.contents(repl) if repl is not None else b''
		out = []
		for off in range(0, len(table) - ALT_INSTR.size + 1, ALT_INSTR.size):
			*_, ft_flags, instrlen, replacementlen = ALT_INSTR.unpack_from(table, off)
			site, source = relocs.get(off), relocs.get(off + 4)
			if site is None:
				continue
			replacement = b''
			if source is not None and source[0] == '.altinstr_replacement':
				replacement = repl_data[source[1]:source[1] + replacementlen]
			out.append(Alternative(site[0], site[1], ft_flags & ((1 << flags_shift) - 1),
					       instrlen, replacement))
		return out


def read_object(path: Path) -> Optional[ElfObject]:
	"""The object at @path when it is an x86_64 ELF relocatable file (not a
	thin archive, not a 32-bit real-mode object)."""
	try:
		data = path.read_bytes()
	except OSError:
		return None
	if len(data) < _EHDR.size or data[:5] != b'\x7fELF\x02':
		return None
	ehdr = _EHDR.unpack_from(data)
	if ehdr[1] != ET_REL or ehdr[2] != EM_X86_64:
		return None
	return ElfObject(data)


def cpu_feature(cpufeatures_h: str, name: str) -> int:
	"""X86_FEATURE_<name> of the tree's arch/x86/include/asm/cpufeatures.h."""
	m = re.search(rf'^#define X86_FEATURE_{name}\s+\(\s*(\d+)\s*\*\s*32\s*\+\s*(\d+)\s*\)',
		      cpufeatures_h, re.MULTILINE)
	if m is None:
		raise ValueError(f'X86_FEATURE_{name} not found')
	return int(m.group(1)) * 32 + int(m.group(2))
