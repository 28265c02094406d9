# SPDX-License-Identifier: GPL-2.0
"""cross and bisect gates: the decisions they make from build outputs."""

import tempfile
import unittest
from unittest import mock
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

	def test_shared_directories_are_configured_alike(self) -> None:
		"""cross and validate configure build/out/validate-<arch> with the
		same arguments, or each would reconfigure it for the other
		(kbuild.configure's stamp) and rebuild everything."""
		from scoped_uaccess.gates import validate
		from scoped_uaccess.core import paths
		for name in cross.SHARED_WITH_VALIDATE:
			c, v = cross.ARCHES[name], validate.ARCHES[name]
			self.assertEqual(paths.validate_build_dir(name), c.build_dir)
			self.assertEqual((c.arch, c.defconfig, c.enable, ()),
					 (v.arch, v.defconfig, v.enable, v.disable))
		self.assertEqual(paths.OUT / 'cross-riscv', cross.ARCHES['riscv'].build_dir)

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

	def cmd_files(self, out: Path, tree: Path, objects: list[str]) -> None:
		"""A .cmd file per object, as kbuild writes them: the source and a
		header of the tree, a generated header of the build."""
		for obj in objects:
			cmd = kbuild.cmd_file(out, obj)
			cmd.parent.mkdir(parents=True, exist_ok=True)
			source = obj[:-2] + '.c'		# asm-offsets.s too
			cmd.write_text(f'savedcmd_{obj} := gcc -I{tree}/include -c -o {obj} {tree}/{source}\n'
				       f'source_{obj} := {tree}/{source}\n'
				       f'deps_{obj} := \\\n  {tree}/include/linux/uaccess.h \\\n'
				       '  include/generated/asm-offsets.h \\\n\n')

	def test_a_commit_that_changes_no_input_is_not_built(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			out, tree = Path(d) / 'out', Path(d) / 'wt'
			objects = ['fs/select.o']
			with mock.patch.object(bisect, 'OUT', out), mock.patch.object(bisect, 'WORKTREE', tree):
				self.assertEqual('fs/select.o was not built before',
						 bisect.inputs_changed(['fs/select.c'], objects))
				self.cmd_files(out, tree, [*objects, *bisect.SEPARATE, *bisect.GENERATED_FROM])
				self.assertEqual('', bisect.inputs_changed(['arch/powerpc/kernel/signal_32.c',
									    'include/generated/asm-offsets.h'],
									   objects))
				self.assertEqual('include/linux/uaccess.h changed',
						 bisect.inputs_changed(['include/linux/uaccess.h'], objects))
				self.assertEqual('fs/select.c changed',
						 bisect.inputs_changed(['fs/select.c'], objects))
				self.assertIn('Kconfig', bisect.inputs_changed(['lib/Kconfig.debug'], objects))
				self.assertIn('build tool', bisect.inputs_changed(['tools/objtool/check.c'],
										  objects))
				# The checker patch adds a .cocci under scripts/: not read by a build.
				self.assertEqual('', bisect.inputs_changed(
					['scripts/coccinelle/misc/scoped_uaccess_regions.cocci', 'MAINTAINERS',
					 'tools/testing/selftests/x86/Makefile.inc'], objects))

	def test_a_directory_without_baseline_is_refused(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			with self.assertRaises(TreeStateError) as e:
				bisect.series_commits(support.quiet_runner(), Path(d))
			self.assertIn('make tree', e.exception.one_line())


if __name__ == '__main__':
	unittest.main()
