# SPDX-License-Identifier: GPL-2.0
"""validate: which objects are built for which architecture, and which
kernels it shares with the KUnit gate."""

import dataclasses
import unittest

from support import REPO
from scoped_uaccess.convert import driver, targets
from scoped_uaccess.core import paths
from scoped_uaccess.gates import fixes, validate
from scoped_uaccess.kernel.toolchains import toolchain
from scoped_uaccess.kunit import suites
from scoped_uaccess.sweep import guest
from scoped_uaccess.userspace import syscalls


class ValidatePlanTest(unittest.TestCase):
	def test_objects_by_arch(self) -> None:
		plan = validate.objects_by_arch([
			'arch/x86/kernel/signal_64.c', 'arch/x86/kernel/vm86_32.c',
			'arch/powerpc/kernel/signal_32.c', 'fs/readdir.c',
			'arch/powerpc/include/asm/futex.h', 'Documentation/x.rst'])
		self.assertEqual(['arch/x86/kernel/signal_64.o', 'fs/readdir.o'], plan['x86_64'])
		self.assertEqual(['arch/x86/kernel/vm86_32.o'], plan['i386'])
		self.assertEqual(['fs/readdir.o'], plan['arm64'])
		self.assertIn('arch/powerpc/kernel/signal_32.o', plan['powerpc'])
		self.assertIn('kernel/futex/core.o', plan['powerpc'])
		self.assertEqual([o for o in plan['powerpc'] if o != 'arch/powerpc/kernel/signal_64.o'],
				 plan['powerpc32'])
		self.assertNotIn('arm', plan)

	def test_signal_64_not_on_ppc32(self) -> None:
		plan = validate.objects_by_arch(['arch/powerpc/kernel/signal_64.c'])
		self.assertEqual({'powerpc': ['arch/powerpc/kernel/signal_64.o']}, plan)

	def test_align_builds_on_ppc32(self) -> None:
		# emulate_spe() exists only with CONFIG_SPE, a 32-bit e500 option.
		plan = validate.objects_by_arch(['arch/powerpc/kernel/align.c'])
		self.assertEqual({'powerpc': ['arch/powerpc/kernel/align.o'],
				  'powerpc32': ['arch/powerpc/kernel/align.o']}, plan)

	def test_i915_builds_on_x86_64_only(self) -> None:
		plan = validate.objects_by_arch(['drivers/gpu/drm/i915/i915_query.c', 'fs/select.c'])
		self.assertEqual(['drivers/gpu/drm/i915/i915_query.o', 'fs/select.o'], plan['x86_64'])
		self.assertEqual(['fs/select.o'], plan['arm64'])


if __name__ == '__main__':
	unittest.main()


class SharedKernelTest(unittest.TestCase):
	"""validate and the x86_64 sweep boot the gcc KUnit kernel as the
	converted one: same directory, same configuration, same tree."""

	def test_the_converted_run_is_the_gcc_kunit_build(self) -> None:
		kunit = suites.KunitRequest(kdir=paths.DEFAULT_KDIR, toolchain=toolchain('gcc'))
		user = syscalls.UserspaceRequest(kdir=paths.CONVERTED_TREE, name=paths.CONVERTED_RUN)
		self.assertEqual(kunit.build_dir, user.build_dir)
		self.assertEqual(kunit.kunitconfig, syscalls.CONFIG)
		self.assertEqual(kunit.build_dir,
				 guest.target('x86_64').build_dir(paths.CONVERTED_RUN))

	def test_other_runs_have_their_own_directory(self) -> None:
		user = syscalls.UserspaceRequest(kdir=paths.CONVERTED_TREE, name=paths.BASELINE_RUN)
		self.assertEqual(paths.OUT / f'user-{paths.BASELINE_RUN}', user.build_dir)
		self.assertNotEqual(paths.kunit_build_dir('gcc'), user.build_dir)
		self.assertEqual(REPO / 'testcases' / 'kernel' / 'x86_64.config', syscalls.CONFIG)


