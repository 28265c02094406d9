# SPDX-License-Identifier: GPL-2.0
"""Typed exceptions; only the CLI turns them into a message and exit status."""


class ScopedUaccessError(Exception):
	"""Base class: a problem and the fix, both short enough for one line."""

	def __init__(self, problem: str, fix: str = '') -> None:
		super().__init__(problem)
		self.problem = problem
		self.fix = fix

	def one_line(self) -> str:
		"""The problem and its fix as a single line for the terminal."""
		text = ' '.join(self.problem.split())
		if self.fix:
			text += '; ' + ' '.join(self.fix.split())
		return text


class UsageError(ScopedUaccessError):
	"""The command line asks for something that cannot be done."""


class EnvironmentProblem(ScopedUaccessError):
	"""The machine lacks something: a package, a file, root, /dev/kvm."""


class TreeStateError(ScopedUaccessError):
	"""The kernel tree in KDIR is not one we may build on or update."""


class CommandFailed(ScopedUaccessError):
	"""An external command exited with a non-zero status."""

	def __init__(self, command_line: str, returncode: int, output: str = '',
		     fix: str = '') -> None:
		tail = output.strip().splitlines()[-1:] if output else []
		problem = f'command failed with status {returncode}: {command_line}'
		if tail:
			problem += f' ({tail[0].strip()})'
		super().__init__(problem, fix)
		self.command_line = command_line
		self.returncode = returncode
		self.output = output
