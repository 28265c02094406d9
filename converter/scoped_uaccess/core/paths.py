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
# The x86_64 kernel configuration of KUnit, the userspace tests and the
# x86_64 fault sweep (testcases/kernel/README).
X86_64_CONFIG = REPO / 'testcases' / 'kernel' / 'x86_64.config'
# The userspace run of validate's converted kernel: that kernel is the gcc
# KUnit kernel (same tree, configuration and compiler), so it is not built
# again.
CONVERTED_RUN = 'converted'
NEGATIVE = REPO / 'testcases' / 'negative'
UNIT_TESTS = REPO / 'converter' / 'tests'


def kunit_build_dir(cc: str) -> Path:
	"""The kernel build directory of `make kunit CC=<cc>`."""
	return OUT / f'kunit-{cc}'


def userspace_build_dir(name: str) -> Path:
	"""The kernel build directory of the userspace run <name>: the gcc
	KUnit kernel's for CONVERTED_RUN, build/out/user-<name> otherwise."""
	return kunit_build_dir('gcc') if name == CONVERTED_RUN else OUT / f'user-{name}'


def validate_build_dir(config: str) -> Path:
	"""The build directory of validate's build configuration <config> (an
	architecture name of kernel/architectures.py, `-base` appended for the
	unconverted tree); the sparse gate prepares validate's x86_64 one."""
	return OUT / f'validate-{config}'
