# SPDX-License-Identifier: GPL-2.0
"""The fault sweep's mutation check: inject a bug into one converted region, see who reports it.

The region is waitid()'s siginfo write region in kernel/exit.c (scoped by
the series), which the sweep's `waitid.infop` path walks on x86_64 and
ppc64le.  Each mutation edits the converted worktree, rebuilds both
targets' converted kernels incrementally, boots them with the sweep and
compares the records with the unmutated kernel's; the build log is
searched for objtool's UACCESS warnings and the checker is run on the
mutated file.  What each detector should say is data (Mutation.expect):
the check fails when a mutation goes unreported where it should be
reported, or is reported where the hardware cannot tell.

The worktree is restored, and the kernels rebuilt unmutated, whatever
happens.
"""

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Optional

from scoped_uaccess.checker import check
from scoped_uaccess.cocci import index_cache
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.core.outcome import Outcome, relative, written
from scoped_uaccess.sweep import faultsweep
from scoped_uaccess.kernel import kbuild
from scoped_uaccess.kernel.qemu import ACCELERATORS, choose_accelerator
from scoped_uaccess.sweep import guest, records as sweep_records

FILE = 'kernel/exit.c'
# The native waitid's scope, up to its fault label's return.
_REGION = re.compile(
	r'(?P<head>SYSCALL_DEFINE5\(waitid,.*?\n)(?P<indent>\t)scoped_user_write_access\(infop, Efault\) \{\n'
	r'(?P<body>(?:\t\t[^\n]*\n)+)\t\}\n\treturn err;\nEfault:\n\treturn -EFAULT;\n', re.S)
SIGNO = '\t\tunsafe_put_user(signo, &infop->si_signo, Efault);\n'
ERRNO = '\t\tunsafe_put_user(0, &infop->si_errno, Efault);\n'
RESULTS = paths.RESULTS / 'faultsweep-mutation'


def results_dir(sweep: faultsweep.FaultsweepRequest) -> Path:
	"""RESULTS, or faultsweep-mutation-7.3 for build/linux-7.3."""
	return paths.of_tree(RESULTS, sweep.tree)


def _open_coded(end: str) -> Callable[[str], str]:
	"""The scope written out as the region it replaced, the fault path ending with end."""
	def edit(m: re.Match) -> str:
		body = ''.join(line[1:] + '\n' for line in m.group('body').splitlines())
		fault = f'\t{end}\n' if end else ''
		return (f'{m.group("head")}\tif (!user_write_access_begin(infop, sizeof(*infop)))\n'
			f'\t\treturn -EFAULT;\n{body}\tuser_write_access_end();\n\treturn err;\n'
			f'Efault:\n{fault}\treturn -EFAULT;\n')
	return edit


def _swapped(m: re.Match) -> str:
	body = m.group('body')
	if SIGNO + ERRNO not in body:
		raise EnvironmentProblem(f'{FILE}: waitid() no longer writes si_signo then si_errno',
					 'update sweep/mutation.py to the converted code')
	return m.group(0).replace(SIGNO + ERRNO, ERRNO + SIGNO)


def _read_mode(m: re.Match) -> str:
	return m.group(0).replace('scoped_user_write_access(infop', 'scoped_user_read_access(infop')


@dataclass(frozen=True)
class Mutation:
	name: str
	what: str
	edit: Callable[[re.Match], str]
	# detector -> why it reports the mutation; a detector not named must not.
	expect: dict[str, str]


MUTATIONS_LIST = (
	Mutation('swap-accessors', 'si_errno written before si_signo (a partial-write change)',
		 _swapped, {'x86_64': 'records: what is written before the fault',
			    'ppc64le': 'records: what is written before the fault'}),
	Mutation('wrong-mode', 'a read scope around the writes',
		 _read_mode, {'ppc64le': 'KUAP blocks the writes ("Bug: Write fault blocked by '
				'KUAP!") and they fail', 'checker': 'accessor-mode'}),
	Mutation('missing-end', 'open-coded, no user_write_access_end() on the fault path',
		 _open_coded(''), {'ppc64le': 'PPC_KUAP_DEBUG warns at syscall exit, the AMR '
				   'still open', 'objtool': 'return with UACCESS enabled',
				   'checker': 'missing-end'}),
	Mutation('wrong-end', 'open-coded, user_read_access_end() on the fault path',
		 _open_coded('user_read_access_end();'),
		 {'checker': 'mode-mismatch: both ends are the same instructions on x86_64 (clac) '
		  'and on Book3S-64 (prevent_user_access() ignores the direction)'}),
)
MUTATIONS = tuple(m.name for m in MUTATIONS_LIST)


