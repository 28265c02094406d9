# SPDX-License-Identifier: GPL-2.0
"""The checker the series ships is the one in cocci/."""

import unittest

import support

PATCH_GLOB = '0*-coccinelle-misc-Add-scoped_uaccess.cocci.patch'
SHIPPED = 'scripts/coccinelle/misc/scoped_uaccess.cocci'


def added_file(patch_text: str, path: str) -> str:
	"""The content of a file a patch creates, from its '+' lines."""
	lines, inside = [], False
	for line in patch_text.splitlines():
		if line.startswith('diff --git '):
			inside = line.endswith(f' b/{path}')
		elif inside and line.startswith('+') and not line.startswith('+++'):
			lines.append(line[1:])
	return '\n'.join(lines) + '\n' if lines else ''


class ShippedCocciTest(unittest.TestCase):
	def test_series_ships_cocci_dir_copy(self) -> None:
		patches = sorted((support.REPO / 'patches').glob(PATCH_GLOB))
		self.assertEqual(1, len(patches), 'exactly one patch adds the checker')
		shipped = added_file(patches[0].read_text(), SHIPPED)
		ours = (support.REPO / 'cocci' / 'scoped_uaccess.cocci').read_text()
		self.assertEqual(ours, shipped, 'patches/ ships another version of '
				 'cocci/scoped_uaccess.cocci: re-export the checker patch '
				 '(patches/README.md)')


if __name__ == '__main__':
	unittest.main()
