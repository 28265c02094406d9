# SPDX-License-Identifier: GPL-2.0
"""Command of the benchmarks: bench."""

import argparse
from pathlib import Path
from typing import Callable

from scoped_uaccess.bench import benchmarks
from scoped_uaccess.bench.common import REPORTS, SECTIONS, WORK, BenchRequest
from scoped_uaccess.cli.kernel import add_accel, add_jobs
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.outcome import Outcome, relative
from scoped_uaccess.kernel.qemu import AccelChoice

# --quick: enough to show every section still runs, nothing to publish.
QUICK = {'iterations': 200, 'repetitions': 3, 'syscall_iterations': 100, 'rounds': 1,
	 'native_rounds': 20, 'native_regions': 10, 'native_warmup': 2}


def cmd_bench(args: argparse.Namespace, runner: Runner) -> Outcome:
	if args.render:
		return Outcome.ok(f'rewrote {relative(benchmarks.render(args.out or REPORTS))}')
	counts = {k: getattr(args, k) for k in QUICK}
	if args.quick:
		counts = {k: v if v is not None else QUICK[k] for k, v in counts.items()}
	defaults = BenchRequest()
	counts = {k: v if v is not None else getattr(defaults, k) for k, v in counts.items()}
	sections = tuple(args.section or SECTIONS)
	if args.quick and not args.section:
		sections = tuple(s for s in SECTIONS if s != 'tools')
	out = args.out or (WORK / 'quick' if args.quick else REPORTS)
	return benchmarks.step(runner, BenchRequest(
		kdir=args.kdir, baseline_tree=args.baseline_tree, series_tree=args.series_tree,
		sections=sections, accel=AccelChoice(args.accel), jobs=args.jobs,
		build=not args.no_build, out=out, **counts))


def add_commands(add: Callable[..., argparse.ArgumentParser]) -> None:
	p = add('bench', cmd_bench, 'benchmarks: region entry on this CPU, cycles per user '
		'access, syscalls baseline against converted, code size and LFENCEs, checker '
		'time; writes reports/bench/')
	p.add_argument('--section', action='append', choices=SECTIONS,
		       help='run only this section (repeatable; default: all)')
	p.add_argument('--iterations', type=int,
		       help=f'accesses per timed loop (default {BenchRequest.iterations})')
	p.add_argument('--repetitions', type=int,
		       help=f'rounds over the access variants (default {BenchRequest.repetitions})')
	p.add_argument('--syscall-iterations', type=int,
		       help=f'calls per syscall per boot (default {BenchRequest.syscall_iterations})')
	p.add_argument('--rounds', type=int,
		       help=f'interleaved boot pairs (default {BenchRequest.rounds})')
	p.add_argument('--native-rounds', type=int,
		       help=f'rounds over the native sequences (default {BenchRequest.native_rounds})')
	p.add_argument('--native-regions', type=int,
		       help=f'regions per timed native call (default {BenchRequest.native_regions})')
	p.add_argument('--native-warmup', type=int,
		       help=f'native rounds not kept (default {BenchRequest.native_warmup})')
	p.add_argument('--quick', action='store_true',
		       help='tiny counts, no tools section, written to build/results/bench/quick')
	p.add_argument('--out', type=Path, help='output directory (default reports/bench)')
	p.add_argument('--render', action='store_true',
		       help='measure nothing: rewrite README.md from the bench.json in --out')
	p.add_argument('--baseline-tree', type=Path, default=paths.BASELINE_TREE,
		       help=f'worktree at tag baseline (default {relative(paths.BASELINE_TREE)})')
	p.add_argument('--series-tree', type=Path, default=paths.BUILD / 'wt-series',
		       help='worktree moved to KDIR\'s HEAD (default build/wt-series)')
	add_accel(p)
	add_jobs(p, 'make and spatch jobs')
	p.add_argument('--no-build', action='store_true', help='boot the kernels already built')
