# SPDX-License-Identifier: GPL-2.0
"""checkpatch gate: parsing --terse output."""

import unittest

from scoped_uaccess.kernel import checkpatch

CLEAN = '''\
total: 0 errors, 0 warnings, 0 checks, 13 lines checked

0005-x.patch has no obvious style problems and is ready for submission.
'''
DIRTY = '''\
WARNING:LONG_LINE: line length of 103 exceeds 100 columns
#41: FILE: include/linux/uaccess.h:650:
+#define x

CHECK:MACRO_ARG_REUSE: Macro argument reuse 'ptr' - possible side-effects?
#57: FILE: include/linux/uaccess.h:660:
+#define y(ptr) (ptr + ptr)

total: 0 errors, 1 warnings, 1 checks, 120 lines checked
'''


class ParseTest(unittest.TestCase):
	def test_clean(self) -> None:
		self.assertTrue(checkpatch.parse_output('0001-x.patch', CLEAN).clean)

	def test_check_alone_passes(self) -> None:
		only_check = DIRTY.replace('WARNING:LONG_LINE', 'CHECK:LONG_LINE').replace(
			'0 errors, 1 warnings, 1 checks', '0 errors, 0 warnings, 2 checks')
		result = checkpatch.parse_output('0001-x.patch', only_check)
		self.assertTrue(result.clean)
		self.assertEqual(2, result.checks)

	def test_warning_fails(self) -> None:
		result = checkpatch.parse_output('0001-x.patch', DIRTY)
		self.assertFalse(result.clean)
		self.assertEqual((0, 1, 1), (result.errors, result.warnings, result.checks))
		self.assertEqual(["include/linux/uaccess.h:660: CHECK:MACRO_ARG_REUSE: Macro argument "
				  "reuse 'ptr' - possible side-effects?"], result.issues[1:])

	ENOSYS = DIRTY.replace('WARNING:LONG_LINE: line length of 103 exceeds 100 columns',
			       "WARNING:ENOSYS: ENOSYS means 'invalid syscall nr' and nothing else")

	def test_warning_on_a_reindented_line_is_preexisting(self) -> None:
		result = checkpatch.parse_output('0001-x.patch', self.ENOSYS, frozenset({'#define x'}))
		self.assertTrue(result.clean)
		self.assertEqual(["include/linux/uaccess.h:650: WARNING:ENOSYS: ENOSYS means 'invalid "
				  "syscall nr' and nothing else"], result.preexisting)

	def test_warning_on_a_changed_line_still_fails(self) -> None:
		result = checkpatch.parse_output('0001-x.patch', self.ENOSYS, frozenset({'#define y'}))
		self.assertFalse(result.clean)
		self.assertEqual([], result.preexisting)

	def test_layout_warning_of_a_reindented_line_fails(self) -> None:
		result = checkpatch.parse_output('0001-x.patch', DIRTY, frozenset({'#define x'}))
		self.assertFalse(result.clean)

	def test_no_totals_is_an_error(self) -> None:
		result = checkpatch.parse_output('0001-x.patch', "Can't open file\n")
		self.assertFalse(result.clean)
		self.assertEqual(1, result.errors)


if __name__ == '__main__':
	unittest.main()
