# SPDX-License-Identifier: GPL-2.0
"""The checker the series ships is the one in cocci/: the six scripts."""

import re
import unittest

import support
from scoped_uaccess.cocci import api, check

PATCH_GLOB = '0*-coccinelle-misc-Add-scoped_uaccess*.patch'
SHIPPED_DIR = 'scripts/coccinelle/misc/'


def added_file(patch_text: str, path: str) -> str:
	"""The content of a file a patch creates, from its '+' lines."""
	lines, inside = [], False
	for line in patch_text.splitlines():
		if line.startswith('diff --git '):
			inside = line.endswith(f' b/{path}')
		elif inside and line.startswith('+') and not line.startswith('+++'):
			lines.append(line[1:])
	return '\n'.join(lines) + '\n' if lines else ''


def touched_files(patch_text: str) -> list[str]:
	"""The files a patch changes, from its `diff --git` lines."""
	return re.findall(r'^diff --git a/\S+ b/(\S+)$', patch_text, re.M)


class ShippedCocciTest(unittest.TestCase):
	def patch_text(self) -> str:
		patches = sorted((support.REPO / 'patches').glob(PATCH_GLOB))
		self.assertEqual(1, len(patches), 'exactly one patch adds the checker')
		return patches[0].read_text()

	def test_series_ships_cocci_dir_copies(self) -> None:
		text = self.patch_text()
		for script in check.CHECKERS:
			with self.subTest(script=script.name):
				shipped = added_file(text, SHIPPED_DIR + script.name)
				self.assertEqual(script.read_text(), shipped,
						 f'patches/ ships another version of cocci/{script.name}: '
						 're-export the checker patch (patches/README.md)')

	def test_series_ships_the_checker_scripts_only(self) -> None:
		shipped = sorted(f for f in touched_files(self.patch_text())
				 if f.startswith(SHIPPED_DIR))
		self.assertEqual(sorted(SHIPPED_DIR + s.name for s in check.CHECKERS), shipped)

	def test_each_script_stays_the_size_of_the_trees_scripts(self) -> None:
		# scripts/coccinelle's largest script has about 400 lines; a checker
		# script whose own rules and Python pass 700 lines should be split
		# by class family (cocci/README.md).  The generated block of API
		# tables and shared code (cocci/api.py) does not count.
		for script in check.CHECKERS:
			with self.subTest(script=script.name):
				text = script.read_text()
				generated = sum(len(api.render_block(names)) + 2
						for names in api.table_blocks(text))
				lines = len(text.splitlines()) - generated
				self.assertLess(lines, 700, f'{script.name} has {lines} lines of its own')


if __name__ == '__main__':
	unittest.main()