@dataclass(frozen=True)
class MutationRequest:
	sweep: faultsweep.FaultsweepRequest
	mutations: tuple[str, ...] = MUTATIONS
	report_dir: Optional[Path] = None	# also write faultsweep-mutation.txt there


@dataclass
class MutationResult:
	mutation: Mutation
	seen: dict[str, str] = field(default_factory=dict)	# detector -> what it said
	problems: list[str] = field(default_factory=list)	# the check could not run

	def verdicts(self, detectors: tuple[str, ...]) -> list[str]:
		"""What does not match the expectation; empty when all does."""
		bad = []
		for d in detectors:
			if (d in self.mutation.expect) != (d in self.seen):
				bad.append(f'{self.mutation.name}: {d} '
					   + ('did not report it' if d in self.mutation.expect
					      else f'reported it: {self.seen[d]}'))
		return bad + [f'{self.mutation.name}: {p}' for p in self.problems]


def mutate(text: str, mutation: Mutation) -> str:
	m = _REGION.search(text)
	if m is None:
		raise EnvironmentProblem(f'{FILE}: no scoped_user_write_access(infop, Efault) in '
					 'SYSCALL_DEFINE5(waitid)', 'update sweep/mutation.py to '
					 'the converted code')
	new = text[:m.start()] + mutation.edit(m) + text[m.end():]
	if new == text:
		raise EnvironmentProblem(f'mutation {mutation.name} changes nothing in {FILE}')
	return new


def detectors_of(targets: tuple[str, ...]) -> tuple[str, ...]:
	"""The sweep of each target, objtool where it checks UACCESS (x86_64
	only: powerpc has no such check), and the checker."""
	return (*targets, *(('objtool',) if 'x86_64' in targets else ()), 'checker')


def objtool_lines(build_log: str) -> list[str]:
	"""objtool's UACCESS warnings about waitid(): x86_64 runs objtool on
	vmlinux.o, so they name the function, not exit.o."""
	return [line.strip() for line in build_log.splitlines()
		if 'objtool' in line and 'UACCESS' in line and
		('exit.o' in line or 'waitid' in line)]


def checker_classes(runner: Runner, tree: Path, source: Path) -> list[str]:
	"""The classes of the checker's findings in waitid() of the mutated
	file, with the tree's header inlines as `check` would run it."""
	quiet = Runner(dry_run=runner.dry_run, echo=runner.echo, quiet=True)
	result = check.run_check(quiet, check.CheckRequest(
		paths=[source], root=tree, jobs=1, inlines=index_cache.index(quiet, tree)))
	return sorted({f.cls for f in result.findings if f.message.startswith('waitid()')})


def sweep_once(runner: Runner, request: faultsweep.FaultsweepRequest, t: guest.SweepTarget,
	       name: str) -> tuple[str, sweep_records.SweepConsole, float]:
	"""Builds the converted kernel of t (incrementally), boots it; returns
	the build log, the console and the build seconds."""
	_, k = faultsweep.kernels(t, request)
	k = replace(k, build=True)
	log = results_dir(request) / f'{t.name}-{name}-build.log'
	problems, seconds = faultsweep.build_kernel(runner, t, k, request.jobs, log)
	if problems:
		raise EnvironmentProblem(f'{t.name} {name}: {problems[0]}', f'see {relative(log)}')
	initrd = guest.build_initramfs(runner, t)
	accelerator, _ = choose_accelerator(runner, request.accel, k.build_dir / t.image, t.kernel)
	booted = guest.boot(runner, t, k.build_dir / t.image, initrd,
				 results_dir(request) / f'{t.name}-{name}.log', ACCELERATORS[accelerator])
	build_log = '' if runner.dry_run else log.read_text(errors='replace')
	return build_log, booted.console, seconds


def _detect(reference: sweep_records.SweepConsole, console: sweep_records.SweepConsole,
	    t: guest.SweepTarget) -> str:
	"""What the sweep on t says about a mutant, '' when nothing."""
	diffs = sweep_records.compare(reference, console, t.record_archs)
	said = []
	if diffs:
		said.append(f'{len(diffs)} record field(s) differ, first: {diffs[0]}')
	said += console.problems(t.record_archs, t.kuap)[:2]
	return '; '.join(said)


