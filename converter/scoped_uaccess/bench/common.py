# SPDX-License-Identifier: GPL-2.0
"""What every benchmark section shares: the request, where results go, statistics."""

import os
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from scoped_uaccess.core import paths
from scoped_uaccess.kernel.qemu import AccelChoice

REPORTS = paths.REPO / 'reports' / 'bench'
WORK = paths.RESULTS / 'bench'
SECTIONS = ('native', 'access', 'syscall', 'code', 'tools')


@dataclass(frozen=True)
class BenchRequest:
	kdir: Path = paths.DEFAULT_KDIR			# the converted tree: its HEAD
	baseline_tree: Path = paths.BASELINE_TREE
	series_tree: Path = paths.BUILD / 'wt-series'	# moved to kdir's HEAD
	iterations: int = 100000	# accesses per timed loop
	repetitions: int = 21		# rounds over all variants, one boot
	syscall_iterations: int = 20000	# calls per syscall per boot
	rounds: int = 15		# boot pairs baseline, converted
	native_rounds: int = 10000	# rounds over the native sequences
	native_regions: int = 200	# regions per timed call of a sequence
	native_warmup: int = 200	# rounds not kept
	sections: tuple[str, ...] = SECTIONS
	accel: AccelChoice = AccelChoice.AUTO
	jobs: int = os.cpu_count() or 1
	build: bool = True
	out: Path = REPORTS

	@property
	def access_build_dir(self) -> Path:
		return paths.OUT / 'bench-series'


def spread(values: Sequence[float]) -> dict:
	"""Median, quartiles and range of a sample; quartiles are inclusive."""
	if not values:
		return {'median': None, 'q1': None, 'q3': None, 'min': None, 'max': None, 'n': 0}
	if len(values) == 1:
		q1 = q3 = values[0]
	else:
		q1, _, q3 = statistics.quantiles(values, n=4, method='inclusive')
	return {'median': _round(statistics.median(values)), 'q1': _round(q1), 'q3': _round(q3),
		'min': _round(min(values)), 'max': _round(max(values)), 'n': len(values)}


def _round(x: float) -> float:
	return round(x, 3 if abs(x) < 10 else 1)


def paired_ratios(numerators: Sequence[float], denominators: Sequence[float]) -> list[float]:
	"""The ratio of each pair measured together (same round)."""
	if len(numerators) != len(denominators):
		raise ValueError('paired samples differ in length')
	return [a / b for a, b in zip(numerators, denominators) if b]


def _relative_paths(text: str) -> str:
	"""A command line or message with the repository's paths relative to it."""
	return text.replace(f'{paths.REPO}/', '')


def _rel(path: Path) -> str:
	try:
		return str(Path(path).resolve().relative_to(paths.REPO))
	except ValueError:
		return str(path)
