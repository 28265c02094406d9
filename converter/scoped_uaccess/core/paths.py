# SPDX-License-Identifier: GPL-2.0
"""Where things live in the repository and under build/."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
BUILD = REPO / 'build'
OUT = BUILD / 'out'
RESULTS = BUILD / 'results'
DEFAULT_KDIR = BUILD / 'linux'
# The one checkout of the pristine tag `baseline` that builds and boots use.
BASELINE_TREE = BUILD / 'wt-baseline'
# KDIR's HEAD, where the KUnit gates build their kernels and sparse and
# validate the series' objects.
CONVERTED_TREE = BUILD / 'wt-validate-converted'
PATCHES = REPO / 'patches'
REPORTS = REPO / 'reports'
# The x86_64 kernel configuration of KUnit, the userspace tests and the
# x86_64 fault sweep (testcases/kernel/README).
X86_64_CONFIG = REPO / 'testcases' / 'kernel' / 'x86_64.config'
# The userspace run of validate's converted kernel: that kernel is the gcc
# KUnit kernel (same tree, configuration and compiler), so it is not built
# again.
CONVERTED_RUN = 'converted'
# The userspace run of the baseline kernel it is compared with (the
# series up to its API, kernel/baseline.py), by validate and the sweeps.
BASELINE_RUN = 'validate-baseline'
NEGATIVE = REPO / 'testcases' / 'negative'
UNIT_TESTS = REPO / 'converter' / 'tests'


def tree_suffix(kdir: Path) -> str:
	"""What the worktrees and build directories of a tree other than
	build/linux are told apart by: '' for build/linux, '-7.3' for
	build/linux-7.3."""
	if Path(kdir).resolve() == DEFAULT_KDIR.resolve():
		return ''
	return '-' + Path(kdir).resolve().name.removeprefix('linux-')


def of_tree(path: Path, kdir: Path) -> Path:
	"""A scratch directory or file of kdir: path for build/linux, path
	with the tree's suffix for another (build/wt-convert ->
	build/wt-convert-7.3)."""
	return path.with_name(path.name + tree_suffix(kdir))


def converted_tree(kdir: Path) -> Path:
	"""CONVERTED_TREE for build/linux, build/wt-validate-converted-7.3 for
	build/linux-7.3."""
	return of_tree(CONVERTED_TREE, kdir)


def kunit_build_dir(cc: str, kdir: Path = DEFAULT_KDIR) -> Path:
	"""The kernel build directory of `make kunit CC=<cc> KDIR=<kdir>`."""
	return OUT / f'kunit-{cc}{tree_suffix(kdir)}'


def userspace_build_dir(name: str, kdir: Path = DEFAULT_KDIR) -> Path:
	"""The kernel build directory of the userspace run <name> of kdir: the
	gcc KUnit kernel's for CONVERTED_RUN, build/out/user-<name> otherwise."""
	if name == CONVERTED_RUN:
		return kunit_build_dir('gcc', kdir)
	return OUT / f'user-{name}{tree_suffix(kdir)}'


def validate_build_dir(config: str, kdir: Path = DEFAULT_KDIR) -> Path:
	"""The build directory of validate's build configuration <config> (an
	architecture name of kernel/architectures.py, `-base` appended for the
	unconverted tree) for kdir; the sparse gate prepares validate's x86_64
	one."""
	return OUT / f'validate-{config}{tree_suffix(kdir)}'
