# SPDX-License-Identifier: GPL-2.0
"""git as a Command: the one way every stage asks git for something."""

from pathlib import Path
from typing import Mapping, Optional

from scoped_uaccess.core.command import Command


def git(cwd: Path, *args: str, mutates: bool = False,
	env: Optional[Mapping[str, str]] = None, stdin: Optional[Path] = None) -> Command:
	"""`git ARGS` run in cwd.  A probe by default (it runs under
	--dry-run too); mutates=True for what changes the repository."""
	return Command(('git', *args), cwd=cwd, env=dict(env or {}), stdin=stdin,
		       mutates=mutates)
