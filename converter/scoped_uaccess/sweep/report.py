# SPDX-License-Identifier: GPL-2.0
"""The fault sweep's report: reports/linux-<version>/faultsweep.json and .md.

Rendered from the consoles of a sweep (records, `# sweep-region` and
`# sweep-count` lines) and the converter's table of the tree's open-coded
regions (conversion.json): one entry per path and arch with its
positions, its differences and the regions it reaches; every region of
the tree with the paths that reach it, or why none can.  Nothing in it
depends on the machine, the time or a commit, so a rerun on the same
series gives the same files.
"""

import json
from dataclasses import dataclass
from typing import Optional

from scoped_uaccess.sweep.records import Difference, SweepConsole

COMMAND = 'make faultsweep-install'
# Regions the core series converts by hand (patches 0009 and 0010): not in
# conversion.json, which lists what the converter found after them.
SEED_REGIONS = (
	('arch/x86/include/asm/futex.h', 'arch_futex_atomic_op_inuser', 'x86/futex'),
	('arch/x86/include/asm/futex.h', 'futex_atomic_cmpxchg_inatomic', 'x86/futex'),
	('fs/select.c', 'get_sigset_argpack', 'select'),
	('fs/select.c', 'get_compat_sigset_argpack', 'select'),
)
# Why no path reaches a region, by file or file:function (the longer key wins).
UNREACHED = {
	'drivers/gpu/drm/i915/': 'no i915 device in QEMU',
	'arch/x86/kvm/x86.c': 'KVM steal time: needs a KVM host in the guest running a vCPU; '
			      'no nested virtualisation under TCG',
	'arch/x86/lib/csum-wrappers_64.c': 'copies that checksum in software (raw ICMP, UDP '
					   'without offload): the sweep kernels have no CONFIG_INET',
	'arch/powerpc/lib/checksum_wrappers.c': 'copies that checksum in software: the sweep '
						'kernels have no CONFIG_INET',
	'arch/x86/lib/usercopy_64.c': 'copy_user_flushcache(): pmem/DAX writes, no persistent '
				      'memory device',
	'arch/x86/lib/usercopy_32.c': '32-bit x86 kernels only',
	'arch/x86/include/asm/checksum_32.h': '32-bit x86 kernels only',
	'arch/x86/kernel/vm86_32.c': '32-bit x86 kernels only',
	'fs/readdir.c:fillonedir': '32-bit kernels only: x86_64 and ppc64 have no readdir syscall',
	'arch/x86/kernel/signal_64.c:x32_setup_rt_frame': 'x32 ABI: the kernel has no X86_X32_ABI',
	'arch/powerpc/kernel/signal_32.c': '32-bit tasks on ppc64: there is no little-endian '
					   '32-bit powerpc userland (it needs a big-endian kernel '
					   'with COMPAT)',
	'arch/powerpc/kernel/signal_32.c:do_setcontext_tm': 'transactional memory, which TCG '
							    'does not run, in a 32-bit task',
	'arch/powerpc/kernel/ptrace/ptrace-view.c': 'gpr32_set_common_user(): a 32-bit tracee',
	'arch/powerpc/kernel/align.c': 'emulate_spe(): SPE, 32-bit Book-E only',
	'arch/powerpc/lib/sstep.c': 'instruction emulation (alignment interrupts, kprobes): '
				    'not swept',
	'lib/strnlen_user.c': 'execve() argument strings: an exec per position, not swept',
	'arch/x86/include/asm/uaccess.h': 'the definition of user_access_begin(), not a region',
	'arch/arm64/include/asm/uaccess.h': 'the definition of user_access_begin(), not a region',
}


@dataclass(frozen=True)
class TreeRegion:
	"""A region of the tree as the sweep report lists it: converted (by the
	series) or still open-coded, whichever paths reach it."""
	file: str
	function: str
	status: str		# converted (by the series) or open-coded
	patch: str = ''

	@property
	def name(self) -> str:
		"""file:function, as the sweep's `# sweep-region` lines name it (a
		syscall by its symbol: sys_waitid, compat_sys_waitid)."""
		return f'{self.file}:{self.function}'


