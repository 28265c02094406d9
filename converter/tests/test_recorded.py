# SPDX-License-Identifier: GPL-2.0
"""gates/recorded.py: a committed verdict counts only for the inputs it was made from."""

import dataclasses
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import support
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.core.outcome import Outcome
from scoped_uaccess.gates import make_test, recorded, trees

PATCH = '''From 1 Mon Sep 17 00:00:00 2001
Subject: [PATCH] demo

A changelog.
---
diff --git a/scripts/coccinelle/misc/x.cocci b/scripts/coccinelle/misc/x.cocci
--- a/scripts/coccinelle/misc/x.cocci
+++ b/scripts/coccinelle/misc/x.cocci
@@ -1 +1 @@
-a
+b
diff --git a/lib/x.c b/lib/x.c
--- a/lib/x.c
+++ b/lib/x.c
@@ -1 +1 @@
-int x;
+long x;
'''


class RecordedTest(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.addCleanup(self.tmp.cleanup)
		root = Path(self.tmp.name)
		self.kdir = root / 'linux'
		self.kdir.mkdir()
		(self.kdir / 'Makefile').write_text('VERSION = 6\n')
		for args in (('init', '-q'), ('add', '-A'),
			     ('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base'),
			     ('tag', 'baseline')):
			subprocess.run(('git', '-C', str(self.kdir), *args), check=True)
		self.patch = root / '0001-demo.patch'
		self.patch.write_text(PATCH)
		records = root / 'records'
		self.results = root / 'results'
		patcher = mock.patch.multiple(recorded, RECORDS=records)
		patcher.start()
		self.addCleanup(patcher.stop)
		patcher = mock.patch.object(recorded.paths, 'RESULTS', self.results)
		patcher.start()
		self.addCleanup(patcher.stop)
		self.runs = 0

	def build(self) -> Outcome:
		self.runs += 1
		self.results.mkdir(exist_ok=True)
		(self.results / 'demo.txt').write_text('PASS x86_64\n\n=== x86_64\nmake log\n')
		return Outcome.ok('1 of 1 architectures build cleanly')

	def gate(self) -> recorded.RecordedGate:
		return recorded.RecordedGate(
			'demo', lambda: recorded.Inputs(self.kdir, (self.patch,), ('gcc',)),
			self.build, 'demo.txt')

	def test_built_diff_leaves_out_changelog_and_checker_scripts(self) -> None:
		diff = recorded.built_diff(PATCH)
		self.assertIn('+long x;', diff)
		self.assertNotIn('coccinelle', diff)
		self.assertNotIn('changelog', diff)

	def test_a_record_is_used_until_an_input_changes(self) -> None:
		runner = support.quiet_runner()
		recorded.step(runner, self.gate(), record=True)
		self.assertEqual(1, self.runs)
		used = recorded.step(runner, self.gate(), record=False)
		self.assertEqual(1, self.runs, 'inputs unchanged: the record is the verdict')
		self.assertIn('inputs unchanged', used.summary)
		self.assertEqual('PASS x86_64\n', (self.results / 'demo.txt').read_text())
		# the checker's scripts and the changelog are no build input
		self.patch.write_text(PATCH.replace('+b', '+c').replace('A changelog', 'Another'))
		recorded.step(runner, self.gate(), record=False)
		self.assertEqual(1, self.runs)
		# a built line is
		self.patch.write_text(PATCH.replace('+long x;', '+short x;'))
		rebuilt = recorded.step(runner, self.gate(), record=False)
		self.assertEqual(2, self.runs)
		self.assertIn('stale: patches', rebuilt.summary)

	def test_no_record_or_a_failed_build_is_never_taken(self) -> None:
		runner = support.quiet_runner()
		recorded.step(runner, self.gate(), record=False)
		self.assertEqual(1, self.runs)
		self.assertIsNone(recorded.load('demo'), 'only --record writes a record')
		failing = recorded.RecordedGate('demo', self.gate().inputs,
						lambda: Outcome.findings('0 of 1 build'), 'demo.txt')
		self.assertEqual(1, recorded.step(runner, failing, record=True).exit_status)
		self.assertIsNone(recorded.load('demo'), 'a failed build is not recorded')

	def test_current_agrees_with_the_step(self) -> None:
		# make test asks before the warm-up whether a KUnit gate will take
		# its record: the same answer as the gate's step gives later.
		runner = support.quiet_runner()
		inputs = self.gate().inputs()
		self.assertFalse(recorded.current(runner, 'demo', inputs), 'no record yet')
		recorded.step(runner, self.gate(), record=True)
		self.assertTrue(recorded.current(runner, 'demo', inputs))
		self.assertFalse(recorded.current(
			runner, 'demo', recorded.Inputs(self.kdir, (self.patch,), ('gcc', 'true'))))

	def test_a_gates_own_code_is_in_its_fingerprint_only(self) -> None:
		runner = support.quiet_runner()
		module = self.kdir / 'module.py'
		module.write_text('one\n')
		plain = self.gate().inputs()
		own = dataclasses.replace(plain, code=(module,))
		before = recorded.fingerprint(runner, own)['code']
		module.write_text('two\n')
		self.assertNotEqual(before, recorded.fingerprint(runner, own)['code'])
		self.assertEqual(recorded.fingerprint(runner, plain)['code'],
				 recorded.fingerprint(runner, dataclasses.replace(plain, code=()))['code'])

	def test_the_boots_are_recorded_with_what_they_boot(self) -> None:
		names = {str(p.relative_to(support.REPO)) for p in (*trees.BOOT_CONFIGS, *trees.BOOT_CODE)}
		for path in ('testcases/faultsweep/faultsweep.c', 'testcases/userspace/uaccess_syscalls.c',
			     'testcases/kernel/faultsweep-ppc64le.config', 'testcases/kernel/x86_64.config',
			     'converter/scoped_uaccess/sweep/faultsweep.py',
			     'converter/scoped_uaccess/kunit/suites.py',
			     'converter/scoped_uaccess/userspace/compare.py',
			     'converter/scoped_uaccess/gates/trees.py'):
			self.assertIn(path, names)
		self.assertIn('converter/scoped_uaccess/kunit/suites.py',
			      {str(p.relative_to(support.REPO)) for p in trees.KUNIT_CODE})

	def test_record_mode_runs_the_recorded_gates_and_what_they_need(self) -> None:
		gates = make_test.gates(support.quiet_runner(dry_run=True), make_test.TestOptions(),
					make_test.Warmup())
		self.assertEqual(('sparse', 'cross', 'bisect', 'kunit-clang-14', 'kunit-clang-19',
				  'fixes-7.3', 'builds-7.3', 'kunit-gcc-7.3', 'sweep-7.3', 'userspace-7.3'),
				 make_test.recorded_gates())
		names = [g.name for g in make_test.selected(gates, record=make_test.recorded_gates())]
		self.assertEqual(['deps', 'tree', 'sparse', 'cross', 'tree-7.3', 'fixes-7.3',
				  'builds-7.3', 'kunit-gcc', 'kunit-clang-14', 'kunit-clang-19', 'bisect',
				  'kunit-gcc-7.3', 'sweep-7.3', 'userspace-7.3'], names)
		names = [g.name for g in make_test.selected(gates, record=('kunit-clang-19',))]
		self.assertEqual(['deps', 'tree', 'kunit-clang-19'], names)
		with self.assertRaises(UsageError):
			make_test.selected(gates, record=('validate',))


if __name__ == '__main__':
	unittest.main()
