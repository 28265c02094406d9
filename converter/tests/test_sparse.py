# SPDX-License-Identifier: GPL-2.0
"""Sparse gate: which files, warning normalisation, baseline comparison."""

import unittest
from pathlib import Path

from scoped_uaccess.gates import sparse
from scoped_uaccess.kernel import kbuild
from scoped_uaccess.kernel.kbuild import Diagnostic

OUTPUT = '''\
  CHECK   /k/linux/fs/select.c
/k/linux/fs/select.c:120:9: warning: incorrect type in argument 1 (different address spaces)
/k/linux/fs/select.c:120:9:    expected void const volatile [noderef] __user *ptr
/k/linux/fs/select.c:120:9:    got int *
  CC      fs/select.o
fs/select.o: warning: objtool: do_sys_poll+0x1a2: call to memset() with UACCESS enabled
/k/linux/include/linux/uaccess.h:33:1: error: bad constant expression
/k/linux-baseline/lib/usercopy.c:7:2: warning: symbol 'x' was not declared. Should it be static?
make[2]: *** [scripts/Makefile.build:229: fs/select.o] Error 1
'''


class FilesTest(unittest.TestCase):
	def test_c_files_headers_and_always_checked(self) -> None:
		files, unmapped, other = sparse.files_to_check(['lib/usercopy.c', 'kernel/futex/futex.h',
								'include/linux/new.h', 'Documentation/x.rst',
								'arch/arm64/include/asm/uaccess.h'])
		self.assertEqual(['kernel/futex/core.c', 'kernel/futex/pi.c', 'kernel/futex/requeue.c',
				  'kernel/futex/waitwake.c', 'lib/scoped_uaccess_kunit.c', 'lib/usercopy.c'],
				 files)
		self.assertEqual(['include/linux/new.h'], unmapped)
		self.assertEqual(['arch/arm64/include/asm/uaccess.h'], other)

	def test_uaccess_header_table(self) -> None:
		files, _, _ = sparse.files_to_check(['include/linux/uaccess.h'])
		self.assertIn('fs/select.c', files)
		self.assertIn('lib/strncpy_from_user.c', files)


class ParseTest(unittest.TestCase):
	def test_normalised(self) -> None:
		found = kbuild.parse_diagnostics(OUTPUT, [Path('/k/linux'), Path('/k/linux-baseline')])
		self.assertEqual([
			Diagnostic('fs/select.c', 'warning: incorrect type in argument 1 (different address '
				   'spaces) | expected void const volatile [noderef] __user *ptr | got int *',
				   'sparse'),
			Diagnostic('fs/select.o', 'do_sys_poll: call to memset() with UACCESS enabled', 'objtool'),
			Diagnostic('include/linux/uaccess.h', 'error: bad constant expression', 'sparse'),
			Diagnostic('lib/usercopy.c', "warning: symbol 'x' was not declared. Should it be static?",
				   'sparse')], found)

	def test_line_numbers_do_not_matter_but_counts_do(self) -> None:
		base = kbuild.parse_diagnostics('/a/lib/x.c:10:1: warning: w\n', [Path('/a')])
		moved = kbuild.parse_diagnostics('/b/lib/x.c:99:3: warning: w\n', [Path('/b')])
		self.assertEqual([], kbuild.new_diagnostics(base, moved))
		twice = kbuild.parse_diagnostics('/b/lib/x.c:1:1: warning: w\n/b/lib/x.c:5:1: warning: w\n',
					      [Path('/b')])
		self.assertEqual([Diagnostic('lib/x.c', 'warning: w', 'sparse')],
				 kbuild.new_diagnostics(base, twice))
		self.assertEqual([], kbuild.new_diagnostics(twice, base))


if __name__ == '__main__':
	unittest.main()
