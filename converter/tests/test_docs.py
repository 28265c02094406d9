# SPDX-License-Identifier: GPL-2.0
"""README.md and docs/: the front door stays short, the tables agree with the code,
no doc carries a measurement of some day's host, and the paths they name exist."""

import re
import unittest

import support
from scoped_uaccess.cli import doctables
from scoped_uaccess.cli.main import build_parser

DOCS = [support.REPO / 'README.md', *sorted((support.REPO / 'docs').glob('*.md')),
	support.REPO / 'cocci' / 'README.md', support.REPO / 'patches' / 'README.md',
	*sorted((support.REPO / 'testcases').glob('*/README.md'))]
# Dates, commit ids (a short one in parentheses) and the hosts of
# measurements belong in reports/.
HISTORY = re.compile(r'\b20\d\d-\d\d-\d\d\b|\b[0-9a-f]{12,40}\b|\([0-9a-f]{7,11}\)|\bXeon\b|\bEPYC\b')
_PATH = re.compile(r'`((?:docs|reports|patches|testcases|cocci|converter)/[^`\s]*)`')


class DocsTest(unittest.TestCase):
	def test_readme_is_a_front_door(self) -> None:
		lines = (support.REPO / 'README.md').read_text().splitlines()
		self.assertLess(len(lines), 200)
		for topic in ('checker', 'converter', 'validation', 'benchmarks', 'development'):
			self.assertIn(f'docs/{topic}.md', '\n'.join(lines))

	def test_generated_tables_agree_with_the_code(self) -> None:
		stale = doctables.stale(build_parser(), write=False)
		self.assertEqual([], stale, 'run converter/scoped-uaccess doc-tables --write')
		readme = (support.REPO / 'README.md').read_text()
		self.assertIn('| `report-7.3` |', readme)
		self.assertIn('| `check` |', readme)
		self.assertIn('| `stale-pointer` |', (support.REPO / 'docs' / 'checker.md').read_text())

	def test_no_history_in_the_docs(self) -> None:
		for doc in DOCS:
			with self.subTest(doc=doc.name):
				found = HISTORY.findall(doc.read_text())
				self.assertEqual([], found, f'{doc}: move measurements to reports/')

	def test_the_paths_a_doc_names_exist(self) -> None:
		for doc in DOCS:
			for path in _PATH.findall(doc.read_text()):
				if any(c in path for c in '<*{N'):
					continue
				with self.subTest(doc=doc.name, path=path):
					self.assertTrue((support.REPO / path.rstrip('/')).exists())

	def test_a_table_needs_its_end(self) -> None:
		with self.assertRaises(ValueError):
			doctables.update_text('<!-- BEGIN GENERATED: cli -->\nx\n', {'cli': lambda: []})
		self.assertEqual('<!-- BEGIN GENERATED: cli -->\nrow\n<!-- END GENERATED -->',
				 doctables.update_text('<!-- BEGIN GENERATED: cli -->\nold\n'
						       '<!-- END GENERATED -->', {'cli': lambda: ['row']}))


if __name__ == '__main__':
	unittest.main()
