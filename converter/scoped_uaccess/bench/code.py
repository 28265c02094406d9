# SPDX-License-Identifier: GPL-2.0
"""Section code: size and LFENCE sites of the converted functions, baseline against converted."""

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from scoped_uaccess.bench import elfobj
from scoped_uaccess.bench.common import BenchRequest, _rel
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.kernel import tree
from scoped_uaccess.kernel.git import git

_HUNK = re.compile(r'^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,(?P<count>\d+))? @@ ?(?P<context>.*)$')
_FUNC_NAME = re.compile(r'(?:SYSCALL_DEFINE\d\((?P<syscall>\w+)|(?P<name>\w+)\s*\()')


def changed_functions(diff: str) -> dict[str, set[str]]:
	"""File -> names of the functions whose hunks the diff shows, from the
	hunk headers (git's cpp funcname driver: the enclosing definition)."""
	found: dict[str, set[str]] = {}
	file = None
	for line in diff.splitlines():
		if line.startswith('+++ '):
			file = line[6:] if line.startswith('+++ b/') else None
		elif file and (m := _HUNK.match(line)):
			if f := _FUNC_NAME.search(m.group('context')):
				name = (f'__do_sys_{f.group("syscall")}' if f.group('syscall')
					else f.group('name'))
				found.setdefault(file, set()).add(name)
			else:
				found.setdefault(file, set())
	return found


def converted_file(path: str, arch: str = 'x86') -> bool:
	"""Whether a changed file holds converted code (not the API, tests or tools)."""
	name = Path(path).name
	if not path.endswith(('.c', '.h')) or path.startswith(('lib/', 'scripts/', 'tools/')):
		return False
	if 'test' in name or 'kunit' in name:
		return False
	# The API and its architecture back ends change every user of them.
	if name in ('uaccess.h', 'uaccess_64.h', 'uaccess_32.h'):
		return False
	m = re.match(r'arch/([^/]+)/', path)
	return m is None or m.group(1) == arch


def conversion_functions(path: Path) -> dict[str, set[str]]:
	"""File -> functions the converter's report marks converted, when it exists
	(its regions also list the skipped ones)."""
	if not path.is_file():
		return {}
	found: dict[str, set[str]] = {}

	def walk(node) -> None:
		if isinstance(node, dict):
			if (isinstance(node.get('file'), str) and isinstance(node.get('function'), str)
			    and node.get('status', 'converted') == 'converted'):
				found.setdefault(node['file'], set()).add(node['function'])
			for value in node.values():
				walk(value)
		elif isinstance(node, list):
			for value in node:
				walk(value)
	try:
		walk(json.loads(path.read_text()))
	except ValueError:
		return {}
	return found


def objects_for(files: Iterable[str], build_dir: Path) -> list[str]:
	"""Objects built from the .c files, and objects whose kbuild .cmd file
	lists one of the headers as a dependency."""
	objects = {f[:-2] + '.o' for f in files if f.endswith('.c')
		   and (build_dir / (f[:-2] + '.o')).is_file()}
	headers = [f for f in files if f.endswith('.h')]
	if headers:
		for cmd in build_dir.rglob('.*.o.cmd'):
			text = cmd.read_text(errors='replace')
			if any(f'/{h} ' in text or f'/{h} \\' in text or f'/{h}\n' in text for h in headers):
				obj = cmd.parent / cmd.name[1:-4]
				rel = str(obj.relative_to(build_dir))
				if obj.is_file() and rel != 'vmlinux.o' and not rel.endswith('.mod.o'):
					objects.add(rel)
	return sorted(objects)


_SYMBOL = re.compile(r'^(?P<addr>[0-9a-f]+) (?P<flags>.{7}) (?P<section>\S+)\s+'
		     r'(?P<size>[0-9a-f]+) (?P<name>\S+)$')
