# SPDX-License-Identifier: GPL-2.0
"""cocci/shim.py: braces around the do-while and switch bodies of scopes,
every line and every column before them where they were."""

import difflib
import unittest

from support import REPO
from scoped_uaccess.cocci.shim import brace_scopes

DO_WHILE = '''\tscoped_user_write_access(p, Efault)
\t\tdo {
\t\t\tunsafe_put_user(v, p, Efault); /* ) } */
\t\t} while (--n > 0);
\treturn 0;
'''
SWITCH = '''\tscoped_user_read_access_size(p, size(")"), Efault) // (
\t\tswitch (op) {
\t\tcase 1:
\t\t\tunsafe_get_user(v, p, Efault);
\t\t\tbreak;
\t\t}
'''


class BraceScopesTest(unittest.TestCase):
	def test_do_while_body(self) -> None:
		got = brace_scopes(DO_WHILE)
		self.assertEqual(DO_WHILE.replace('Efault)\n', 'Efault) {\n', 1)
				 .replace('(--n > 0);', '(--n > 0); }'), got)

	def test_switch_body_past_strings_and_comments(self) -> None:
		got = brace_scopes(SWITCH)
		lines = got.split('\n')
		self.assertEqual(SWITCH.count('\n'), got.count('\n'))
		self.assertTrue(lines[0].startswith('\tscoped_user_read_access_size(p, size(")"), Efault) {'))
		self.assertEqual('\t\t} }', lines[5])

	def test_other_bodies_stay(self) -> None:
		for text in ('scoped_user_read_access(p, L) {\n\tdo { x(); } while (0);\n}\n',
			     'scoped_user_read_access(p, L)\n\tfor (;;) unsafe_get_user(v, p, L);\n',
			     'scoped_user_rw_access(p, L) unsafe_atomic_op2(a, b, p, L);\n',
			     'scoped_user_read_access(p, L)\n\tdo x(); while (0);\n',
			     '#define scoped_user_read_access(p, l) __scoped(p, l, read)\n'):
			with self.subTest(text=text):
				self.assertIs(text, brace_scopes(text))

	def test_corpus_cases_keep_their_lines(self) -> None:
		for case in sorted((REPO / 'testcases' / 'cocci').glob('*/*unbraced*.c')):
			text = case.read_text()
			with self.subTest(case=case.name):
				got = brace_scopes(text)
				ops = difflib.SequenceMatcher(None, text, got, autojunk=False).get_opcodes()
				inserted = [got[j1:j2] for op, _, _, j1, j2 in ops if op != 'equal']
				self.assertEqual(['insert'] * len(inserted),
						 [op for op, *_ in ops if op != 'equal'])
				self.assertLessEqual(set(inserted), {' {', ' }', '{ ', '} '})
				if 'do-' in case.name or 'switch' in case.name:
					self.assertTrue(inserted, 'no body put in braces')


if __name__ == '__main__':
	unittest.main()
