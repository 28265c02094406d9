#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Runs the unit tests and ends with `N passed, N failed`.

    converter/tests/run.py                  every test_*.py, one process per CPU
    converter/tests/run.py test_tree        the tests of one file
    converter/tests/run.py --jobs 1         every test_*.py in this process

With more than one job the tests are dealt in turn to that many child
processes (the tests are independent: each makes its own temporary
directories); their output is printed whole, one after the other, and
their counts added up.
"""

import os
import re
import subprocess
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The package, and support.py beside the tests.
sys.path[:0] = [str(HERE.parent), str(HERE)]
COUNTS = re.compile(r'^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$', re.MULTILINE)


def run_here(names: list[str]) -> tuple[int, int, int]:
	"""Runs the named tests (all when none); returns passed, failed, skipped."""
	if names:
		suite = unittest.defaultTestLoader.loadTestsFromNames(names)
	else:
		# Same layout as `python3 -m unittest discover -s converter/tests`.
		suite = unittest.defaultTestLoader.discover(str(HERE), top_level_dir=str(HERE))
	result = unittest.TextTestRunner(verbosity=1).run(suite)
	bad = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
	return result.testsRun - bad - len(result.skipped), bad, len(result.skipped)


def test_ids(suite: unittest.TestSuite) -> list[str]:
	found = []
	for item in suite:
		if isinstance(item, unittest.TestSuite):
			found += test_ids(item)
		else:
			found.append(item.id())
	return found


def deal(jobs: int) -> list[list[str]]:
	"""Every test, dealt in turn to jobs groups: the tests of one file
	(test_convert_rules runs spatch for two thirds of the time) spread
	over all of them."""
	suite = unittest.defaultTestLoader.discover(str(HERE), top_level_dir=str(HERE))
	groups: list[list[str]] = [[] for _ in range(jobs)]
	for i, name in enumerate(test_ids(suite)):
		groups[i % jobs].append(name)
	return [g for g in groups if g]


def run_children(jobs: int) -> tuple[int, int, int]:
	children = [subprocess.Popen((sys.executable, __file__, '--jobs', '1', *group),
				     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
		    for group in deal(jobs)]
	totals = [0, 0, 0]
	for child in children:
		output, _ = child.communicate()
		print(output, end='', flush=True)
		found = COUNTS.findall(output)
		if not found:
			totals[1] += 1
			print(f'run.py: a child exited with status {child.returncode} without its counts')
			continue
		for i, value in enumerate(found[-1]):
			totals[i] += int(value or 0)
	return totals[0], totals[1], totals[2]


def main() -> int:
	args = sys.argv[1:]
	jobs = os.cpu_count() or 1
	if args[:1] == ['--jobs']:
		jobs, args = int(args[1]), args[2:]
	if args or jobs <= 1:
		passed, bad, skipped = run_here(args)
	else:
		passed, bad, skipped = run_children(jobs)
	print(f'{passed} passed, {bad} failed' + (f', {skipped} skipped' if skipped else ''))
	return 0 if bad == 0 else 1


if __name__ == '__main__':
	sys.exit(main())