_DISASM_FUNC = re.compile(r'^[0-9a-f]+ <(?P<name>[^>]+)>:$')
_DISASM_INSN = re.compile(r'^\s*(?P<addr>[0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(?P<insn>\S+)')
_RELOC = re.compile(r'^(?P<offset>[0-9a-f]+) (?P<type>\S+)\s+(?P<target>[^+\s]+)(?:\+0x(?P<addend>[0-9a-f]+))?$')
ALT_INSTR = elfobj.ALT_INSTR


@dataclass
class FunctionCode:
	size: int = 0
	lfence: int = 0		# LFENCE in the function's own code
	alt_lfence: int = 0	# LFENCE in the alternatives patched into it

	@property
	def lfence_total(self) -> int:
		return self.lfence + self.alt_lfence


def function_symbols(objdump_t: str) -> dict[str, tuple[str, int, int]]:
	"""name -> (section, address, size) of the functions of `objdump -t`."""
	symbols = {}
	for line in objdump_t.splitlines():
		m = _SYMBOL.match(line)
		if m and 'F' in m.group('flags'):
			symbols[m.group('name')] = (m.group('section'), int(m.group('addr'), 16),
						    int(m.group('size'), 16))
	return symbols


def lfence_by_function(disassembly: str) -> dict[str, int]:
	"""LFENCE instructions per function of `objdump -d`, outside the
	alternatives' replacement code."""
	skip = False
	counts: dict[str, int] = {}
	current = None
	for line in disassembly.splitlines():
		if line.startswith('Disassembly of section '):
			# Replacements are counted where they patch: alternative_lfences().
			current = None
			skip = line.split()[-1].rstrip(':').startswith('.altinstr')
		elif (m := _DISASM_FUNC.match(line)) and not skip:
			current = m.group('name')
			counts.setdefault(current, 0)
		elif current and (m := _DISASM_INSN.match(line)) and m.group('insn') == 'lfence':
			counts[current] += 1
	return counts


def lfence_addresses(disassembly: str) -> list[int]:
	return [int(m.group('addr'), 16) for m in map(_DISASM_INSN.match, disassembly.splitlines())
		if m and m.group('insn') == 'lfence']


def hex_dump_bytes(dump: str) -> bytes:
	"""The bytes of `objdump -s -j SECTION` output."""
	data = bytearray()
	for line in dump.splitlines():
		m = re.match(r'^ ([0-9a-f]{4,}) ((?:[0-9a-f]{2,8} ){1,4})', line + ' ')
		if m:
			data += bytes.fromhex(m.group(2).replace(' ', ''))
	return bytes(data)


def relocations(dump: str) -> dict[int, tuple[str, int]]:
	"""offset -> (target section or symbol, addend) of `objdump -r -j SECTION`."""
	found = {}
	for line in dump.splitlines():
		if m := _RELOC.match(line.strip()):
			found[int(m.group('offset'), 16)] = (m.group('target'),
							     int(m.group('addend') or '0', 16))
	return found


def alternative_lfences(alt_data: bytes, alt_relocs: dict[int, tuple[str, int]],
			repl_lfences: list[int],
			symbols: dict[str, tuple[str, int, int]]) -> dict[str, int]:
	"""LFENCEs of .altinstr_replacement, per function whose code they patch."""
	counts: dict[str, int] = {}
	for off in range(0, len(alt_data) - ALT_INSTR.size + 1, ALT_INSTR.size):
		*_, replacementlen = ALT_INSTR.unpack_from(alt_data, off)
		site, repl = alt_relocs.get(off), alt_relocs.get(off + 4)
		if site is None or repl is None or repl[0] != '.altinstr_replacement':
			continue
		n = sum(repl[1] <= a < repl[1] + replacementlen for a in repl_lfences)
		if not n:
			continue
		owner = owner_of(symbols, *site)
		counts[owner] = counts.get(owner, 0) + n
	return counts