def tree_regions(conversion: Optional[dict]) -> list[TreeRegion]:
	"""The seed conversions, then every region conversion.json lists, once each."""
	regions = {(f, fn): TreeRegion(f, fn, 'converted', f'core series ({what})')
		   for f, fn, what in SEED_REGIONS}
	for r in (conversion or {}).get('regions', []):
		key = (r['file'], r['function'])
		if key in regions and regions[key].status == 'converted':
			continue
		converted = r.get('status') == 'converted'
		regions[key] = TreeRegion(r['file'], r['function'],
					  'converted' if converted else 'open-coded',
					  r.get('patch', '') if converted else '')
	return sorted(regions.values(), key=lambda r: (r.status != 'converted', r.file, r.function))


def why_unreached(region: TreeRegion) -> str:
	keys = [k for k in UNREACHED if region.name == k or
		(':' not in k and region.file.startswith(k))]
	if not keys:
		return 'no path reaches it, and no reason is recorded'
	return UNREACHED[max(keys, key=len)]


def path_entries(consoles: dict[str, SweepConsole], diffs: list[Difference],
		 as_hole: list[tuple[str, str, str]]) -> list[dict]:
	"""One entry per path and arch, from the converted kernels' consoles
	(arch -> console), in the program's order."""
	entries = []
	for arch, console in consoles.items():
		for path, a in console.paths(arch):
			mine = [str(d) for d in diffs if d.path == path and d.arch == a]
			entry: dict = {'path': path, 'arch': a}
			if (path, a) in console.skips:
				entry.update(positions=0, skipped=console.skips[(path, a)])
			else:
				count = console.counts.get((path, a))
				entry['positions'] = count.positions if count else len(console.records_of(path, a))
			entry.update(differences=len(mine),
				     as_hole=[k[2] for k in as_hole if k[:2] == (path, a)],
				     regions=list(console.regions.get((path, a), ())),
				     details=mine)
			entries.append(entry)
	return entries


def report_data(version: str, kernels: tuple[str, str], targets: list[dict],
		consoles: dict[str, SweepConsole], diffs: list[Difference],
		as_hole: list[tuple[str, str, str]], conversion: Optional[dict],
		command: str = COMMAND) -> dict:
	"""The content of faultsweep.json.  targets: per target its name,
	archs, configuration, whether KUAP is required and was on, problems."""
	paths = path_entries(consoles, diffs, as_hole)
	reached: dict[str, list[str]] = {}
	for e in paths:
		for name in e['regions']:
			reached.setdefault(name, []).append(f'{e["path"]} ({e["arch"]})')
	regions = []
	for r in tree_regions(conversion):
		entry = {'file': r.file, 'function': r.function, 'status': r.status}
		if r.patch:
			entry['patch'] = r.patch
		entry['reached_by'] = reached.get(r.name, [])
		if not entry['reached_by']:
			entry['unreached'] = why_unreached(r)
		regions.append(entry)
	return {
		'version': version,
		'kernels': dict(zip(('baseline', 'converted'), kernels)),
		'command': command,
		'targets': targets,
		'paths': paths,
		'regions': regions,
	}


def _positions(e: Optional[dict]) -> str:
	if e is None:
		return ''
	return f'skip: {e["skipped"]}' if 'skipped' in e else str(e['positions'])


def _regions(entries: list[dict]) -> str:
	"""The regions of one path, archs with the same list grouped."""
	groups: dict[tuple[str, ...], list[str]] = {}
	for e in entries:
		if 'skipped' not in e:
			groups.setdefault(tuple(e['regions']), []).append(e['arch'])
	if len(groups) == 1:
		(regions,) = groups
		return ', '.join(f'`{r}`' for r in regions) or 'none (copy_{from,to}_user())'
	return '; '.join(f'{"/".join(archs)}: ' + (', '.join(f'`{r}`' for r in regions) or 'none')
			 for regions, archs in groups.items())


def _span(positions: list[str]) -> str:
	"""The smallest and the largest of top positions."""
	ns = sorted(int(p.split(':')[1]) for p in positions)
	return f'top:{ns[0]}' if len(ns) == 1 else f'top:{ns[0]} to top:{ns[-1]}'


