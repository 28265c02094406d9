# SPDX-License-Identifier: GPL-2.0
"""The checker's time grows gently with the accessors of a region.

A rule that binds the call inside a nest, <+... f@p(...) ...+>, makes
spatch 1.1.1 try every combination of the calls of a scope: eight
accessors took two minutes, the converted cp_stat64() (17) never ended.
testcases/cocci/accessor-mode/ok-long-scope.c has 32; it takes a few
seconds, and a minute is the alarm.
"""

import subprocess
import unittest

import support
from scoped_uaccess.checker import check
from scoped_uaccess.cocci import spatch

CASE = support.TESTCASES / 'cocci' / 'accessor-mode' / 'ok-long-scope.c'
LIMIT_SECONDS = 60


class LongScopeTest(unittest.TestCase):

	def test_long_scope_is_checked_quickly(self) -> None:
		# Every script: each follows the accessors of a region its own way.
		for script in check.CHECKERS:
			with self.subTest(script=script.name):
				command = ['spatch', '--python', spatch.PYTHON, '-D', 'report',
					   '--no-show-diff', '--very-quiet', '--sp-file', str(script),
					   *spatch.options(script), str(CASE)]
				try:
					run = subprocess.run(command, capture_output=True, text=True,
							     timeout=LIMIT_SECONDS, check=False)
				except subprocess.TimeoutExpired:
					self.fail(f'{" ".join(command)} took over {LIMIT_SECONDS} s: a rule '
						  'has become exponential in the accessors of a scope')
				self.assertEqual(0, run.returncode, run.stderr)
				self.assertNotIn('ERROR', run.stdout)


if __name__ == '__main__':
	unittest.main()
