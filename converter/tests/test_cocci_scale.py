# SPDX-License-Identifier: GPL-2.0
"""scoped_uaccess.cocci's time grows gently with the accessors of a region.

A rule that binds the call inside a nest, <+... f@p(...) ...+>, makes
spatch 1.1.1 try every combination of the calls of a scope: eight
accessors took two minutes, the converted cp_stat64() (17) never ended.
testcases/cocci/accessor-mode/ok-long-scope.c has 32; it takes a few
seconds, and a minute is the alarm.
"""

import subprocess
import unittest

import support
from scoped_uaccess.cocci import check, spatch

CASE = support.TESTCASES / 'cocci' / 'accessor-mode' / 'ok-long-scope.c'
# The script that owns the class the case is about.
SCRIPT = next(
	s for s in check.CHECKERS if s.name == check.classes()['accessor-mode'].script)
LIMIT_SECONDS = 60


class LongScopeTest(unittest.TestCase):

	def test_long_scope_is_checked_quickly(self) -> None:
		command = ['spatch', '-D', 'report', '--no-show-diff', '--very-quiet',
			   '--sp-file', str(SCRIPT), *spatch.options(SCRIPT),
			   str(CASE)]
		try:
			run = subprocess.run(command, capture_output=True, text=True,
					     timeout=LIMIT_SECONDS, check=False)
		except subprocess.TimeoutExpired:
			self.fail(f'{" ".join(command)} took over {LIMIT_SECONDS} s: '
				  'a rule has become exponential in the accessors of a scope')
		self.assertEqual(0, run.returncode, run.stderr)
		self.assertNotIn('ERROR', run.stdout)


if __name__ == '__main__':
	unittest.main()
