# SPDX-License-Identifier: GPL-2.0
"""make test: gate ordering, statuses and the summary table."""

import subprocess
import unittest

from scoped_uaccess.gates import runner as gates
from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.gates.runner import Gate, GateStatus, Outcome


def raise_env() -> Outcome:
	raise EnvironmentProblem('no compiler', 'run make deps')


class GatesTest(unittest.TestCase):
	def run_gates(self, pipeline: list[Gate]) -> gates.TestRun:
		return gates.run_gates(pipeline, lambda message: None)

	def test_statuses(self) -> None:
		run = self.run_gates([
			Gate('deps', 'deps missing', lambda: Outcome(0, 'ok')),
			Gate('tree', 'tree broken', raise_env, needs=('deps',)),
			Gate('kunit', 'kunit failed', lambda: Outcome(0), needs=('tree',)),
			Gate('checkpatch', 'checkpatch dirty', lambda: Outcome(1, '1 of 2 clean')),
		])
		self.assertEqual([GateStatus.PASS, GateStatus.ERROR, GateStatus.NOT_RUN, GateStatus.FAIL],
				 [r.status for r in run.results])
		self.assertEqual('no compiler; run make deps', run.results[1].detail)
		self.assertEqual(1, run.exit_status)
		table = gates.summary_table(run)
		self.assertIn('checkpatch dirty: 1 of 2 clean', table)
		self.assertIn('needs tree', table)
		self.assertTrue(table.splitlines()[-2].startswith('make test: FAIL (tree, kunit, checkpatch)'))
		self.assertEqual('gates: 1 passed, 3 failed', table.splitlines()[-1])

	def test_all_pass(self) -> None:
		run = self.run_gates([Gate('a', 'x', lambda: Outcome(0))])
		self.assertEqual(0, run.exit_status)
		self.assertIn('make test: PASS, 1/1 gates passed', gates.summary_table(run))

	def test_processor_time_is_the_gates_own(self) -> None:
		def burn() -> Outcome:
			subprocess.run(('sh', '-c', 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'),
				       check=True)
			return Outcome(0)
		# The warm-up's time reaped during a gate is not the gate's.
		beside = iter([0.0, 0.0, 0.0, 1000.0])
		run = gates.run_gates([Gate('busy', 'x', burn), Gate('other', 'x', burn)],
				      lambda message: None, lambda: next(beside))
		self.assertGreater(run.results[0].cpu, 0.1)
		self.assertEqual(0.0, run.results[1].cpu)
		table = gates.summary_table(run, gates.Background((('kunit-gcc', 300.0),)))
		self.assertIn('warm-up (background builds, cpu): kunit-gcc 5m00s', table)
		self.assertRegex(table, r'cpu: 5m\d\ds \(gates \d+s, warm-up 5m00s\)')

	def test_error_only_is_exit_2(self) -> None:
		self.assertEqual(2, self.run_gates([Gate('a', 'x', raise_env)]).exit_status)

	def test_format_seconds(self) -> None:
		self.assertEqual(('5s', '3m09s'), (gates.format_seconds(5.2), gates.format_seconds(189)))


if __name__ == '__main__':
	unittest.main()
