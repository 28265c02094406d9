# SPDX-License-Identifier: GPL-2.0
"""Which commit the differential boots build their baseline kernel from."""

import tempfile
import unittest
from pathlib import Path

from support import quiet_runner
from test_tree import git
from scoped_uaccess.kernel import baseline


class BootBaseTest(unittest.TestCase):
	"""A series shaped like ours: API commits (the header, the KUnit suite
	and its Kconfig), then conversions that touch neither."""

	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.kdir = Path(self.tmp.name)
		git(self.kdir, 'init', '-q')
		self.commit('include/linux/uaccess.h', 'pristine\n', 'Linux 6.12.118')
		git(self.kdir, 'tag', 'baseline')

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def commit(self, path: str, text: str, subject: str) -> str:
		file = self.kdir / path
		file.parent.mkdir(parents=True, exist_ok=True)
		file.write_text(text)
		git(self.kdir, 'add', path)
		git(self.kdir, 'commit', '-qm', subject)
		return git(self.kdir, 'rev-parse', 'HEAD')

	def base(self) -> str:
		return baseline.boot_base(quiet_runner(), self.kdir)

	def test_the_base_is_the_last_commit_of_the_api(self) -> None:
		self.commit('include/linux/uaccess.h', 'scopes\n', 'uaccess: Provide scopes')
		self.commit('arch/x86/include/asm/uaccess.h', 'wrappers\n', 'x86/uaccess: Wrappers')
		self.commit('lib/Kconfig.debug', 'config SCOPED_UACCESS_KUNIT_TEST\n', 'uaccess: KUnit')
		api = self.commit('lib/scoped_uaccess_kunit.c', 'suite\n', 'uaccess: KUnit suite')
		self.commit('fs/select.c', 'scoped\n', 'select: Convert')
		self.commit('arch/x86/include/asm/futex.h', 'scoped\n', 'x86/futex: Convert')
		self.assertEqual(api, self.base())
		self.assertEqual('baseline + 4 of the 6 commits, up to "uaccess: KUnit suite"',
				 baseline.describe(quiet_runner(), self.kdir, api))

	def test_a_later_kconfig_change_moves_the_base(self) -> None:
		"""The two kernels share a .config: a commit that changes a Kconfig
		file cannot be on the converted side."""
		self.commit('include/linux/uaccess.h', 'scopes\n', 'uaccess: Provide scopes')
		self.commit('fs/select.c', 'scoped\n', 'select: Convert')
		last = self.commit('drivers/Kconfig', 'config X\n', 'drivers: Add X')
		self.assertEqual(last, self.base())

	def test_no_api_commit_is_the_tag(self) -> None:
		self.commit('fs/select.c', 'scoped\n', 'select: Convert')
		self.assertEqual(git(self.kdir, 'rev-parse', 'baseline'), self.base())

	def test_shares_build_only_without_kconfig_or_api_changes(self) -> None:
		api = self.commit('include/linux/uaccess.h', 'scopes\n', 'uaccess: Provide scopes')
		self.commit('fs/select.c', 'scoped\n', 'select: Convert')
		self.assertTrue(baseline.shares_build(quiet_runner(), self.kdir, api))
		self.assertFalse(baseline.shares_build(quiet_runner(), self.kdir, 'baseline'))
		self.commit('fs/Kconfig', 'config Y\n', 'fs: Add Y')
		self.assertFalse(baseline.shares_build(quiet_runner(), self.kdir, api))

	def test_at_goes_back_to_head_whatever_happens(self) -> None:
		api = self.commit('include/linux/uaccess.h', 'scopes\n', 'uaccess: Provide scopes')
		head = self.commit('fs/select.c', 'scoped\n', 'select: Convert')
		git(self.kdir, 'checkout', '-q', '--detach', head)
		with self.assertRaises(RuntimeError):
			with baseline.At(quiet_runner(), self.kdir, api):
				self.assertFalse((self.kdir / 'fs' / 'select.c').exists())
				raise RuntimeError('build failed')
		self.assertEqual(head, git(self.kdir, 'rev-parse', 'HEAD'))
		self.assertEqual('scoped\n', (self.kdir / 'fs' / 'select.c').read_text())


if __name__ == '__main__':
	unittest.main()