def run_mutations(runner: Runner, request: MutationRequest) -> list[MutationResult]:
	sweep = request.sweep
	if not runner.dry_run:
		results_dir(sweep).mkdir(parents=True, exist_ok=True)
	source = sweep.converted_tree / FILE
	original = source.read_text()
	targets = [guest.target(n) for n in sweep.targets]
	detectors = detectors_of(sweep.targets)
	runner.say(f'mutation: {FILE} waitid(); detectors: {", ".join(detectors)}')
	references = {}
	for t in targets:
		_, references[t.name], _ = sweep_once(runner, sweep, t, 'unmutated')
	checker_before = set(checker_classes(runner, sweep.converted_tree, source))
	results = []
	try:
		for mutation in (m for m in MUTATIONS_LIST if m.name in request.mutations):
			result = MutationResult(mutation)
			results.append(result)
			runner.say(f'mutation {mutation.name}: {mutation.what}')
			if not runner.dry_run:
				source.write_text(mutate(original, mutation))
			for t in targets:
				build_log, console, seconds = sweep_once(runner, sweep, t, mutation.name)
				runner.say(f'mutation {mutation.name}: {t.name} rebuilt in {seconds:.0f} s')
				if said := _detect(references[t.name], console, t):
					result.seen[t.name] = said
				if lines := objtool_lines(build_log):
					result.seen['objtool'] = lines[0]
			if classes := sorted(set(checker_classes(runner, sweep.converted_tree, source)) - checker_before):
				result.seen['checker'] = ', '.join(classes)
			for d in detectors:
				runner.say(f'  {d}: {result.seen.get(d, "-")}')
	finally:
		if not runner.dry_run:
			source.write_text(original)
		for t in targets:
			_, k = faultsweep.kernels(t, sweep)
			runner.say(f'mutation: rebuilding the unmutated {t.name} kernel')
			kbuild.build(runner, faultsweep.kernel_build(t, k), (t.image.split('/')[-1],),
				     sweep.jobs, log=results_dir(sweep) / f'{t.name}-restored-build.log',
				     sink=kbuild.build_progress(runner.say))
	return results


def report(results: list[MutationResult], detectors: tuple[str, ...]) -> str:
	"""build/results/faultsweep-mutation/mutation.txt: a table, then what each said."""
	lines = [f'mutations of {FILE} waitid() (scoped_user_write_access(infop, Efault)):', '',
		 '| mutation | ' + ' | '.join(detectors) + ' | as expected |',
		 '|---|' + '---|' * (len(detectors) + 1)]
	for r in results:
		cells = ' | '.join('reported' if d in r.seen else '-' for d in detectors)
		lines.append(f'| {r.mutation.name} | {cells} | '
			     f'{"yes" if not r.verdicts(detectors) else "NO"} |')
	for r in results:
		lines += ['', f'{r.mutation.name}: {r.mutation.what}']
		lines += [f'  {d}: {r.seen.get(d, "-")}' + (f'   (expected: {r.mutation.expect[d]})'
							    if d in r.mutation.expect else '')
			  for d in detectors]
		lines += [f'  NOT AS EXPECTED: {v}' for v in r.verdicts(detectors)]
	return '\n'.join(lines) + '\n'


def step(runner: Runner, request: MutationRequest) -> Outcome:
	"""`make faultsweep-mutate`: the table in build/results/faultsweep-mutation/."""
	results = run_mutations(runner, request)
	if runner.dry_run:
		return Outcome.ok('dry run')
	detectors = detectors_of(request.sweep.targets)
	text = report(results, detectors)
	print(text, end='', flush=True)
	details = written(results_dir(request.sweep) / 'mutation.txt', text)
	if request.report_dir is not None:
		command = ('converter/scoped-uaccess faultsweep-mutate --install'
			   + (f' --kdir {relative(request.sweep.tree)}'
			      if paths.tree_suffix(request.sweep.tree) else ''))
		runner.say('faultsweep-mutate: wrote ' + written(
			request.report_dir / 'faultsweep-mutation.txt',
			f'Made by `{command}` (testcases/faultsweep/README.md, "Mutation check").\n\n'
			+ text))
	wrong = [v for r in results for v in r.verdicts(detectors)]
	summary = (f'{len(results) - len({v.split(":")[0] for v in wrong})} of {len(results)} '
		   f'mutations reported as expected; details: {details}')
	return Outcome.findings(summary) if wrong else Outcome.ok(summary)
