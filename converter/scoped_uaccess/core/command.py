# SPDX-License-Identifier: GPL-2.0
"""The one chokepoint through which every external command runs."""

import enum
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence, TextIO

from scoped_uaccess.core.errors import CommandFailed, EnvironmentProblem

# Kernel builds share two cores with interactive work; be polite.
NICE = ('nice', '-n', '10')


class Output(enum.Enum):
	"""What happens to a command's output."""
	STREAM = 'stream'	# straight to our terminal, not kept
	CAPTURE = 'capture'	# kept silently and returned
	LINES = 'lines'		# stdout+stderr merged, each line to a sink, kept


@dataclass(frozen=True)
class Command:
	"""One external command, described fully enough to echo and rerun."""
	argv: Sequence[str]
	cwd: Optional[Path] = None
	env: Mapping[str, str] = field(default_factory=dict)
	stdin: Optional[Path] = None
	# Read-only probes still run under --dry-run: later decisions need them.
	mutates: bool = True
	nice: bool = False

	def full_argv(self) -> list[str]:
		return [*(NICE if self.nice else ()), *self.argv]

	def shell_line(self) -> str:
		"""The command as a line a user can paste into a shell."""
		parts = []
		if self.cwd is not None and Path(self.cwd).resolve() != Path.cwd():
			parts.append(f'cd {shlex.quote(str(self.cwd))} &&')
		parts += [f'{k}={shlex.quote(v)}' for k, v in self.env.items()]
		parts += [shlex.quote(a) for a in self.full_argv()]
		if self.stdin is not None:
			parts.append(f'< {shlex.quote(str(self.stdin))}')
		return ' '.join(parts)


@dataclass
class CommandResult:
	"""What a command did."""
	command: Command
	returncode: int
	output: str = ''	# stdout (merged with stderr for Output.LINES)
	stderr: str = ''
	elapsed: float = 0.0
	dry_run: bool = False


class Runner:
	"""Echoes, then runs (or under --dry-run only echoes) commands."""

	def __init__(self, dry_run: bool = False, echo: Optional[TextIO] = None,
		     quiet: bool = False) -> None:
		self.dry_run = dry_run
		self.echo = echo if echo is not None else sys.stdout
		self.quiet = quiet

	def say(self, message: str) -> None:
		"""Progress for the user, on the same stream as the echoes."""
		if not self.quiet:
			print(message, file=self.echo, flush=True)

	def run(self, command: Command, output: Output = Output.STREAM,
		check: bool = True, sink: Optional[Callable[[str], None]] = None,
		log: Optional[Path] = None, fix: str = '') -> CommandResult:
		"""Runs command; raises CommandFailed on a non-zero exit if check."""
		line = command.shell_line()
		if self.dry_run and command.mutates:
			self.say(f'$ {line}    # dry run: not executed')
			return CommandResult(command, 0, dry_run=True)
		self.say(f'$ {line}')
		if command.cwd is not None and not Path(command.cwd).is_dir():
			raise EnvironmentProblem(f'cannot run {command.argv[0]} in {command.cwd}: '
						 'no such directory', 'check KDIR and the build order')
		env = dict(os.environ, **command.env) if command.env else None
		stdin = open(command.stdin, 'rb') if command.stdin else subprocess.DEVNULL
		start = time.monotonic()
		try:
			if output is Output.LINES:
				result = self._run_lines(command, env, stdin, sink, log)
			else:
				pipe = subprocess.PIPE if output is Output.CAPTURE else None
				proc = subprocess.run(command.full_argv(), cwd=command.cwd,
						      env=env, stdin=stdin, stdout=pipe,
						      stderr=pipe, text=True,
						      errors='backslashreplace')
				result = CommandResult(command, proc.returncode,
						       proc.stdout or '', proc.stderr or '')
		except FileNotFoundError as e:
			raise EnvironmentProblem(f'cannot run {command.full_argv()[0]}: {e.strerror}',
						 'install the build dependencies with `make deps`') from e
		finally:
			if command.stdin:
				stdin.close()
		result.elapsed = time.monotonic() - start
		if check and result.returncode != 0:
			raise CommandFailed(line, result.returncode,
					    result.stderr or result.output, fix)
		return result

	def _run_lines(self, command: Command, env: Optional[dict], stdin,
		       sink: Optional[Callable[[str], None]],
		       log: Optional[Path]) -> CommandResult:
		sink = sink or (lambda text: print(text, end='', file=self.echo, flush=True))
		kept = []
		logfile = open(log, 'w', errors='backslashreplace') if log else None
		try:
			with subprocess.Popen(command.full_argv(), cwd=command.cwd, env=env,
					      stdin=stdin, stdout=subprocess.PIPE,
					      stderr=subprocess.STDOUT, text=True,
					      errors='backslashreplace') as proc:
				assert proc.stdout is not None
				for text in proc.stdout:
					kept.append(text)
					if logfile:
						logfile.write(text)
					sink(text)
			return CommandResult(command, proc.returncode, ''.join(kept))
		finally:
			if logfile:
				logfile.close()
