# SPDX-License-Identifier: GPL-2.0
"""Command line of the benchmarks: bench."""

import argparse
import os
from pathlib import Path
from typing import Callable

from scoped_uaccess.bench import run as bench
from scoped_uaccess.kunit import run as kunit_run
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.gates.runner import Outcome

EXIT_OK = 0
# --quick: enough to show every section still runs, nothing to publish.
QUICK = {'iterations': 200, 'repetitions': 3, 'syscall_iterations': 100, 'rounds': 1}


def cmd_bench(args: argparse.Namespace, runner: Runner) -> Outcome:
	if args.render:
		written = bench.render(args.out or bench.REPORTS)
		return Outcome(EXIT_OK, f'rewrote {written}')
	counts = {k: getattr(args, k) for k in QUICK}
	if args.quick:
		counts = {k: v if v is not None else QUICK[k] for k, v in counts.items()}
	defaults = bench.BenchRequest()
	counts = {k: v if v is not None else getattr(defaults, k) for k, v in counts.items()}
	sections = tuple(args.section or bench.SECTIONS)
	if args.quick and not args.section:
		sections = tuple(s for s in bench.SECTIONS if s != 'tools')
	out = args.out or (bench.WORK / 'quick' if args.quick else bench.REPORTS)
	request = bench.BenchRequest(kdir=args.kdir, baseline_tree=args.baseline_tree,
				     series_tree=args.series_tree, sections=sections,
				     accel=kunit_run.AccelChoice(args.accel), jobs=args.jobs,
				     build=not args.no_build, out=out, **counts)
	data = bench.run_bench(runner, request)
	return Outcome(EXIT_OK, bench.headline(data))


def add_commands(add: Callable[..., argparse.ArgumentParser]) -> None:
	"""Adds `bench` with cli.build_parser()'s add()."""
	p = add('bench', cmd_bench, 'benchmarks: cycles per user access, syscalls baseline '
		'against converted, code size and LFENCEs, checker time; writes reports/bench/')
	p.add_argument('--section', action='append', choices=bench.SECTIONS,
		       help='run only this section (repeatable; default: all)')
	p.add_argument('--iterations', type=int,
		       help=f'accesses per timed loop (default {bench.BenchRequest.iterations})')
	p.add_argument('--repetitions', type=int,
		       help=f'rounds over the access variants (default {bench.BenchRequest.repetitions})')
	p.add_argument('--syscall-iterations', type=int,
		       help=f'calls per syscall per boot (default {bench.BenchRequest.syscall_iterations})')
	p.add_argument('--rounds', type=int,
		       help=f'interleaved boot pairs (default {bench.BenchRequest.rounds})')
	p.add_argument('--quick', action='store_true',
		       help='tiny counts, no tools section, written to build/results/bench/quick')
	p.add_argument('--out', type=Path, help='output directory (default reports/bench)')
	p.add_argument('--render', action='store_true',
		       help='measure nothing: rewrite README.md from the bench.json in --out')
	p.add_argument('--baseline-tree', type=Path, default=paths.BUILD / 'wt-baseline',
		       help='worktree at tag baseline (default build/wt-baseline)')
	p.add_argument('--series-tree', type=Path, default=paths.BUILD / 'wt-series',
		       help='worktree moved to KDIR\'s HEAD (default build/wt-series)')
	p.add_argument('--accel', default='auto', choices=[c.value for c in kunit_run.AccelChoice],
		       help='QEMU accelerator (auto: KVM when usable, else TCG)')
	p.add_argument('--jobs', type=int, default=os.cpu_count() or 1, help='make and spatch jobs')
	p.add_argument('--no-build', action='store_true', help='boot the kernels already built')
