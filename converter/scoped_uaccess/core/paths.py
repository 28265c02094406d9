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
# KDIR's HEAD, where sparse and validate build the series' objects.
CONVERTED_TREE = BUILD / 'wt-validate-converted'
PATCHES = REPO / 'patches'
KUNITCONFIG = REPO / 'testcases' / 'kunit' / 'scoped_uaccess.kunitconfig'
NEGATIVE = REPO / 'testcases' / 'negative'
UNIT_TESTS = REPO / 'converter' / 'tests'


def kunit_build_dir(cc: str) -> Path:
	"""The kernel build directory of `make kunit CC=<cc>`."""
	return OUT / f'kunit-{cc}'


def validate_build_dir(config: str) -> Path:
	"""The build directory of validate's build configuration <config> (an
	architecture name of kernel/architectures.py, `-base` appended for the
	unconverted tree); the sparse gate prepares validate's x86_64 one."""
	return OUT / f'validate-{config}'
