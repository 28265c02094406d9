# SPDX-License-Identifier: GPL-2.0
"""The checker the series ships is the one in cocci/: scoped_uaccess_*.cocci."""

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

	def test_the_changelog_names_every_script_and_class(self) -> None:
		# The changelog lists the scripts and the classes each carries: a
		# script added, or a class moved between scripts, must show there.
		for name, text in self.patch_texts():
			changelog = text.split('\n---\n', 1)[0]
			for script in check.CHECKERS:
				with self.subTest(patch=name, script=script.name):
					entry = re.search(r'^ - ' + re.escape(script.name) + r':(.*?)(?=^ - |\n\n)',
							  changelog, re.M | re.S)
					self.assertIsNotNone(entry, f'{name} does not describe {script.name}')
					said = set(re.findall(r'\[([a-z-]+)\]', entry.group(1)))
					carried = set(re.findall(r'^///\s+\[([a-z-]+)\]', script.read_text(), re.M))
					self.assertEqual(carried, said, f'{name}: the classes of {script.name}')

	def test_the_scripts_have_the_kernel_form(self) -> None:
		# What scripts/coccinelle asks of a script: the size of the tree's
		# scripts (its largest has about 400 lines), a header with the
		# fields coccicheck prints, the modes it runs, and nothing that ties
		# a finding to the machine or to where spatch runs: no file read,
		# no environment, no import but re, no name of this project.
		total = 0
		for script in check.CHECKERS:
			text = script.read_text()
			total += len(text.splitlines())
			with self.subTest(script=script.name):
				self.assertLessEqual(len(text.splitlines()), 400)
				self.assertTrue(text.startswith('// SPDX-License-Identifier: GPL-2.0'))
				for field in ('Confidence', 'Options', 'Keywords'):
					self.assertRegex(text, rf'(?m)^// {field}: \S')
				for mode in ('report', 'context', 'org'):
					self.assertRegex(text, rf'(?m)^virtual {mode}$')
				self.assertEqual({'re'}, set(re.findall(r'(?m)^\s*(?:from|import) (\w+)', text)))
				for word in ('open(', 'environ', 'os.', 'scoped-uaccess', 'converter/', 'Debian'):
					self.assertNotIn(word, text)
		self.assertLessEqual(total, 1000)


if __name__ == '__main__':
	unittest.main()
