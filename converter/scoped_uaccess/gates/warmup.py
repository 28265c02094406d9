# SPDX-License-Identifier: GPL-2.0
"""Kernels of later gates, built in the background on idle CPU time only.

A cold `make test` leaves a core idle for minutes all told: checkpatch,
the TCG boots, the KVM probe, kbuild's final links, the Python between
spatch runs.  Once the tree gate has passed, a background thread builds
the kernels the later gates build anyway (the three KUnit kernels, the
ppc64le sweep's converted kernel) under SCHED_IDLE (`chrt --idle 0`):
they get a CPU only when the gates leave it idle.  A gate that builds one
of them first waits for its warm-up, then runs exactly as without one:
its own configure and make find nothing to do, or redo what the warm-up
did not finish.  Nothing the warm-up does decides a gate: a failed
warm-up only costs the time the gate then takes.  Everything it ran and
printed is in build/results/warmup.log, with each job's processor time,
which make test's table reports apart from the gates'.
"""

import os
import signal
import subprocess
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Optional

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Runner
from scoped_uaccess.kernel import kbuild

IDLE = ('chrt', '--idle', '0')
LOG = paths.RESULTS / 'warmup.log'


@dataclass(frozen=True)
class Job:
	"""What one gate would build: steps run in order, each a command
	(run under SCHED_IDLE) or a Python step given a Runner that writes to
	the log (kbuild.configure's stamp logic)."""
	gate: str
	steps: tuple[object, ...]


class Warmup:
	"""The background thread; until add(), wait() returns at once."""

	def __init__(self, log: Path = LOG, only: Optional[frozenset[str]] = None) -> None:
		self.log = log
		self.only = only		# the gates that run (test --record runs some): none for others
		self.jobs: list[Job] = []
		self.done: dict[str, threading.Event] = {}
		self.stopped = False
		self.proc: Optional[subprocess.Popen] = None
		self.thread: Optional[threading.Thread] = None
		self.lock = threading.Lock()
		self.running = False		# a thread works through self.jobs
		self.next = 0			# the index of the next job
		self.cpu: dict[str, float] = {}	# processor seconds per job, its commands'

	def add(self, jobs: list[Job]) -> None:
		"""More jobs, once a gate has made the tree they build from: after
		those queued, or in a new thread when none runs."""
		jobs = [job for job in jobs if self.only is None or job.gate in self.only]
		if not jobs:
			return
		with self.lock:
			if self.stopped:
				return
			if self.thread is None:
				self.log.parent.mkdir(parents=True, exist_ok=True)
				self.log.unlink(missing_ok=True)
			self.done.update({job.gate: threading.Event() for job in jobs})
			self.jobs = [*self.jobs, *jobs]
			if self.running:
				return
			self.running = True
			self.thread = threading.Thread(target=self._work, name='warmup', daemon=True)
		self.thread.start()

	def wait(self, gate: str, say: Callable[[str], None], *others: str) -> None:
		"""Blocks until the warm-up of gate is over, and of the other gates
		named (those not queued count as over)."""
		events = [self.done[g] for g in (gate, *others) if g in self.done]
		if self.thread is None or all(e.is_set() for e in events):
			return
		say(f'warmup: waiting for the background build of {", ".join((gate, *others))} '
		    f'(log: {self.log})')
		for event in events:
			event.wait()

	def stop(self) -> None:
		"""Kills what runs and ends the thread; the gates that follow build
		for themselves."""
		with self.lock:
			self.stopped = True
			if self.proc is not None and self.proc.poll() is None:
				os.killpg(self.proc.pid, signal.SIGTERM)
		if self.thread is not None:
			self.thread.join()
		for event in self.done.values():
			event.set()

	def cpu_total(self) -> float:
		"""Processor seconds of the warm-up's commands reaped so far."""
		with self.lock:
			return sum(self.cpu.values())

	def _work(self) -> None:
		with open(self.log, 'a', errors='backslashreplace') as log:
			runner = Runner(echo=log)
			while True:
				with self.lock:
					if self.next >= len(self.jobs):
						self.running = False
						return
					job = self.jobs[self.next]
					self.next += 1
				runner.say(f'=== warmup: {job.gate}')
				try:
					for step in job.steps:
						if self.stopped or not self._step(step, job.gate, runner, log):
							break
				except Exception as e:	# noqa: BLE001 -- the gate redoes it and reports
					runner.say(f'warmup: {job.gate}: {e}')
				finally:
					self.done[job.gate].set()

	def _step(self, step: object, job: str, runner: Runner, log) -> bool:
		if callable(step):
			step(runner)
			return True
		assert isinstance(step, Command)
		runner.say(f'$ {replace(step, argv=(*IDLE, *step.argv), nice=False).shell_line()}')
		env = dict(os.environ, **step.env)
		with self.lock:
			if self.stopped:
				return False
			self.proc = subprocess.Popen((*IDLE, *step.argv), cwd=step.cwd, env=env,
						     stdin=subprocess.DEVNULL, stdout=log,
						     stderr=subprocess.STDOUT, start_new_session=True)
		# wait4 rather than wait: the rusage of the command and all it
		# waited for, which this process's RUSAGE_CHILDREN also counts.
		_, wstatus, usage = os.wait4(self.proc.pid, 0)
		status = os.waitstatus_to_exitcode(wstatus)
		self.proc.returncode = status
		cpu = usage.ru_utime + usage.ru_stime
		with self.lock:
			self.cpu[job] = self.cpu.get(job, 0.0) + cpu
		runner.say(f'warmup: exit status {status}, {cpu:.0f} s cpu')
		return status == 0


def configure_step(build: kbuild.Build, config: Path) -> Callable[[Runner], None]:
	def step(runner: Runner) -> None:
		kbuild.configure(runner, build, config)
	return step
