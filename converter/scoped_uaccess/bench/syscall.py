# SPDX-License-Identifier: GPL-2.0
"""Section syscall: the hot syscalls on the baseline and the converted kernel, boots interleaved."""

import shutil

from scoped_uaccess.kernel import worktree
from scoped_uaccess.bench.common import WORK, BenchRequest, _rel, paired_ratios, spread, _round
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.kernel import tree
from scoped_uaccess.userspace import syscalls

SYSCALLS = ('pselect6', 'futex_wake', 'waitid', 'getdents64')


def syscall_figures(samples: dict[str, dict[str, list[float]]]) -> dict:
	"""samples[kernel][syscall] = ns per call, one per round, rounds paired."""
	figures = {}
	for name in SYSCALLS:
		base = samples.get('baseline', {}).get(name, [])
		conv = samples.get('converted', {}).get(name, [])
		if not base or not conv:
			continue
		ratios = spread(paired_ratios(conv, base))
		figures[name] = {
			'baseline_ns': spread(base), 'converted_ns': spread(conv),
			'ratio': ratios, 'ratio_converted_over_baseline': ratios['median'],
			# The fastest boot of each kernel is the least disturbed
			# by whatever else the host runs.
			'ratio_of_fastest': _round(min(conv) / min(base)) if min(base) else None,
			'rounds': min(len(base), len(conv)),
			'samples': {'baseline': base, 'converted': conv},
		}
	return figures


def prepare_worktrees(runner: Runner, request: BenchRequest) -> str:
	"""Adds the baseline and series worktrees of KDIR when they are missing
	(a fresh clone after `make`), moves the series worktree to KDIR's HEAD;
	returns that commit."""
	head = worktree.head(runner, request.kdir)
	worktree.worktree(runner, request.kdir, request.baseline_tree, tree.BASELINE_TAG)
	worktree.worktree(runner, request.kdir, request.series_tree, head)
	return head


def run_syscalls(runner: Runner, request: BenchRequest, record: dict) -> dict:
	"""Interleaved boots: baseline, converted, baseline, ... ; section 2's data."""
	kernels = (('baseline', request.baseline_tree, 'baseline'),
		   ('converted', request.series_tree, 'series'))
	samples: dict[str, dict[str, list[float]]] = {k: {} for k, _, _ in kernels}
	tsc: dict[str, dict[str, list[float]]] = {k: {} for k, _, _ in kernels}
	record['kernels'] = {}
	record['boots'] = []
	for kernel, checkout, name in kernels:
		where = _rel(checkout)
		record['kernels'][kernel] = {
			'tree': where, 'commit': worktree.head(runner, checkout),
			'build_dir': _rel(paths.OUT / f'user-{name}'),
			'command': (f'converter/scoped-uaccess userspace --kdir {where} '
				    f'--name {name} --no-build --mode bench '
				    f'--iterations {request.syscall_iterations}')}
	for rnd in range(request.rounds):
		for kernel, checkout, name in kernels:
			ur = syscalls.UserspaceRequest(
				kdir=checkout, name=name, mode=syscalls.Mode.BENCH,
				iterations=request.syscall_iterations, accel=request.accel,
				jobs=request.jobs, build=request.build and rnd == 0)
			runner.say(f'bench[syscall]: round {rnd + 1}/{request.rounds}, {kernel}')
			result = syscalls.run_userspace(runner, ur)
			if runner.dry_run:
				continue
			if result.status is not syscalls.RunStatus.PASSED or result.console is None:
				raise EnvironmentProblem(f'{kernel} bench boot: {result.status.value}: '
							 f'{result.message}', f'see {result.log}')
			kept = WORK / f'syscall-{kernel}-{rnd + 1}.log'
			shutil.copyfile(result.log, kept)
			record['boots'].append({'round': rnd + 1, 'kernel': kernel, 'log': _rel(kept),
						'accelerator': result.accelerator.value,
						'boot_seconds': round(result.boot_seconds, 1)})
			record.update(accelerator=result.accelerator.value,
				      accelerator_note=result.accelerator_note)
			for b in result.console.benches:
				samples[kernel].setdefault(b.name, []).append(b.ns_per_call)
				tsc[kernel].setdefault(b.name, []).append(b.tsc_per_call)
	record['iterations'] = request.syscall_iterations
	record['rounds'] = request.rounds
	figures = syscall_figures(samples)
	for name, entry in figures.items():
		base_tsc = tsc['baseline'].get(name, [])
		conv_tsc = tsc['converted'].get(name, [])
		entry['tsc_ratio'] = spread(paired_ratios(conv_tsc, base_tsc))
		r = entry['ratio']
		runner.say(f'bench[syscall]: {name:11} converted/baseline {r["median"]:.3f} '
			   f'(range {r["min"]:.3f}-{r["max"]:.3f}, {entry["rounds"]} rounds)')
	return figures