def render_markdown(data: dict) -> str:
	archs = list(dict.fromkeys(e['arch'] for e in data['paths']))
	by_path: dict[str, dict[str, dict]] = {}
	for e in data['paths']:
		by_path.setdefault(e['path'], {})[e['arch']] = e
	out = [f'# Fault sweep: Linux {data["version"]}', '',
	       f'Generated by `{data["command"]}` (testcases/faultsweep/README.md): every '
	       'path of `testcases/faultsweep/faultsweep.c` walks a page boundary through its '
	       'user object, on the baseline kernel and on the converted kernel of one '
	       'configuration, and the records are compared field by field.', '',
	       f'- baseline: {data["kernels"]["baseline"]}',
	       f'- converted: {data["kernels"]["converted"]}', '',
	       '| target | binaries | configuration | KUAP | records | differences | problems |',
	       '|---|---|---|---|---|---|---|']
	for t in data['targets']:
		kuap = ('on' if t['kuap_on'] else 'NOT ON') if t['kuap'] else '-'
		records = ', '.join(f'{a} {n}' for a, n in t['records'].items())
		out.append(f'| {t["target"]} | {", ".join(t["archs"])} | `{t["config"]}` | {kuap} | '
			   f'{records} | {t["differences"]} | {len(t["problems"]) or "none"} |')
	out += ['', '## Positions per path', '',
		'Positions per path and arch (hole walk + top walk + bad pointers); the regions '
		'are the user access regions whose accessors the walk makes fault.', '',
		f'| path | {" | ".join(archs)} | differences | regions |',
		f'|---|{"---|" * len(archs)}---|---|']
	for path, entries in by_path.items():
		cells = ' | '.join(_positions(entries.get(a)) for a in archs)
		ndiff = sum(e['differences'] for e in entries.values())
		out.append(f'| {path} | {cells} | {ndiff} | {_regions(list(entries.values()))} |')
	totals = ' | '.join(str(sum(e['positions'] for e in data['paths'] if e['arch'] == a))
			    for a in archs)
	out.append(f'| total | {totals} | {sum(e["differences"] for e in data["paths"])} | |')
	details = [d for e in data['paths'] for d in e['details']]
	out += ['', '## Differences', '']
	out += [f'    {d}' for d in details] if details else ['None.']
	holes = [e for e in data['paths'] if e.get('as_hole')]
	out += ['', '## The top of user space under masking', '']
	if holes:
		out += ['Where the kernel masks user pointers, a scope does not check the range '
			'of the object: one that starts below the top of user space and runs past '
			'it is no longer refused before the first access, the accesses below the top '
			'are made and the first one past it faults on the guard page.  At these top '
			'positions the converted kernel differs from the baseline and gives, field '
			'for field, the baseline\'s record of the hole walk at the same position: the '
			'call does what it does for an object that runs into any unmapped page (the '
			'records compared, not described, by `sweep_records.top_as_hole()`).  x86\'s '
			'access_ok() checks only the start for a constant size up to a page, so only '
			'regions with a run-time size show it; the changelogs of their patches say so.', '',
			'| path | arch | positions | from, to |', '|---|---|---|---|']
		out += [f'| {e["path"]} | {e["arch"]} | {len(e["as_hole"])} | {_span(e["as_hole"])} |'
			for e in holes]
	else:
		out.append('None: every top position gives the baseline\'s record.')
	out += ['', '## Regions of the tree and the paths that reach them', '',
		'The regions the series converts (by hand in the core series, or generated), '
		'then the open-coded ones the converter lists; a region is named by file and '
		'function, so a function with two regions counts as reached when one is.', '',
		'| region | status | reached by |', '|---|---|---|']
	for r in data['regions']:
		status = f'converted ({r["patch"]})' if r['status'] == 'converted' else r['status']
		reach = ', '.join(r['reached_by']) or f'not reachable: {r["unreached"]}'
		out.append(f'| `{r["file"]}:{r["function"]}` | {status} | {reach} |')
	return '\n'.join(out) + '\n'


def render_json(data: dict) -> str:
	return json.dumps(data, indent=1) + '\n'
