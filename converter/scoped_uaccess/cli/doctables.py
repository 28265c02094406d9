# SPDX-License-Identifier: GPL-2.0
"""The tables the docs share with the code: the CLI's commands, the checker's classes, the gates,
the converter's skip reasons.

A Markdown file marks a generated table with
`<!-- BEGIN GENERATED: name -->` and `<!-- END GENERATED -->`;
`converter/scoped-uaccess doc-tables --write` renders it from the code,
and a unit test fails when a doc and the code disagree.
"""

import argparse
import ast
import re
from pathlib import Path
from typing import Callable

from scoped_uaccess.checker import check
from scoped_uaccess.analysis import status
from scoped_uaccess import FLOORS as ROOMS
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.gates import make_test
from scoped_uaccess.gates.warmup import Warmup

_BEGIN = re.compile(r'^<!-- BEGIN GENERATED: (?P<name>[a-z-]+) -->$')
END = '<!-- END GENERATED -->'


def _cell(text: str) -> str:
	return ' '.join(text.split()).replace('|', '\\|')


def cli_table(parser: argparse.ArgumentParser) -> list[str]:
	"""Every command of converter/scoped-uaccess with its one-line help."""
	sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
	rows = ['| command | what it does |', '|---|---|']
	for choice in sub._choices_actions:
		rows.append(f'| `{choice.dest}` | {_cell(choice.help or "")} |')
	return rows


def class_table() -> list[str]:
	rows = ['| class | script | reports |', '|---|---|---|']
	for c in check.classes().values():
		warning = ' (WARNING)' if c.severity.value == 'WARNING' else ''
		rows.append(f'| `{c.name}` | `{c.script}` | {_cell(c.text)}{warning} |')
	return rows


def gate_table() -> list[str]:
	"""The gates of make test in order, and what a FAIL of each means."""
	gates = make_test.gates(Runner(dry_run=True), make_test.TestOptions(), Warmup())
	rows = ['| gate | fails when | needs |', '|---|---|---|']
	for g in gates:
		rows.append(f'| `{g.name}` | {_cell(g.failure)} | {", ".join(g.needs) or "-"} |')
	return rows


def _purpose(path: Path) -> str:
	"""The first paragraph of a module's docstring."""
	doc = ast.get_docstring(ast.parse(path.read_text())) or ''
	return ' '.join(doc.split('\n\n', 1)[0].split())


def module_table() -> list[str]:
	"""Every room (subpackage) of the pipeline, lowest floor first, and its
	modules with the first line of their docstrings."""
	rows = ['| room | module | what it is for |', '|---|---|---|']
	package = paths.REPO / 'converter' / 'scoped_uaccess'
	for room in ROOMS:
		first = True
		for module in sorted((package / room).glob('*.py')):
			if module.name == '__init__.py':
				continue
			rows.append(f'| {f"`{room}/`" if first else ""} | `{module.stem}` '
				    f'| {_cell(_purpose(module))} |')
			first = False
	return rows


def renderers(parser: argparse.ArgumentParser) -> dict[str, Callable[[], list[str]]]:
	return {'cli': lambda: cli_table(parser), 'classes': class_table, 'gates': gate_table,
		'reasons': status.reasons_table, 'modules': module_table}


def update_text(text: str, tables: dict[str, Callable[[], list[str]]]) -> str:
	"""text with every marked table rendered afresh."""
	lines = text.split('\n')
	out: list[str] = []
	i = 0
	while i < len(lines):
		out.append(lines[i])
		m = _BEGIN.match(lines[i])
		i += 1
		if not m:
			continue
		end = next((j for j in range(i, len(lines)) if lines[j] == END), None)
		if end is None or m['name'] not in tables:
			raise ValueError(f'`{lines[i - 1]}` names no table or has no `{END}` line')
		out += tables[m['name']]()
		out.append(END)
		i = end + 1
	return '\n'.join(out)


def docs() -> list[Path]:
	return [paths.REPO / 'README.md', *sorted((paths.REPO / 'docs').glob('*.md'))]


def stale(parser: argparse.ArgumentParser, write: bool) -> list[Path]:
	"""The docs whose tables differ from the code; rewritten with write."""
	tables = renderers(parser)
	found = []
	for doc in docs():
		text = doc.read_text()
		new = update_text(text, tables)
		if new != text:
			found.append(doc)
			if write:
				doc.write_text(new)
	return found
