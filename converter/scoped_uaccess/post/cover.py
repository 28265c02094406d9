# SPDX-License-Identifier: GPL-2.0
"""Cover letters written from the facts they state.

Each figure comes from a file a command wrote: the conversion census
(reports/linux-<version>/conversion.json), the fault sweep
(faultsweep.json), the checker's report of the pristine tree
(pristine/findings.json, triage.json), the benchmarks
(reports/bench/bench.json), the patches themselves (their subjects,
files, KUnit cases, Fixes: tags) and the checkpatch run of the series
being written.  Where a file is missing the letter says what was not
run instead of a number.  How the series was made is said once, here,
not in the patches.
"""

import json
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from scoped_uaccess.convert.changelog import names, variant_words
from scoped_uaccess.core import paths
from scoped_uaccess.kernel import builders, treefacts


# Why checkpatch says what it says of these series, where it is not a
# fault of the patch.
CHECKPATCH_WHY = {
	'UNKNOWN_COMMIT_ID': 'the Fixes: commits are mainline\'s, and the tree checkpatch ran in '
			     'is an import without mainline\'s history',
	'FILE_PATH_CHANGES': 'the new file is under scripts/coccinelle/, which the COCCINELLE '
			     'entry of MAINTAINERS covers',
	'MACRO_ARG_REUSE': 'the scope macros evaluate their pointer argument more than once, as '
			   'the kernel\'s own accessors do',
}


def _json(path: Path) -> Optional[dict]:
	try:
		return json.loads(path.read_text())
	except (OSError, ValueError):
		return None


def _para(text: str) -> str:
	return textwrap.fill(' '.join(text.split()), width=72, break_on_hyphens=False,
			     break_long_words=False)


@dataclass
class TreeFacts:
	"""What the reports of one tree version say."""
	version: str
	kdir: Path
	conversion: dict = field(default_factory=dict)
	sweep: dict = field(default_factory=dict)
	findings: list = field(default_factory=list)
	triage: dict = field(default_factory=dict)
	bench: dict = field(default_factory=dict)
	masking: tuple = ()

	@classmethod
	def read(cls, kdir: Path, version: str) -> 'TreeFacts':
		reports = paths.REPORTS / f'linux-{version}'
		found = _json(reports / 'pristine' / 'findings.json') or {}
		return cls(version, kdir, _json(reports / 'conversion.json') or {},
			   _json(reports / 'faultsweep.json') or {},
			   found.get('findings', []) if isinstance(found, dict) else found,
			   _json(reports / 'triage.json') or {},
			   _json(paths.REPORTS / 'bench' / 'bench.json') or {},
			   treefacts.masking_variants(kdir))

	def regions(self, patch_names: set[str]) -> list[dict]:
		"""The census entries the named patches convert."""
		return [r for r in self.conversion.get('regions', []) if r.get('patch', '') in patch_names]


def _subject(path: Path) -> str:
	head = path.read_text(errors='replace').split('\n\n', 1)[0]
	m = re.search(r'^Subject: \[PATCH[^\]]*\] (.*(?:\n .*)*)', head, re.M)
	return ' '.join(m.group(1).split()) if m else path.name


def _files(path: Path) -> list[str]:
	return re.findall(r'^\+\+\+ b/(\S+)', path.read_text(errors='replace'), re.M)


def fill(cover: Path, posted, everything, facts: TreeFacts, sender: str) -> None:
	"""The subject and blurb of a format-patch cover letter."""
	kind = posted.planned.kind
	title, paragraphs = {
		'checker': _checker, 'kunit': _kunit, 'conversions': _conversions, 'fixes': _fixes,
	}[kind](posted, everything, facts)
	paragraphs.append(_base(facts, posted))
	e, w, c = posted.checkpatch
	kinds = {k: posted.checkpatch_kinds.count(k) for k in dict.fromkeys(posted.checkpatch_kinds)}
	why = '; '.join(f'{k}' + (f' ({n})' if n > 1 else '') + (f': {CHECKPATCH_WHY[k]}'
								 if k in CHECKPATCH_WHY else '')
			for k, n in kinds.items())
	paragraphs.append(f'checkpatch.pl --strict on these patches: {e} errors, {w} warnings, '
			  f'{c} checks' + (f' ({why})' if why else '') + '.')
	text = cover.read_text()
	text = text.replace('*** SUBJECT HERE ***', title)
	text = text.replace('*** BLURB HERE ***', '\n\n'.join(_para(p) if not p.startswith('  ')
								 else p for p in paragraphs))
	cover.write_text(text)


