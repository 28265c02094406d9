# SPDX-License-Identifier: GPL-2.0
"""kernel/builders.py: which architectures build a file, on a small tree
shaped like the kernel's Makefiles and Kconfig."""

import tempfile
import unittest
from pathlib import Path

from scoped_uaccess.kernel import builders

FILES = {
	'arch/x86/Kconfig': 'config 64BIT\n\tbool "64-bit kernel"\n\n'
			    'config X86_32\n\tdef_bool y\n\tdepends on !64BIT\n\n'
			    'config X86_64\n\tdef_bool y\n\tdepends on 64BIT\n\n'
			    'config X86\n\tdef_bool y\n\n'
			    'config IA32_EMULATION\n\tbool "IA32 Emulation"\n\tdepends on X86_64\n\n'
			    'config COMPAT\n\tdef_bool y\n\tdepends on IA32_EMULATION\n\n'
			    'config X86_LEGACY_VM86\n\tbool "vm86"\n\tdepends on X86_32\n\n'
			    'config VM86\n\tbool\n\tdefault X86_LEGACY_VM86\n',
	'arch/powerpc/Kconfig': 'config PPC64\n\tbool\n\nconfig PPC\n\tdef_bool y\n\n'
				'config COMPAT\n\tbool "32-bit binaries"\n\tdepends on PPC64\n',
	'arch/x86/kernel/Makefile': 'obj-y += signal.o signal_$(BITS).o\n'
				    'obj-$(CONFIG_IA32_EMULATION) += signal_32.o\n'
				    'obj-$(CONFIG_VM86) += vm86_32.o\n',
	'arch/x86/lib/Makefile': 'ifeq ($(CONFIG_X86_32),y)\n\tlib-y += checksum_32.o\nelse\n'
				 '\tlib-y += csum-wrappers_64.o\nendif\n',
	'drivers/Makefile': 'obj-y += gpu/\n',
	'drivers/gpu/Makefile': 'obj-$(CONFIG_DRM_I915) += i915/\n',
	'drivers/gpu/Kconfig': 'config DRM_I915\n\ttristate "i915"\n\tdepends on DRM\n'
			       '\tdepends on X86 && PCI\n\n'
			       'config DRM_VIRTIO\n\ttristate "virtio"\n'
			       '\tdepends on X86 || COMPILE_TEST\n',
	'drivers/gpu/i915/Makefile': 'gem-y += \\\n\tgem/i915_gem_busy.o \\\n'
				     '\tgem/i915_gem_execbuffer.o\n'
				     'i915-y += $(gem-y) i915_query.o\nobj-$(CONFIG_DRM_I915) += i915.o\n',
	# Symbols every architecture may select are defined in arch/Kconfig.
	'arch/Kconfig': 'config HAVE_RSEQ\n\tbool\n',
	'init/Kconfig': 'config RSEQ\n\tbool "rseq"\n\tdepends on HAVE_RSEQ\n',
	'kernel/Makefile': 'obj-y = fork.o exit.o\nobj-$(CONFIG_COMPAT) += compat.o\n'
			   'obj-$(CONFIG_RSEQ) += rseq.o\n',
	'lib/Makefile': 'obj-$(CONFIG_DRM_VIRTIO) += virtio.o\n',
}


class BuildersTest(unittest.TestCase):
	@classmethod
	def setUpClass(cls) -> None:
		cls.dir = tempfile.TemporaryDirectory()
		cls.root = Path(cls.dir.name)
		for name, text in FILES.items():
			(cls.root / name).parent.mkdir(parents=True, exist_ok=True)
			(cls.root / name).write_text(text)
		cls.tree = builders.Tree(cls.root)

	@classmethod
	def tearDownClass(cls) -> None:
		cls.dir.cleanup()

	def describe(self, path: str) -> str:
		return builders.builders(self.root, path, self.tree).describe()

	def test_a_generic_object_builds_everywhere(self) -> None:
		self.assertEqual('every architecture', self.describe('kernel/exit.c'))

	def test_a_symbol_of_arch_kconfig_is_no_architecture_s(self) -> None:
		self.assertEqual('every architecture', self.describe('kernel/rseq.c'))

	def test_a_symbol_some_architectures_define(self) -> None:
		self.assertEqual('powerpc (64-bit) and x86 (64-bit)', self.describe('kernel/compat.c'))

	def test_a_driver_that_depends_on_an_architecture(self) -> None:
		self.assertEqual('x86 only', self.describe('drivers/gpu/i915/i915_query.c'))

	def test_a_file_of_a_list_inside_a_composite_object(self) -> None:
		self.assertEqual('x86 only', self.describe('drivers/gpu/i915/gem/i915_gem_execbuffer.c'))

	def test_compile_test_does_not_restrict(self) -> None:
		self.assertEqual('every architecture', self.describe('lib/virtio.c'))

	def test_bits_and_a_second_way_in(self) -> None:
		self.assertEqual('x86 (32-bit) and x86 (64-bit)',
				 self.describe('arch/x86/kernel/signal_32.c'))
		self.assertEqual('x86 (64-bit) only', self.describe('arch/x86/kernel/signal_64.c'))

	def test_a_promptless_symbol_set_by_another(self) -> None:
		self.assertEqual('x86 (32-bit) only', self.describe('arch/x86/kernel/vm86_32.c'))

	def test_the_other_branch_of_an_ifeq(self) -> None:
		self.assertEqual('x86 (32-bit) only', self.describe('arch/x86/lib/checksum_32.c'))
		self.assertEqual('x86 (64-bit) only', self.describe('arch/x86/lib/csum-wrappers_64.c'))

	def test_builds(self) -> None:
		b = builders.builders(self.root, 'kernel/compat.c', self.tree)
		self.assertTrue(b.builds('x86', 64))
		self.assertFalse(b.builds('x86', 32))
		self.assertFalse(b.builds('arm64'))
		self.assertTrue(builders.builders(self.root, 'kernel/exit.c', self.tree).builds('arm64'))


if __name__ == '__main__':
	unittest.main()
