# SPDX-License-Identifier: GPL-2.0
"""What a step concluded, and the exit statuses of the CLI."""

from dataclasses import dataclass
from pathlib import Path

from scoped_uaccess.core import paths

# 0 ok, 1 findings or failures, 2 usage or environment error.
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


@dataclass(frozen=True)
class Outcome:
	"""What one step concluded: 0 ok, 1 findings; and a one-line summary."""
	exit_status: int
	summary: str = ''
	# The step printed what it found itself (check's findings on stdout):
	# the CLI adds no line of its own, as checkpatch and coccicheck do not.
	reported: bool = False

	@staticmethod
	def ok(summary: str = '') -> 'Outcome':
		return Outcome(EXIT_OK, summary)

	@staticmethod
	def findings(summary: str) -> 'Outcome':
		return Outcome(EXIT_FINDINGS, summary)


def relative(path: Path) -> str:
	"""A path as the user should read it: relative to the repository."""
	try:
		return str(Path(path).resolve().relative_to(paths.REPO))
	except ValueError:
		return str(path)


def written(path: Path, text: str) -> str:
	"""Writes a results file (creating its folder); returns its relative path."""
	path.parent.mkdir(parents=True, exist_ok=True)
	path.write_text(text)
	return relative(path)


def format_seconds(seconds: float) -> str:
	"""12s, 3m05s."""
	seconds = round(seconds)
	return f'{seconds // 60}m{seconds % 60:02d}s' if seconds >= 60 else f'{seconds}s'