def _base(facts: TreeFacts, posted) -> str:
	return (f'The patches apply to Linux {facts.version} as Debian packages it (linux-source-'
		f'{".".join(facts.version.split(".")[:2])}); the base-commit below is the import of '
		'that tree, not a commit of a public repository.')


def _made() -> str:
	return ('The conversions were generated with a Coccinelle semantic patch and a driver '
		'that checks each result (the scoped-uaccess project), then read one by one; the '
		'changelogs are written from what each diff does and from the tree.')


def _checker(posted, everything, facts: TreeFacts) -> tuple[str, list[str]]:
	text = posted.patches[1].read_text(errors='replace')
	classes = re.findall(r'^\+///\s+\[([\w-]+)\]', text, re.M)
	scripts = [f for f in _files(posted.patches[1]) if f.endswith('.cocci')]
	errors = sum(1 for f in facts.findings if f.get('severity') == 'ERROR')
	warnings = sum(1 for f in facts.findings if f.get('severity') == 'WARNING')
	ids = {f.get('id') for f in facts.findings}
	real = sum(1 for k, v in facts.triage.items() if k in ids and isinstance(v, dict)
		   and v.get('verdict') == 'real-bug')
	fixes = next((p for p in everything if p.planned.kind == 'fixes'), None)
	paragraphs = [
		f'User access regions are still open-coded in places: a begin, unsafe accessors, and '
		f'an end that must come on every way out.  {names(scripts)} '
		f'{"checks" if len(scripts) == 1 else "check"} them, and the scopes, for '
		f'{len(classes) or "several"} kinds of mistake'
		+ (f' ({", ".join(classes)})' if classes else '') + '.',
		f'On Linux {facts.version} as Debian ships it, `make coccicheck MODE=report` with '
		f'{"it" if len(scripts) == 1 else "them"} reports {errors} errors and {warnings} '
		f'warnings; {real} of them {"is a real bug" if real == 1 else "are real bugs"} by the '
		'triage that comes with the project (each verdict with its argument).'
		if facts.findings else 'No report of the pristine tree was made with this version.',
	]
	if fixes:
		paragraphs.append('The fixes for what it found are a series of their own: '
				  + '; '.join(_subject(p) for p in fixes.patches[1:]) + '.')
	tools = facts.bench.get('tools', {}) if isinstance(facts.bench, dict) else {}
	ratio = tools.get('coccicheck_over_floor')
	if isinstance(ratio, (int, float)):
		paragraphs.append(f'Over a whole tree it costs {ratio:.2f} times a trivial rule under '
				  'the same coccicheck run (measured with the project\'s `make bench`).')
	return 'coccinelle: Add checks for user access regions and scopes', paragraphs


def _kunit(posted, everything, facts: TreeFacts) -> tuple[str, list[str]]:
	text = posted.patches[1].read_text(errors='replace')
	cases = len(re.findall(r'^\+\s*KUNIT_CASE\(', text, re.M))
	skips = sorted(set(re.findall(r'kunit_skip\(test, "([^"]+)"', text)))
	paragraphs = [
		'Nothing in the tree tests the scoped user access macros themselves: that each way '
		'out of a scope (falling off its end, break, continue, return, goto, a fault) ends '
		'the region, that the pointer inside is the checked or masked one, and that bad '
		f'pointers fault.  This adds a KUnit suite of {cases} cases on user memory from '
		'kunit_vm_mmap().',
		'Cases that a platform cannot show skip with the reason'
		+ (': ' + '; '.join(skips) if skips else '') + '.',
	]
	matrix = paths.REPORTS / f'linux-{facts.version}' / 'kunit-matrix.md'
	if matrix.is_file():
		rows = re.findall(r'^\| (\w+) \| `qemu-system-\w+` \|[^|]*\|[^|]*\| (\d+/\d+/\d+) \|',
				  matrix.read_text(), re.M)
		if rows:
			paragraphs.append('Run under kunit.py\'s QEMU configurations of this tree (pass/'
					  'skip/fail): ' + ', '.join(f'{a} {r}' for a, r in rows) + '.')
	return 'uaccess: Add KUnit tests for scoped user access', paragraphs


