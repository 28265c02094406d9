#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Runs the unit tests and ends with `N passed, N failed`.

    converter/tests/run.py                  every test_*.py
    converter/tests/run.py test_tree        the tests of one file
"""

import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The package, and support.py beside the tests.
sys.path[:0] = [str(HERE.parent), str(HERE)]


def main() -> int:
	# Same layout as `python3 -m unittest discover -s converter/tests`.
	names = sys.argv[1:]
	if names:
		suite = unittest.defaultTestLoader.loadTestsFromNames(names)
	else:
		suite = unittest.defaultTestLoader.discover(str(HERE), top_level_dir=str(HERE))
	result = unittest.TextTestRunner(verbosity=1).run(suite)
	bad = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
	passed = result.testsRun - bad - len(result.skipped)
	print(f'{passed} passed, {bad} failed' + (f', {len(result.skipped)} skipped' if result.skipped else ''))
	return 0 if bad == 0 else 1


if __name__ == '__main__':
	sys.exit(main())
