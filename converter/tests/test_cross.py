# SPDX-License-Identifier: GPL-2.0
"""cross and bisect gates: the decisions they make from build outputs."""

import tempfile
import unittest
from pathlib import Path

import support  # noqa: F401  (puts the package on sys.path)
from scoped_uaccess.gates import bisect
from scoped_uaccess.gates import cross
from scoped_uaccess.kernel import kbuild
from scoped_uaccess.core.errors import TreeStateError

CONFIG = '''\
CONFIG_MMU=y
CONFIG_KUNIT=y
CONFIG_SCOPED_UACCESS_KUNIT_TEST=m
# CONFIG_CPU_SPECTRE is not set
'''
NM = '''\
00000000 T arm_get_user_u64
         U __get_user_bad
         U __get_user_8
'''


class CrossTest(unittest.TestCase):
	def test_config_value(self) -> None:
		self.assertEqual('y', kbuild.config_value(CONFIG, 'KUNIT'))
		self.assertEqual('m', kbuild.config_value(CONFIG, 'SCOPED_UACCESS_KUNIT_TEST'))
		self.assertEqual('n', kbuild.config_value(CONFIG, 'CPU_SPECTRE'))
		self.assertEqual('n', kbuild.config_value(CONFIG, 'MISSING'))

	def test_undefined_symbols(self) -> None:
		self.assertEqual({'__get_user_bad', '__get_user_8'}, cross.undefined_symbols(NM))

	def test_arm_requires_no_spectre_and_probes_get_user_bad(self) -> None:
		arm = cross.ARCHES['arm']
		self.assertIn(('CPU_SPECTRE', 'n'), arm.require)
		probe, forbidden = arm.probes[0]
		self.assertTrue((support.REPO / probe).is_file())
		self.assertIn('__get_user_bad', forbidden)


class BisectTest(unittest.TestCase):
	def test_objects_at_skips_missing_sources(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			tree = Path(d)
			(tree / 'fs').mkdir()
			(tree / 'fs' / 'select.c').write_text('')
			self.assertEqual(['fs/select.o'], bisect.objects_at(tree))

	def test_a_directory_without_baseline_is_refused(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			with self.assertRaises(TreeStateError) as e:
				bisect.series_commits(support.quiet_runner(), Path(d))
			self.assertIn('make tree', e.exception.one_line())


if __name__ == '__main__':
	unittest.main()
