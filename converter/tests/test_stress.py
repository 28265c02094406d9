# SPDX-License-Identifier: GPL-2.0
"""cocci/stress.py: which one-line changes it makes, and its summary."""

import unittest

from support import TESTCASES
from scoped_uaccess.checker.stress import Mutation, Run, mutations, report, summary

SOURCE = TESTCASES / 'cocci' / 'missing-end' / 'ok-fault-label-goto-back.c'


class MutationsTest(unittest.TestCase):
	def setUp(self) -> None:
		self.lines = SOURCE.read_text().split('\n')
		self.found = mutations('x.c', self.lines)

	def test_the_file_as_it_is_comes_first(self) -> None:
		self.assertEqual(Mutation('x.c', 0, 'none'), self.found[0])
		self.assertEqual(self.lines, self.found[0].apply(self.lines))

	def test_every_end_is_dropped_once(self) -> None:
		ends = [n for n, line in enumerate(self.lines, 1) if 'access_end()' in line]
		self.assertTrue(ends)
		self.assertEqual(ends, [m.line for m in self.found if m.kind == 'drop-end'])
		for m in self.found:
			if m.kind == 'drop-end':
				changed = m.apply(self.lines)
				self.assertNotIn('access_end()', changed[m.line - 1])
				self.assertIn('(void)0;', changed[m.line - 1])
				self.assertEqual(len(self.lines), len(changed))

	def test_a_call_after_the_first_accessor_of_each_region(self) -> None:
		calls = [m for m in self.found if m.kind == 'add-call']
		self.assertTrue(calls)
		for m in calls:
			line = m.apply(self.lines)[m.line - 1]
			self.assertIn('unsafe_', line)
			self.assertTrue(line.endswith('; schedule();'), line)

	def test_summary_names_the_slowest_and_the_failures(self) -> None:
		runs = [Run('a.c', 0, 'none', 1.5, 1, '', ('7:mode-mismatch',)),
			Run('a.c', 7, 'drop-end', 9.25, 1, '', ('9:missing-end',)),
			Run('b.c', 0, 'none', 1.0, 0),
			Run('b.c', 3, 'add-call', 121.0, 0, 'timeout')]
		text = summary(runs, 'Linux 6.12.118')
		self.assertIn('slowest: 121.0 s', text)
		self.assertIn('failures (crash or timeout): 1', text)
		self.assertIn('FAILED b.c:3 add-call: timeout', text)
		self.assertLess(text.index('| 121.0 |'), text.index('| 9.2 |'))
		self.assertIn('an end dropped: 1 of 1 give a finding', text)
		self.assertIn('a call added: 0 of 1 give a finding', text)
		self.assertIn('a block spatch cannot parse, as they are: 0', text)

	def test_summary_names_the_files_with_unparsed_blocks(self) -> None:
		runs = [Run('a.c', 0, 'none', 1.5, 2, '', ('12:parse-error', '40:parse-error')),
			Run('a.c', 7, 'drop-end', 2.0, 2, '', ('12:parse-error', '40:parse-error')),
			Run('b.c', 0, 'none', 1.0, 1, '', ('3:range',))]
		text = summary(runs, 'Linux 7.3.4')
		self.assertIn('a block spatch cannot parse, as they are: 1', text)
		self.assertIn('UNPARSED a.c: lines 12, 40', text)

	def test_the_committed_report_names_its_command(self) -> None:
		runs = [Run('a.c', 0, 'none', 1.5, 0)]
		text = report(runs, 'Linux 7.3.4 (build/linux-7.3)', 'build/linux-7.3')
		self.assertTrue(text.startswith('# The checker under stress: Linux 7.3.4'))
		self.assertIn('`converter/scoped-uaccess stress --kdir build/linux-7.3`', text)
		self.assertTrue(text.endswith(summary(runs, 'x').split('\n', 1)[1]))


if __name__ == '__main__':
	unittest.main()
