# SPDX-License-Identifier: GPL-2.0
"""The fixes gate: what it builds where."""

import tempfile
import unittest
from pathlib import Path

from support import quiet_runner
from test_tree import git
from scoped_uaccess.gates import fixes, trees
from scoped_uaccess.kernel import sources

class PlanTest(unittest.TestCase):
	def test_objects_by_architecture(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			t = Path(tmp)
			for name, text in (('kernel/rseq.c', '#include <linux/rseq_entry.h>\n'),
					   ('kernel/other.c', '#include <linux/other.h>\n'),
					   ('arch/x86/entry/common.c', '#include <linux/rseq_entry.h>\n'),
					   ('include/linux/rseq_entry.h', ''),
					   ('arch/powerpc/lib/sstep.c', '')):
				(t / name).parent.mkdir(parents=True, exist_ok=True)
				(t / name).write_text(text)
			git(t, 'init', '-q')
			git(t, 'add', '-A')
			plan = fixes.objects_by_arch(quiet_runner(), t, ['arch/powerpc/lib/sstep.c',
									 'include/linux/rseq_entry.h'])
		self.assertEqual(['arch/x86/entry/common.o', 'kernel/rseq.o'], plan['x86_64'])
		self.assertEqual(['kernel/rseq.o'], plan['arm64'])
		# 32-bit powerpc is configured for sstep.c: the generic object too.
		self.assertEqual(['arch/powerpc/lib/sstep.o', 'kernel/rseq.o'], plan['powerpc32'])

	def test_a_conversion_series_builds_where_validate_does(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			t = Path(tmp)
			git(t, 'init', '-q')
			touched = ['arch/x86/kernel/vm86_32.c', 'drivers/gpu/drm/i915/i915_query.c',
				   'kernel/compat.c']
			spread = fixes.objects_by_arch(quiet_runner(), t, touched)
			plan = fixes.objects_by_arch(quiet_runner(), t, touched, spread=False)
		# i386 has no CONFIG_COMPAT and i915 is x86-only: neither spreads.
		self.assertEqual(['arch/x86/kernel/vm86_32.o'], plan['i386'])
		self.assertEqual(['drivers/gpu/drm/i915/i915_query.o', 'kernel/compat.o'],
				 plan['x86_64'])
		self.assertEqual(['kernel/compat.o'], plan['arm64'])
		self.assertIn('kernel/compat.o', spread['i386'])
		self.assertNotIn('drivers/gpu/drm/i915/i915_query.o', spread['arm64'])

	def test_another_version_is_made_without_the_committed_conversions(self) -> None:
		committed = trees.conversions_version(Path('build/linux-7.3'))
		self.assertRegex(committed, r'^7\.3\.\d+$')
		with tempfile.TemporaryDirectory() as tmp:
			kdir = Path(tmp) / 'linux-7.3'
			kdir.mkdir()
			sublevel = int(committed.split('.')[2])
			for n, why in ((sublevel, ''), (sublevel + 1, 'refresh them')):
				(kdir / 'Makefile').write_text(
					f'VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = {n}\nEXTRAVERSION =\n')
				self.assertIn(why, trees.drift(kdir))
				self.assertEqual(bool(why), bool(trees.drift(kdir)))

	def test_a_build_without_sparse_says_so(self) -> None:
		refused = ('/work/tree/Makefile:1311: C=2 specified, but sparse is not available or '
			   'not up to date\n  CC      kernel/rseq.o\n')
		self.assertTrue(fixes.sparse_refused(refused))
		self.assertFalse(fixes.sparse_refused('  CHECK   kernel/rseq.c\n  CC      kernel/rseq.o\n'))
		build = fixes.ArchBuild('powerpc32', ['kernel/rseq.o'], sparse_off=True)
		self.assertTrue(build.passed)
		self.assertIn('PASS powerpc32: kernel/rseq.o (without sparse: kbuild refused the checker)',
			      fixes.report(fixes.FixesResult(builds=[build])))

	def test_the_fixes_of_a_tree(self) -> None:
		request = fixes.FixesRequest(Path('build/linux-7.3'))
		self.assertIs(sources.DEBIAN_7_3, request.source)
		self.assertEqual(Path('patches/linux-7.3/fixes').parts[-3:],
				 request.patches.parts[-3:])
		self.assertTrue((request.patches / 'series').is_file())


if __name__ == '__main__':
	unittest.main()