def owner_of(functions: dict[str, tuple[str, int, int]], section: str, offset: int) -> str:
	"""The function whose code holds section+offset, or that address."""
	return next((name for name, (sec, start, size) in functions.items()
		     if sec == section and start <= offset < start + max(size, 1)),
		    f'{section}+{offset:#x}')


def object_code(runner: Runner, obj: Path) -> dict[str, FunctionCode]:
	"""Size and LFENCE sites of every function of an x86_64 object."""
	def objdump(*args: str) -> str:
		return runner.run(Command(('objdump', *args, str(obj)), mutates=False),
				  Output.CAPTURE, check=False).output
	symbols = function_symbols(objdump('-t'))
	code = {name: FunctionCode(size=size) for name, (_, _, size) in symbols.items()}
	for name, n in lfence_by_function(objdump('-d')).items():
		code.setdefault(name, FunctionCode()).lfence = n
	alt = objdump('-s', '-j', '.altinstructions')
	if '.altinstructions' in alt:
		alts = alternative_lfences(
			hex_dump_bytes(alt.split('Contents of section .altinstructions:', 1)[-1]),
			relocations(objdump('-r', '-j', '.altinstructions')),
			lfence_addresses(objdump('-d', '-j', '.altinstr_replacement')), symbols)
		for name, n in alts.items():
			code.setdefault(name, FunctionCode()).alt_lfence = n
	return code


_BLOAT_ROW = re.compile(r'^(?P<name>\S+)\s+(?P<old>-|\d+)\s+(?P<new>-|\d+)\s+(?P<delta>[-+]\d+)$')
_BLOAT_TOTAL = re.compile(r'^Total: Before=(?P<before>\d+), After=(?P<after>\d+)')


def parse_bloat(text: str) -> dict:
	"""scripts/bloat-o-meter output: the changed symbols and the totals."""
	rows, before, after = {}, None, None
	for line in text.splitlines():
		if m := _BLOAT_ROW.match(line.strip()):
			rows[m.group('name')] = int(m.group('delta'))
		elif m := _BLOAT_TOTAL.match(line.strip()):
			before, after = int(m.group('before')), int(m.group('after'))
	return {'symbols': rows, 'before': before, 'after': after,
		'delta': None if before is None else after - before}


