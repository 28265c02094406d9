# SPDX-License-Identifier: GPL-2.0
"""Expected-case check: declared KUNIT_CASE*()s against what reported."""

import tempfile
import unittest
from pathlib import Path

from support import DATA
from scoped_uaccess.kunit import expected
from scoped_uaccess.kunit import ktap
from scoped_uaccess.kunit.expected import ExpectedSuite, FindingKind

USERCOPY_SOURCE = '''
static struct kunit_case usercopy_test_cases[] = {
	KUNIT_CASE(usercopy_test_valid),
	KUNIT_CASE(usercopy_test_invalid),
	KUNIT_CASE(usercopy_test_check_nonzero_user),
	KUNIT_CASE(usercopy_test_copy_struct_from_user),
	{}
};
'''
USERCOPY = ExpectedSuite(name='usercopy', source='lib/usercopy_kunit.c', min_cases=4)


class DeclaredCasesTest(unittest.TestCase):
	def test_all_case_macros(self) -> None:
		source = '''KUNIT_CASE(a), KUNIT_CASE_SLOW(b), KUNIT_CASE_PARAM(c, c_gen_params),
			KUNIT_CASE_ATTR(d, attrs), KUNIT_CASE_PARAM_ATTR( e , gen, attrs)'''
		self.assertEqual(['a', 'b', 'c', 'd', 'e'], expected.declared_cases(source))

	def test_comments_and_if0_are_not_cases(self) -> None:
		source = '''/* KUNIT_CASE(in_block_comment) */
			// KUNIT_CASE(in_line_comment)
			#if 0
			KUNIT_CASE(disabled),
			#endif
			KUNIT_CASE(real),'''
		self.assertEqual(['real'], expected.declared_cases(source))

	def test_the_real_usercopy_list(self) -> None:
		self.assertEqual(4, len(expected.declared_cases(USERCOPY_SOURCE)))


class CheckTest(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.kdir = Path(self.tmp.name)
		(self.kdir / 'lib').mkdir()
		(self.kdir / USERCOPY.source).write_text(USERCOPY_SOURCE)

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def check(self, log: str, suites=(USERCOPY,), allow=None) -> list[expected.Finding]:
		run = ktap.parse((DATA / 'ktap' / log).read_text().splitlines())
		return expected.check(run, self.kdir, suites, allow if allow is not None else {})

	def kinds(self, findings: list[expected.Finding]) -> list[tuple[FindingKind, str]]:
		return [(f.kind, f.test) for f in findings]

	def test_pass(self) -> None:
		self.assertEqual([], self.check('usercopy-pass.log'))

	def test_failed_case_and_suite(self) -> None:
		findings = self.check('usercopy-fail.log')
		self.assertEqual([(FindingKind.FAILED, 'usercopy'),
				  (FindingKind.FAILED, 'usercopy.usercopy_test_invalid')],
				 self.kinds(findings))
		self.assertIn('EXPECTATION FAILED', findings[1].detail)

	def test_skip_fails_unless_allowed(self) -> None:
		self.assertEqual([(FindingKind.SKIPPED, 'usercopy.usercopy_test_check_nonzero_user')],
				 self.kinds(self.check('usercopy-skip.log')))
		allow = {'usercopy.usercopy_test_check_nonzero_user': 'needs hardware'}
		self.assertEqual([], self.check('usercopy-skip.log', allow=allow))

	def test_allow_list_starts_empty(self) -> None:
		self.assertEqual({}, expected.SKIP_ALLOWLIST)

	def test_crash_reports_ktap_incomplete_and_missing_cases(self) -> None:
		kinds = self.kinds(self.check('usercopy-crash.log'))
		self.assertIn((FindingKind.BAD_KTAP, 'ktap'), kinds)
		self.assertIn((FindingKind.INCOMPLETE, 'usercopy'), kinds)
		self.assertIn((FindingKind.MISSING_CASE, 'usercopy.usercopy_test_check_nonzero_user'), kinds)
		self.assertIn((FindingKind.MISSING_CASE, 'usercopy.usercopy_test_copy_struct_from_user'),
			      kinds)

	def test_declared_case_that_did_not_report(self) -> None:
		(self.kdir / USERCOPY.source).write_text(USERCOPY_SOURCE.replace(
			'{}', 'KUNIT_CASE(usercopy_test_new),\n\t{}'))
		self.assertEqual([(FindingKind.MISSING_CASE, 'usercopy.usercopy_test_new')],
				 self.kinds(self.check('usercopy-pass.log')))

	def test_too_few_cases_and_missing_suite(self) -> None:
		suite = ExpectedSuite(name='scoped_uaccess', source='lib/usercopy_kunit.c', min_cases=20)
		self.assertEqual([(FindingKind.TOO_FEW_CASES, 'scoped_uaccess'),
				  (FindingKind.MISSING_SUITE, 'scoped_uaccess')],
				 self.kinds(self.check('usercopy-pass.log', suites=(suite,))))

	def test_missing_source(self) -> None:
		suite = ExpectedSuite(name='scoped_uaccess', source='lib/scoped_uaccess_kunit.c', min_cases=20)
		self.assertEqual([(FindingKind.MISSING_SOURCE, 'scoped_uaccess')],
				 self.kinds(self.check('usercopy-pass.log', suites=(suite,))))

	def test_a_suite_moved_to_lib_tests_is_found_there(self) -> None:
		(self.kdir / USERCOPY.source).unlink()
		(self.kdir / 'lib' / 'tests').mkdir()
		(self.kdir / 'lib' / 'tests' / 'usercopy_kunit.c').write_text(USERCOPY_SOURCE)
		self.assertEqual([], self.check('usercopy-pass.log'))

	def test_expected_suites_data(self) -> None:
		by_name = {s.name: s for s in expected.EXPECTED_SUITES}
		self.assertEqual(20, by_name['scoped_uaccess'].min_cases)
		self.assertEqual('lib/usercopy_kunit.c', by_name['usercopy'].source)


if __name__ == '__main__':
	unittest.main()
