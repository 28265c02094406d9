# SPDX-License-Identifier: GPL-2.0
"""The checker the series ships is the one in cocci/: scoped_uaccess.cocci."""

import re
import unittest

import support
from scoped_uaccess.checker import check

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


# Every tree's series ships the checker: patches/ (6.12), patches/linux-7.3/.
SERIES_DIRS = (support.REPO / 'patches', support.REPO / 'patches' / 'linux-7.3')


class ShippedCocciTest(unittest.TestCase):
	def patch_texts(self) -> list[tuple[str, str]]:
		texts = []
		for d in SERIES_DIRS:
			patches = sorted(d.glob(PATCH_GLOB))
			self.assertEqual(1, len(patches), f'exactly one patch of {d} adds the checker')
			texts.append((patches[0].name, patches[0].read_text()))
		return texts

	def test_series_ships_cocci_dir_copies(self) -> None:
		for name, text in self.patch_texts():
			for script in check.CHECKERS:
				with self.subTest(patch=name, script=script.name):
					shipped = added_file(text, SHIPPED_DIR + script.name)
					self.assertEqual(script.read_text(), shipped,
							 f'{name} ships another version of cocci/{script.name}: '
							 'run converter/scoped-uaccess ship-checker --kdir KDIR')

	def test_series_ships_the_checker_scripts_only(self) -> None:
		for name, text in self.patch_texts():
			shipped = sorted(f for f in touched_files(text) if f.startswith(SHIPPED_DIR))
			self.assertEqual(sorted(SHIPPED_DIR + s.name for s in check.CHECKERS), shipped, name)

	def test_the_checker_stays_the_size_of_the_trees_scripts(self) -> None:
		# scripts/coccinelle's largest script has about 400 lines.  The
		# checker is one script, so that make coccicheck selects the tree's
		# files once, and it holds six families of classes, each a section
		# `// ==== family` of SmPL rules: each family stays within the
		# 400 lines of the tree's largest script.  The whole script, with
		# its one copy of the generated tables and shared code (cocci/api.py)
		# and the Python of each family, stays within 2,600 lines: the six
		# scripts it replaced had 3,789, of which 966 were five copies too
		# many of that generated block.
		for script in check.CHECKERS:
			text = script.read_text()
			lines = text.splitlines()
			self.assertLessEqual(len(lines), 2600, f'{script.name} has {len(lines)} lines')
			sections = re.split(r'^// ==== ', text, flags=re.M)[1:]
			self.assertGreaterEqual(len(sections), 6, f'{script.name}: its families')
			for section in sections:
				name = section.split()[0]
				with self.subTest(script=script.name, family=name):
					self.assertLessEqual(len(section.splitlines()), 400,
							     f'{script.name}: the rules of {name}')


if __name__ == '__main__':
	unittest.main()
