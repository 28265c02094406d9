# SPDX-License-Identifier: GPL-2.0
"""The background warm-up of make test: order, waiting, stopping."""

import tempfile
import threading
import time
import unittest
from typing import Callable
from pathlib import Path

from scoped_uaccess.core.command import Command
from scoped_uaccess.gates.warmup import Job, Warmup


# Long enough for a loaded machine; a wait that blocks never returns.
RETURNS_WITHIN = 10


def returns(call: Callable[[], None], seconds: float = RETURNS_WITHIN) -> bool:
	"""Whether call returns within seconds (run in a thread of its own, so
	that a call that blocks fails the test instead of hanging it)."""
	thread = threading.Thread(target=call, daemon=True)
	thread.start()
	thread.join(seconds)
	return not thread.is_alive()


class WarmupTest(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.dir = Path(self.tmp.name)
		self.warm = Warmup(self.dir / 'warmup.log')

	def tearDown(self) -> None:
		self.warm.stop()
		self.tmp.cleanup()

	def test_jobs_run_in_order_at_idle_priority_and_wait_returns_after(self) -> None:
		out = self.dir / 'policy'
		self.warm.add([
			Job('first', (Command(('sh', '-c', f'chrt -p $$ > {out}')),)),
			Job('second', (lambda runner: (self.dir / 'second').write_text('done'),)),
		])
		self.assertTrue(returns(lambda: self.warm.wait('second', lambda line: None)))
		self.assertEqual('done', (self.dir / 'second').read_text())
		self.assertIn('SCHED_IDLE', out.read_text())
		self.assertIn('=== warmup: second', (self.dir / 'warmup.log').read_text())

	def test_the_processor_time_of_each_job_is_counted(self) -> None:
		burn = Command(('sh', '-c', 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'))
		self.warm.add([Job('busy', (burn,)), Job('idle', (Command(('sleep', '0.3')),))])
		self.assertTrue(returns(lambda: self.warm.wait('busy', lambda line: None, 'idle'), 60))
		self.assertGreater(self.warm.cpu['busy'], 0.1)
		self.assertLess(self.warm.cpu['idle'], 0.1)
		self.assertEqual(self.warm.cpu_total(), self.warm.cpu['busy'] + self.warm.cpu['idle'])
		self.assertRegex((self.dir / 'warmup.log').read_text(), r'exit status 0, \d+ s cpu')

	def test_a_failed_step_ends_its_job_not_the_next(self) -> None:
		self.warm.add([
			Job('bad', (Command(('false',)), lambda runner: (self.dir / 'after').touch())),
			Job('good', (lambda runner: (self.dir / 'good').touch(),)),
		])
		self.assertTrue(returns(lambda: self.warm.wait('bad', lambda line: None, 'good')))
		self.assertFalse((self.dir / 'after').exists())
		self.assertTrue((self.dir / 'good').exists())

	def test_stop_kills_what_runs(self) -> None:
		self.warm.add([Job('slow', (Command(('sleep', '60')),))])
		time.sleep(0.5)
		start = time.monotonic()
		self.warm.stop()
		self.assertLess(time.monotonic() - start, 10)
		self.assertTrue(returns(lambda: self.warm.wait('slow', lambda line: None)),
				'wait for a stopped job blocks')

	def test_wait_before_any_job_or_for_another_gate_returns(self) -> None:
		said: list[str] = []
		self.assertTrue(returns(lambda: self.warm.wait('kunit-gcc', said.append)),
				'wait before any job blocks')
		self.warm.add([Job('other', (lambda runner: None,))])
		self.assertTrue(returns(lambda: self.warm.wait('kunit-gcc', said.append)),
				'wait for a gate without a warm-up blocks')
		self.assertEqual([], said)		# neither waited

	def test_only_the_jobs_of_gates_that_run_are_queued(self) -> None:
		self.warm.only = frozenset({'kunit-gcc'})
		self.warm.add([Job('sweep', (lambda runner: (self.dir / 'sweep').touch(),)),
			       Job('kunit-gcc', (lambda runner: (self.dir / 'kunit').touch(),))])
		self.assertTrue(returns(lambda: self.warm.wait('kunit-gcc', lambda line: None, 'sweep')))
		self.assertTrue((self.dir / 'kunit').exists())
		self.assertFalse((self.dir / 'sweep').exists())
		self.assertNotIn('sweep', self.warm.done)

	def test_jobs_added_later_run_after_the_queue_or_on_their_own(self) -> None:
		order = self.dir / 'order'
		def mark(name: str):
			return lambda runner: order.open('a').write(name + '\n')
		self.warm.add([Job('early', (Command(('sleep', '0.5')), mark('early')))])
		self.warm.add([Job('added', (mark('added'),))])		# queued behind early
		self.assertTrue(returns(lambda: self.warm.wait('added', lambda line: None)))
		self.assertEqual(['early', 'added'], order.read_text().split())
		self.warm.add([Job('late', (mark('late'),))])		# the queue ran dry
		self.assertTrue(returns(lambda: self.warm.wait('late', lambda line: None)))
		self.assertEqual(['early', 'added', 'late'], order.read_text().split())


if __name__ == '__main__':
	unittest.main()