def _conversions(posted, everything, facts: TreeFacts) -> tuple[str, list[str]]:
	patches = posted.patches[1:]
	names_ = {p.name for p in posted.planned.patches}
	regions = facts.regions(names_)
	files = sorted({f for p in patches for f in _files(p)})
	tree = builders.Tree(facts.kdir)
	b = {f: builders.builders(facts.kdir, f, tree) for f in files}
	masked = [v for v in facts.masking if any(x.builds(*v) for x in b.values())]
	fns = sorted({r['function'] for r in regions})
	where = names(variant_words(v) for v in masked)
	paragraphs = [
		f'{len(regions)} open-coded user access regions are left in {names(files)}.  Each '
		'has to end the region on every way out, fault labels included.  These patches '
		'convert them to scoped_user_*_access() blocks, which end the region wherever the '
		f'block is left' + (f', and on {where}, where user pointers are masked in this tree, '
				    'mask the pointer instead of checking it: the access_ok() compare '
				    'and the speculation barrier after it go.' if masked else '.'),
	]
	lines = []
	for p in patches:
		pr = [r for r in regions if r.get('patch') == _original(p, posted)]
		kept = [r for r in pr if 'range-check' in r.get('transformations', [])]
		gain = (f'{len(pr)} region{"s" if len(pr) != 1 else ""}'
			+ (f', access_ok() kept in front of {len(kept)}' if kept else ''))
		lines.append(f'  {_subject(p)}\n    {gain}')
	paragraphs.append('\n'.join(lines))
	everywhere = any(x.everywhere for x in b.values())
	arches = {a for x in b.values() for a, _ in x.variants} | ({'x86', 'powerpc'} if everywhere
								   else set())
	paragraphs.append(_tested(facts, fns, regions, arches))
	built = _built(facts, files)
	if built:
		paragraphs.append(built)
	cost = _cost(facts, masked)
	if cost:
		paragraphs.append(cost)
	left = [r for r in facts.conversion.get('regions', []) if r.get('file') in files
		and r.get('status') == 'skipped']
	if left:
		paragraphs.append('Left open-coded in these files: ' + '; '.join(
			f'{r["function"]}() ({r.get("why") or r.get("reason")})' for r in left) + '.')
	paragraphs.append(_made())
	prefix = _common_prefix([_subject(p) for p in patches])
	return f'{prefix}: Convert user access regions to scopes', paragraphs


def _original(posted_patch: Path, posted) -> str:
	"""The committed patch a posted one was made from (same subject)."""
	subject = _subject(posted_patch)
	return next((p.name for p in posted.planned.patches if _subject(p) == subject), '')


def _common_prefix(subjects: list[str]) -> str:
	prefixes = [s.split(': ', 1)[0] for s in subjects if ': ' in s]
	roots = list(dict.fromkeys(p.split('/')[0] for p in prefixes))
	if len(roots) == 1:
		return roots[0] if roots[0] != 'drm' else '/'.join(prefixes[0].split('/')[:2])
	return 'uaccess'


# The fault sweep's record architectures: the kernel they run on.
SWEEP_ARCHS = {'x86_64': ('x86', 64), 'i386': ('x86', 64), 'ppc64le': ('powerpc', 64)}


def _tested(facts: TreeFacts, fns: list[str], regions: list[dict], arches: set[str]) -> str:
	sweep = facts.sweep
	if not sweep:
		return 'The fault sweep was not run on this tree.'
	# the runs on kernels of an architecture that builds these files
	targets = [t for t in sweep.get('targets', []) if any(
		SWEEP_ARCHS.get(a, ('', None))[0] in arches for a in t.get('archs', []))]
	records = sum(n for t in targets for a, n in t.get('records', {}).items()
		      if SWEEP_ARCHS.get(a, ('', None))[0] in arches)
	differences = sum(t.get('differences', 0) for t in targets)
	archs = names(a for t in targets for a in t.get('archs', [])
		      if SWEEP_ARCHS.get(a, ('', None))[0] in arches)
	if not targets:
		return 'The fault sweep runs no kernel of an architecture that builds these files.'

	seen = {(r['file'], r['function']): r for r in sweep.get('regions', [])}
	mine = [seen.get((r['file'], r['function'])) for r in regions]
	reached = sorted({m['function'] for m in mine if m and m.get('reached_by')})
	unreached = [m for m in mine if m and not m.get('reached_by')]
	text = (f'Tested in QEMU: a fault sweep makes every access of the reachable regions fault '
		f'in turn, and compares {records} records of return values, errnos and bytes '
		f'written between the kernel with and without the series on {archs}: '
		f'{differences} differences.  It reached {len(reached)} of these {len(fns)} '
		'functions')
	why = {}
	for m in unreached:
		why.setdefault(m.get('unreached', 'no test reaches it'), []).append(m['function'] + '()')
	if why:
		text += '; not reached: ' + '; '.join(f'{names(v)} ({k})' for k, v in why.items())
	return text + '.'


