# SPDX-License-Identifier: GPL-2.0
"""KTAP parser: real console captures against golden outlines."""

import json
import unittest

from support import DATA
from scoped_uaccess.kunit import ktap

KTAP_DIR = DATA / 'ktap'


def outline(run: ktap.Run) -> dict:
	"""What a golden file pins down: completeness, errors, every status."""
	return {'complete': run.complete, 'errors': run.errors,
		'tests': {'.'.join(p): t.status.value for p, t in run.root.walk()}}


class GoldenTest(unittest.TestCase):
	def test_every_capture_matches_its_golden_outline(self) -> None:
		logs = sorted(KTAP_DIR.glob('*.log'))
		self.assertGreaterEqual(len(logs), 5)
		for log in logs:
			with self.subTest(log=log.name):
				golden = log.with_suffix('.expected.json')
				run = ktap.parse(log.read_text().splitlines())
				self.assertEqual(json.loads(golden.read_text()), outline(run))


class ParserTest(unittest.TestCase):
	def parse(self, name: str) -> ktap.Run:
		return ktap.parse((KTAP_DIR / name).read_text().splitlines())

	def test_failure_keeps_its_assertion_text(self) -> None:
		case = self.parse('usercopy-fail.log').root.child('usercopy').child('usercopy_test_invalid')
		self.assertIs(case.status, ktap.Status.FAIL)
		self.assertIn('# usercopy_test_invalid: EXPECTATION FAILED at lib/usercopy_kunit.c:236',
			      case.log)
		self.assertIn('ret == -14 (0xfffffffffffffff2)', case.log)

	def test_skip_reason(self) -> None:
		case = self.parse('usercopy-skip.log').root.child('usercopy').child(
			'usercopy_test_check_nonzero_user')
		self.assertIs(case.status, ktap.Status.SKIP)
		self.assertEqual('derived: this case was marked skipped', case.reason)

	def test_crash_is_incomplete_and_keeps_the_oops(self) -> None:
		run = self.parse('usercopy-crash.log')
		self.assertFalse(run.complete)
		self.assertIs(run.root.child('usercopy').status, ktap.Status.INCOMPLETE)
		self.assertIn('Kernel panic - not syncing: Fatal exception', run.crash_lines)

	def test_parameters_nest_under_their_case(self) -> None:
		case = self.parse('example-params-skip.log').root.child('example').child('example_params_test')
		self.assertEqual(['example value 3', 'example value 2', 'example value 1', 'example value 0'],
				 [c.name for c in case.children])

	def test_printk_timestamps_are_stripped(self) -> None:
		lines = ['[    0.100000] Linux version 6.12.118', '[    0.500000] KTAP version 1',
			 '[    0.500001] 1..1', '[    0.500002]     KTAP version 1',
			 '[    0.500003]     # Subtest: s', '[    0.500004]     1..1',
			 '[    0.500005]     ok 1 c', '[    0.500006] ok 1 s']
		run = ktap.parse(lines)
		self.assertTrue(run.complete)
		self.assertEqual({'s': 'pass', 's.c': 'pass'}, outline(run)['tests'])

	def test_no_ktap_at_all(self) -> None:
		run = ktap.parse(['Linux version 6.12.118', 'Kernel panic - not syncing: VFS'])
		self.assertEqual(['no KTAP output in the log'], run.errors)

	def test_truncated_inside_parameters(self) -> None:
		lines = ['KTAP version 1', '1..1', '    KTAP version 1', '    # Subtest: s', '    1..2',
			 '        KTAP version 1', '        # Subtest: p', '        ok 1 one']
		run = ktap.parse(lines)
		self.assertEqual({'s': 'incomplete', 's.p': 'incomplete', 's.p.one': 'pass'},
				 outline(run)['tests'])
		self.assertIn('s.p never reported a result', run.errors)

	def test_plan_shortfall_without_crash(self) -> None:
		lines = ['KTAP version 1', '1..2', '    KTAP version 1', '    # Subtest: s',
			 '    1..1', '    ok 1 c', 'ok 1 s']
		self.assertEqual(['run: planned 2 results, got 1'], ktap.parse(lines).errors)

	def test_legacy_tap_subtest_without_version_line(self) -> None:
		lines = ['TAP version 14', '1..1', '    # Subtest: s', '    1..1', '    not ok 1 c',
			 'not ok 1 s']
		self.assertEqual({'s': 'fail', 's.c': 'fail'}, outline(ktap.parse(lines))['tests'])

	def test_result_comment_is_kept_apart_from_directives(self) -> None:
		lines = ['KTAP version 1', '1..3', 'ok 1 a.fault # errno=EFAULT',
			 'not ok 2 b # signal=SIGSEGV', 'ok 3 c # SKIP no rseq']
		run = ktap.parse(lines)
		a, b, c = run.root.children
		self.assertEqual(('a.fault', ktap.Status.PASS, 'errno=EFAULT'), (a.name, a.status, a.comment))
		self.assertEqual((ktap.Status.FAIL, 'signal=SIGSEGV'), (b.status, b.comment))
		self.assertEqual((ktap.Status.SKIP, 'no rseq', ''), (c.status, c.reason, c.comment))

	def test_json_round_trip(self) -> None:
		data = json.loads(json.dumps(self.parse('usercopy-skip.log').to_json()))
		self.assertTrue(data['complete'])
		self.assertEqual('usercopy', data['suites'][0]['name'])


if __name__ == '__main__':
	unittest.main()