def run_code(runner: Runner, request: BenchRequest, record: dict) -> dict:
	"""bloat-o-meter and LFENCE sites of the changed objects; section 3's data."""
	base_dir, conv_dir = paths.OUT / 'user-baseline', paths.OUT / 'user-series'
	diff = runner.run(git(request.kdir, 'diff', '-U0', tree.BASELINE_TAG, 'HEAD', '--', '*.c', '*.h'),
			  Output.CAPTURE).output
	by_file = {f: names for f, names in changed_functions(diff).items() if converted_file(f)}
	conversion = paths.REPO / 'reports' / f'linux-{tree.kernel_version(request.kdir)}' / 'conversion.json'
	for f, names in conversion_functions(conversion).items():
		if converted_file(f):
			by_file.setdefault(f, set()).update(names)
	sources = {n for names in by_file.values() for n in names}
	objects = objects_for(by_file, conv_dir)
	record.update(files=sorted(by_file), objects=objects,
		      conversion_json=_rel(conversion) if conversion.is_file() else None,
		      baseline_build=_rel(base_dir), converted_build=_rel(conv_dir),
		      bloat_command=f'{_rel(request.kdir)}/scripts/bloat-o-meter '
				    f'{_rel(base_dir)}/OBJ {_rel(conv_dir)}/OBJ',
		      lfence_command='objdump -d OBJ (lfence per function) and '
				     'objdump -s/-r -j .altinstructions, -d -j .altinstr_replacement '
				     '(alternatives per function)')
	functions: dict[str, dict] = {}
	total_delta = 0
	per_object = {}
	for obj in objects:
		old, new = base_dir / obj, conv_dir / obj
		if not old.is_file() or not new.is_file():
			per_object[obj] = {'missing': True}
			continue
		bloat = runner.run(Command((sys.executable, str(request.kdir / 'scripts' / 'bloat-o-meter'),
					    str(old), str(new)), mutates=False), Output.CAPTURE)
		parsed = parse_bloat(bloat.output)
		per_object[obj] = {'bytes_before': parsed['before'], 'bytes_after': parsed['after'],
				   'bytes_delta': parsed['delta']}
		total_delta += parsed['delta'] or 0
		before, after = object_code(runner, old), object_code(runner, new)
		for name in sorted(before.keys() | after.keys()):
			b, a = before.get(name, FunctionCode()), after.get(name, FunctionCode())
			if (b.size, b.lfence_total) == (a.size, a.lfence_total) and name not in sources:
				continue
			functions[f'{obj}:{name}'] = {
				'object': obj, 'function': name, 'source_changed': name in sources,
				'bytes_before': b.size, 'bytes_after': a.size,
				'bytes_delta': parsed['symbols'].get(name, a.size - b.size),
				'lfence_before': b.lfence_total, 'lfence_after': a.lfence_total,
				'lfence_alternatives_before': b.alt_lfence,
				'lfence_alternatives_after': a.alt_lfence,
			}
	record['inlined_or_absent'] = sorted(sources - {f['function'] for f in functions.values()})
	figures = {
		'total_bytes_delta': total_delta,
		'lfence_before': sum(f['lfence_before'] for f in functions.values()),
		'lfence_after': sum(f['lfence_after'] for f in functions.values()),
		'objects': per_object,
		'functions': functions,
	}
	runner.say(f'bench[code]: {len(objects)} objects, {len(functions)} functions changed: '
		   f'{total_delta:+d} bytes, LFENCE {figures["lfence_before"]} -> {figures["lfence_after"]}')
	figures['tree'] = tree_wide(runner, (request.baseline_tree, request.series_tree),
				    (base_dir, conv_dir))
	record['tree_command'] = ('converter/scoped-uaccess bench --section code: every object '
				  'compiled into build/out/user-{baseline,series} whose '
				  '.altinstructions patch a STAC (X86_FEATURE_SMAP), LFENCEs '
				  'from its .altinstructions and `objdump -d OBJ`')
	return figures


# Objects of the build that are not kernel code of the image, or that
# repeat other objects (vmlinux.o links them all; the bench's own object).
_NOT_KERNEL_CODE = ('vmlinux.o', 'arch/x86/boot/', 'arch/x86/realmode/', 'arch/x86/entry/vdso/',
		    'native_regions/', 'scripts/', 'tools/')


def compiled_objects(build_dir: Path) -> list[str]:
	"""Objects the compiler made (their kbuild .cmd holds a `-c` command), not
	the `ld -r` or archive composites of them."""
	found = []
	for cmd in build_dir.rglob('.*.o.cmd'):
		obj = cmd.parent / cmd.name[1:-4]
		rel = str(obj.relative_to(build_dir))
		if rel.startswith(_NOT_KERNEL_CODE) or rel.endswith('.mod.o') or not obj.is_file():
			continue
		with cmd.open(errors='replace') as f:
			first = f.readline()
		if ' -c ' in first:
			found.append(rel)
	return sorted(found)


@dataclass
class RegionObject:
	"""What the tree-wide count needs of one object."""
	regions: int			# STAC sites: region entries in the code
	lfence: dict[str, int]		# function -> LFENCE sites (own code and alternatives)
	text_bytes: int
	function_bytes: dict[str, int]


