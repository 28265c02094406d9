# SPDX-License-Identifier: GPL-2.0
"""The spatch runs of a check: at most N at a time, each within a time limit
and a memory cap, all of them stopped at once by Ctrl-C or SIGTERM.

A run that passes its time limit is killed and its file reported as not
checked; so is one that exceeds its memory (an address-space limit on the
process, so a pathological file costs its limit, not the machine).  Each
spatch runs in a process group of its own, its output going to files of
the check's scratch directory (no pipe to fill, no thread per run), and
the loop that waits for them is the one place that starts, times and
kills them.  interruptible() turns SIGINT and SIGTERM into Interrupted
for the whole command, so that every temporary file is removed on the way
out and what finished is still printed.
"""

import contextlib
import enum
import os
import resource
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Hashable, Iterator, Sequence

from scoped_uaccess.core.command import Command, Runner

DEFAULT_SECONDS = 300		# per spatch run; a kernel file takes seconds
DEFAULT_MEMORY_MB = 4096	# address space per spatch run
POLL = 0.05			# seconds between looks at the running processes


class Interrupted(Exception):
	"""SIGINT or SIGTERM arrived: stop, print what finished, exit 2."""

	def __init__(self, signum: int) -> None:
		super().__init__(signal.Signals(signum).name)
		self.signum = signum


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
	"""SIGINT and SIGTERM raise Interrupted in the main thread while inside."""
	def handler(signum: int, frame: object) -> None:
		raise Interrupted(signum)

	old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
	try:
		yield
	finally:
		for s, h in old.items():
			signal.signal(s, h)


@dataclass(frozen=True)
class Limits:
	seconds: int = DEFAULT_SECONDS
	memory_mb: int = DEFAULT_MEMORY_MB


class Status(enum.Enum):
	DONE = 'done'			# exit status 0
	FAILED = 'failed'		# another exit status
	TIMED_OUT = 'timed out'
	OUT_OF_MEMORY = 'out of memory'
	NOT_RUN = 'not run'		# --dry-run


@dataclass
class Run:
	key: Hashable
	command: Command
	status: Status
	returncode: int = 0
	stdout: str = ''
	stderr: str = ''		# line ends kept as written
	seconds: float = 0.0

	def reason(self, limits: Limits) -> str:
		"""Why the file of a run that did not finish is not checked."""
		if self.status is Status.TIMED_OUT:
			return f'spatch did not finish within the time limit ({limits.seconds} s)'
		if self.status is Status.OUT_OF_MEMORY:
			return f'spatch ran out of its memory limit ({limits.memory_mb} MiB)'
		last = [line for line in self.stderr.splitlines() if line.strip()][-1:]
		return (f'spatch failed with status {self.returncode}'
			+ (f' ({last[0].strip()[:200]})' if last else ''))


_MEMORY = ('Out of memory', 'out of memory', 'MemoryError', 'Cannot allocate memory')


@dataclass
class _Running:
	key: Hashable
	command: Command
	proc: subprocess.Popen
	out: Path
	err: Path
	start: float


_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _child_setup(megabytes: int) -> Callable[[], None]:
	"""In the child: the memory cap, and the signals the parent blocked
	while it started the child (so that none arrives between the start of a
	process and the parent knowing of it) unblocked again."""
	def preexec() -> None:
		size = megabytes * 1024 * 1024
		resource.setrlimit(resource.RLIMIT_AS, (size, size))
		signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
	return preexec


def _read(path: Path) -> str:
	try:
		return path.read_bytes().decode('utf-8', errors='replace')
	except OSError:
		return ''


def _kill(running: _Running) -> None:
	try:
		os.killpg(running.proc.pid, signal.SIGKILL)
	except ProcessLookupError:
		pass
	running.proc.wait()


def run_all(runner: Runner, commands: Sequence[tuple[Hashable, Command]], jobs: int,
	    limits: Limits, scratch: Path, done: Callable[[Run], None]) -> None:
	"""Runs the commands in order, at most jobs at a time; done(run) gets
	each run as it ends.  On Interrupted every running process is killed
	and nothing more is started; the exception goes on to the caller."""
	queue = list(commands)
	running: list[_Running] = []
	serial = 0
	try:
		while queue or running:
			while queue and len(running) < max(1, jobs):
				key, command = queue.pop(0)
				line = command.shell_line()
				if runner.dry_run:
					runner.say(f'$ {line}    # dry run: not executed')
					done(Run(key, command, Status.NOT_RUN))
					continue
				runner.say(f'$ {line}')
				serial += 1
				out, err = scratch / f'{serial}.out', scratch / f'{serial}.err'
				signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
				try:
					with open(out, 'wb') as o, open(err, 'wb') as e:
						proc = subprocess.Popen(
							command.full_argv(), cwd=command.cwd,
							env=dict(os.environ, **command.env),
							stdin=subprocess.DEVNULL, stdout=o, stderr=e,
							start_new_session=True,
							preexec_fn=_child_setup(limits.memory_mb))
					running.append(_Running(key, command, proc, out, err,
								time.monotonic()))
				finally:
					signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
			time.sleep(POLL)
			for r in list(running):
				elapsed = time.monotonic() - r.start
				code = r.proc.poll()
				if code is None and elapsed <= limits.seconds:
					continue
				if code is None:
					_kill(r)
					status = Status.TIMED_OUT
				else:
					# The group may have children of its own left (python).
					with contextlib.suppress(ProcessLookupError):
						os.killpg(r.proc.pid, signal.SIGKILL)
					status = Status.DONE if code == 0 else Status.FAILED
				running.remove(r)
				stderr = _read(r.err)
				if status is Status.FAILED and any(m in stderr for m in _MEMORY):
					status = Status.OUT_OF_MEMORY
				run = Run(r.key, r.command, status, r.proc.returncode, _read(r.out), stderr,
					  elapsed)
				for path in (r.out, r.err):
					path.unlink(missing_ok=True)
				done(run)
	finally:
		for r in running:
			_kill(r)
			for path in (r.out, r.err):
				path.unlink(missing_ok=True)