# The builds gate's details (gates/fixes.py report()): one line per
# architecture, `PASS x86_64: fs/readdir.o kernel/exit.o ...`.
_BUILT = re.compile(r'^(PASS|FAIL) (\S+): (.*?)( \(without sparse.*)?$', re.M)


def _built(facts: TreeFacts, files: list[str]) -> str:
	"""Where make test's builds gate compiled these files, from its
	details file (build/results/conversions-<series>.txt); '' when that
	gate has not run here."""
	series = '.'.join(facts.version.split('.')[:2])
	details = paths.RESULTS / f'conversions-{series}.txt'
	if not details.is_file():
		return ''
	objects = {f[:-2] + '.o' for f in files if f.endswith('.c')}
	headers = [f for f in files if f.endswith('.h')]
	where, failed = [], []
	for verdict, arch, objs, _ in _BUILT.findall(details.read_text(errors='replace')):
		if objects & set(objs.split()) or (headers and objs):
			(where if verdict == 'PASS' else failed).append(arch)
	if not where and not failed:
		return ''
	text = (f'Built with gcc for {names(where)} with no warning the unpatched tree does not '
		'give' if where else '')
	if failed:
		text += ('; ' if text else '') + f'the build failed or warned for {names(failed)}'
	return text + '.'


def _cost(facts: TreeFacts, masked: list) -> str:
	native = facts.bench.get('native', {}) if isinstance(facts.bench, dict) else {}
	saved = native.get('saved_cycles_per_region', {})
	# {'read_1': {'median': 13.93, 'min': 13.78}, ...}: the median per access
	values = [v['median'] for v in (saved.values() if isinstance(saved, dict) else [])
		  if isinstance(v, dict) and isinstance(v.get('median'), (int, float))]
	if not values or not any(v[0] == 'x86' for v in masked):
		return ('The cost was measured on x86-64 only; there is no measurement on powerpc '
			'hardware here.' if masked else '')
	cpu = facts.bench.get('host', {}).get('cpu', '') if isinstance(facts.bench, dict) else ''
	return (f'On the x86-64 CPU the project measured ({cpu + ", " if cpu else ""}its `make '
		f'bench`), entering a masked region took {min(values):.1f} to {max(values):.1f} TSC '
		'cycles less than entering a checked one (the LFENCE), the median per region '
		'entered'
		+ ('; powerpc was not measured.' if any(v[0] == 'powerpc' for v in masked) else '.'))


def _fixes(posted, everything, facts: TreeFacts) -> tuple[str, list[str]]:
	paragraphs = []
	for p in posted.patches[1:]:
		text = p.read_text(errors='replace')
		fixes = re.findall(r'^Fixes: (.*)$', text, re.M)
		stable = re.findall(r'^Cc: stable@vger\.kernel\.org(.*)$', text, re.M)
		paragraphs.append(f'{_subject(p)}: ' + (f'fixes {fixes[0]}' if fixes else
							   'a cleanup, no bug') +
				  (f', for stable{stable[0].strip() and " " + stable[0].strip()}'
				   if stable else '') + '.')
	report = paths.REPORTS / f'linux-{facts.version}' / 'fixes.md'
	if report.is_file():
		paragraphs.append('Each fix was booted in QEMU with a test that takes the path it '
				  'changes, on the pristine and the fixed kernel; the results are in the '
				  f'project\'s reports/linux-{facts.version}/fixes.md.')
	return 'uaccess: Fixes for user access regions found by the checker', paragraphs
