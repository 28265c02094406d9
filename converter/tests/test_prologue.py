# SPDX-License-Identifier: GPL-2.0
"""The Python the checker scripts share (cocci/prologue.py): findings grouped by
mistake, and the access paths of C expressions; and that every script carries
exactly this code."""

import unittest
from dataclasses import dataclass

from scoped_uaccess.checker import check
from scoped_uaccess.cocci import api, prologue


@dataclass(frozen=True)
class Position:
	"""What Coccinelle gives a script for a position: strings."""
	file: str
	line: str
	column: str
	current_element: str


def at(line: int, func: str = 'f', column: int = 1, file: str = 'a.c') -> Position:
	return Position(file, str(line), str(column), func)


class FindingsTest(unittest.TestCase):
	def setUp(self) -> None:
		prologue.FINDINGS.clear()

	def emitted(self) -> list[tuple[str, str]]:
		out: list[tuple[str, str]] = []
		prologue.emit(lambda p, msg: out.append((p.line, msg)))
		return out

	def test_one_finding_per_function_class_and_subject(self) -> None:
		for line in (174, 171, 172, 256, 257, 259):
			prologue.finding(at(line, 'emulate_spe'), 'ERROR', 'masked-pointer',
					 'uses p++ on line %d' % line, 'p')
		prologue.finding(at(180, 'emulate_spe'), 'ERROR', 'masked-pointer', 'uses q', 'q')
		prologue.finding(at(171, 'other'), 'ERROR', 'masked-pointer', 'uses p', 'p')
		self.assertEqual([
			('171', 'ERROR: [masked-pointer] emulate_spe(): uses p++ on line 171; '
			 'also lines 172, 174, 256-257, 259'),
			('171', 'ERROR: [masked-pointer] other(): uses p'),
			('180', 'ERROR: [masked-pointer] emulate_spe(): uses q'),
		], self.emitted())

	def test_without_a_subject_one_per_position_the_first_rule_words_it(self) -> None:
		prologue.finding(at(5), 'ERROR', 'missing-end', 'first')
		prologue.finding(at(5), 'ERROR', 'missing-end', 'second')
		prologue.finding(at(9), 'ERROR', 'missing-end', 'third')
		self.assertEqual([('5', 'ERROR: [missing-end] f(): first'),
				  ('9', 'ERROR: [missing-end] f(): third')], self.emitted())

	def test_has_finding_covers_every_grouped_position(self) -> None:
		prologue.finding(at(3), 'WARNING', 'call-in-region', 'x', 'memset')
		prologue.finding(at(8), 'WARNING', 'call-in-region', 'x', 'memset')
		self.assertTrue(prologue.has_finding(at(8)))
		self.assertFalse(prologue.has_finding(at(8, file='b.c')))
		self.assertFalse(prologue.has_finding(at(9)))

	def test_line_ranges(self) -> None:
		self.assertEqual('3-5, 9', prologue.line_ranges([5, 3, 4, 9, 9]))
		self.assertEqual('', prologue.line_ranges([]))


class ExpressionsTest(unittest.TestCase):
	def test_access_paths(self) -> None:
		self.assertEqual(['t', '->rseq', '.usrptr', '->rseq_cs'],
				 prologue.chain('&t->rseq.usrptr->rseq_cs'))
		self.assertEqual((['dirent'], ['reclen - 1']),
				 prologue.access_path('(char __user *)dirent + reclen - 1'))
		self.assertEqual((['p', '[]', '->a'], ['2']), prologue.access_path('&p[2]->a'))
		self.assertEqual(['p'], prologue.chain('(typeof(x) *)p + 1'))
		self.assertEqual(['cm'], prologue.chain('CMSG_USER_DATA(cm)'))
		self.assertIsNone(prologue.chain('f(x) + 1'))
		self.assertEqual('&t->a[2]', prologue.pretty('& t -> a [ 2 ]'))


class RenderedTest(unittest.TestCase):
	def test_kernel_scripts_carry_no_rendered_code(self) -> None:
		"""The checker scripts stand alone as the kernel runs them: no
		rendered tables or shared functions of this package (those are
		the converter's, convert_scoped_uaccess.cocci)."""
		for script in check.CHECKERS:
			with self.subTest(script=script.name):
				self.assertEqual([], api.table_blocks(script.read_text()))


if __name__ == '__main__':
	unittest.main()
