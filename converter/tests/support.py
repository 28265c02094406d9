# SPDX-License-Identifier: GPL-2.0
"""Shared helpers: fixture paths and a runner that keeps quiet."""

import io
import sys
from pathlib import Path

CONVERTER = Path(__file__).resolve().parents[1]
REPO = CONVERTER.parent
TESTCASES = REPO / 'testcases'
# Fixtures of the unit tests (real captures and files), apart from the
# pipeline's inputs in testcases/.
DATA = CONVERTER / 'tests' / 'data'
if str(CONVERTER) not in sys.path:
	sys.path.insert(0, str(CONVERTER))

from scoped_uaccess.core.command import Runner  # noqa: E402


def quiet_runner(dry_run: bool = False) -> Runner:
	"""A Runner whose echoes and progress go to a buffer (runner.echo)."""
	return Runner(dry_run=dry_run, echo=io.StringIO())