def region_object(runner: Runner, path: Path, smap: int) -> Optional[RegionObject]:
	"""The object's regions and LFENCE sites, None when it has no region."""
	obj = elfobj.read_object(path)
	if obj is None:
		return None
	alts = obj.alternatives()
	regions = sum(1 for a in alts if a.feature == smap and a.replacement == elfobj.STAC)
	if not regions:
		return None
	functions = obj.functions()
	lfence: dict[str, int] = {}
	for a in alts:
		if elfobj.LFENCE in a.replacement:
			name = owner_of(functions, a.section, a.offset)
			lfence[name] = lfence.get(name, 0) + a.replacement.count(elfobj.LFENCE)
	disassembly = runner.run(Command(('objdump', '-d', str(path)), mutates=False),
				 Output.CAPTURE, check=False).output
	for name, n in lfence_by_function(disassembly).items():
		if n:
			lfence[name] = lfence.get(name, 0) + n
	return RegionObject(regions, lfence, obj.text_bytes(),
			    {name: size for name, (_, _, size) in functions.items()})


def tree_wide(runner: Runner, kdirs: tuple[Path, Path], builds: tuple[Path, Path]) -> dict:
	"""LFENCE sites and bytes of every x86_64 object with a user access region,
	baseline against converted; per function where the LFENCE count changes."""
	sides = []
	for kdir, build in zip(kdirs, builds):
		smap = elfobj.cpu_feature((kdir / 'arch/x86/include/asm/cpufeatures.h').read_text(),
					  'SMAP')
		objects = compiled_objects(build)
		runner.say(f'bench[code]: tree-wide: {len(objects)} objects of {_rel(build)}')
		found = {}
		for rel in objects:
			if (r := region_object(runner, build / rel, smap)) is not None:
				found[rel] = r
		sides.append(found)
	before, after = sides
	union = sorted(before.keys() | after.keys())
	# Code bytes compare the objects both builds compile (the series adds
	# its KUnit suite), also where one side has no region left.
	common = [rel for rel in union if all((b / rel).is_file() for b in builds)]
	text = [{rel: side[rel].text_bytes if rel in side
		 else elfobj.read_object(build / rel).text_bytes() for rel in common}
		for side, build in zip(sides, builds)]

	def total(side: dict[str, RegionObject], what: str) -> int:
		return sum(getattr(r, what) if what != 'lfence' else sum(r.lfence.values())
			   for r in side.values())
	functions = {}
	for rel in union:
		b, a = before.get(rel), after.get(rel)
		lb, la = (b.lfence if b else {}), (a.lfence if a else {})
		for name in sorted(lb.keys() | la.keys()):
			if lb.get(name, 0) != la.get(name, 0):
				functions[f'{rel}:{name}'] = {
					'object': rel, 'function': name,
					'lfence_before': lb.get(name, 0), 'lfence_after': la.get(name, 0),
					'bytes_before': b.function_bytes.get(name) if b else None,
					'bytes_after': a.function_bytes.get(name) if a else None}
	figures = {
		'objects_before': len(before), 'objects_after': len(after),
		'regions_before': total(before, 'regions'), 'regions_after': total(after, 'regions'),
		'lfence_before': total(before, 'lfence'), 'lfence_after': total(after, 'lfence'),
		'lfence_bytes_before': elfobj.LFENCE_BYTES * total(before, 'lfence'),
		'lfence_bytes_after': elfobj.LFENCE_BYTES * total(after, 'lfence'),
		'text_bytes_before': sum(text[0].values()), 'text_bytes_after': sum(text[1].values()),
		'text_bytes_objects': len(common),
		'objects_one_side': sorted(set(union) - set(common)),
		'lfence_functions': functions,
		'objects': {rel: {'regions_before': before[rel].regions if rel in before else 0,
				  'regions_after': after[rel].regions if rel in after else 0,
				  'lfence_before': sum(before[rel].lfence.values()) if rel in before else 0,
				  'lfence_after': sum(after[rel].lfence.values()) if rel in after else 0}
			    for rel in union},
	}
	runner.say(f'bench[code]: tree-wide: {len(union)} objects with a region, LFENCE '
		   f'{figures["lfence_before"]} -> {figures["lfence_after"]}, text bytes '
		   f'{figures["text_bytes_before"]} -> {figures["text_bytes_after"]}')
	return figures