class OtherTreeTest(unittest.TestCase):
	"""build/linux-7.3 gets worktrees and build directories of its own, so
	that its kernels never reconfigure those of build/linux."""

	def test_the_current_kernel_builds_apart(self) -> None:
		other = paths.BUILD / 'linux-7.3'
		self.assertEqual('', paths.tree_suffix(paths.DEFAULT_KDIR))
		self.assertEqual('-7.3', paths.tree_suffix(other))
		self.assertEqual(paths.BUILD / 'wt-validate-converted-7.3', paths.converted_tree(other))
		self.assertEqual(paths.CONVERTED_TREE, paths.converted_tree(paths.DEFAULT_KDIR))
		kunit = suites.KunitRequest(kdir=other, toolchain=toolchain('gcc'))
		self.assertEqual(paths.OUT / 'kunit-gcc-7.3', kunit.build_dir)
		self.assertEqual('kunit-gcc-7.3', kunit.stem)
		# The worktree it is built from does not change where it is built.
		moved = dataclasses.replace(kunit, kdir=paths.converted_tree(other), out=kunit.build_dir)
		self.assertEqual(kunit.build_dir, moved.build_dir)
		# The x86_64 sweep boots that kernel as the converted one; its
		# baseline and the ppc64le kernels are the tree's own too.
		x86, ppc = guest.target('x86_64'), guest.target('ppc64le')
		self.assertEqual(kunit.build_dir, x86.build_dir(paths.CONVERTED_RUN, other))
		self.assertEqual(paths.OUT / 'user-validate-baseline-7.3',
				 x86.build_dir(paths.BASELINE_RUN, other))
		self.assertEqual(paths.OUT / 'faultsweep-ppc64le-converted-7.3',
				 ppc.build_dir('converted', other))
		self.assertEqual(paths.OUT / 'faultsweep-ppc64le-converted', ppc.build_dir('converted'))

	def test_every_scratch_place_of_a_tree_follows_one_suffix(self) -> None:
		"""The conversions' worktree and results, the fixes' worktree and
		build directories: paths.tree_suffix(), as validate's."""
		other = paths.BUILD / 'linux-7.3'
		for kdir, suffix in ((paths.DEFAULT_KDIR, ''), (other, '-7.3')):
			self.assertEqual(paths.BUILD / f'wt-convert{suffix}', driver.default_worktree(kdir))
			self.assertEqual(paths.RESULTS / f'convert-regen{suffix}',
					 targets.out_dir(kdir, regen=True))
			request = fixes.FixesRequest(kdir)
			self.assertEqual(paths.BUILD / f'wt-apply{suffix}', request.worktree)
			self.assertEqual(paths.OUT / f'apply{suffix}-arm64', request.build_dir('arm64'))

	def test_the_userspace_runs_of_another_tree_are_its_own(self) -> None:
		"""validate --kdir build/linux-7.3 and gate userspace-7.3 boot the
		sweep's x86_64 kernels of that tree, and keep their results apart."""
		other = paths.BUILD / 'linux-7.3'
		for name in (paths.CONVERTED_RUN, paths.BASELINE_RUN):
			user = syscalls.UserspaceRequest(kdir=paths.converted_tree(other), name=name,
							  tree=other)
			self.assertEqual(guest.target('x86_64').build_dir(name, other), user.build_dir)
			self.assertEqual(f'userspace-{name}-7.3', user.results_stem)
			self.assertEqual(paths.RESULTS / f'userspace-{name}-7.3.log',
					 syscalls.results_log(name, other))
		self.assertEqual(paths.RESULTS / 'userspace-b.log', syscalls.results_log('b'))
		self.assertEqual(paths.OUT / 'validate-arm64-7.3', paths.validate_build_dir('arm64', other))
		self.assertEqual(paths.OUT / 'validate-arm64', paths.validate_build_dir('arm64'))
