# SPDX-License-Identifier: GPL-2.0
"""The newc writer: byte layout, and what GNU cpio reads back; the initramfs skeleton."""

import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.kernel import cpio, initramfs


class NewcTest(unittest.TestCase):
	def test_header_layout_and_padding(self) -> None:
		data = cpio.archive([cpio.text_file('init', 'abc', 0o755)])
		header = data[:110]
		self.assertEqual(b'070701', header[:6])
		fields = [int(header[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
		ino, mode, uid, gid, nlink, mtime, size, _, _, rmaj, rmin, namesize, check = fields
		self.assertEqual((1, 0o100755, 0, 0, 1, 0, 3), (ino, mode, uid, gid, nlink, mtime, size))
		self.assertEqual((0, 0, 5, 0), (rmaj, rmin, namesize, check))
		# 110 + "init\0" = 115, padded to 116; then "abc" padded to 4
		self.assertEqual(b'init\0\0', data[110:116])
		self.assertEqual(b'abc\0', data[116:120])
		self.assertEqual(b'070701', data[120:126])
		self.assertTrue(data.endswith(b'TRAILER!!!\0' + b'\0' * (-(110 + 11) % 4)))
		self.assertEqual(0, len(data) % 4)

	def test_same_entries_same_bytes(self) -> None:
		entries = [cpio.directory('dev'), cpio.char_device('dev/console', 5, 1)]
		self.assertEqual(cpio.archive(entries), cpio.archive(entries))

	@unittest.skipUnless(shutil.which('cpio'), 'needs GNU cpio')
	def test_gnu_cpio_extracts_it(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			archive = Path(tmp) / 'a.cpio'
			cpio.write(archive, [cpio.directory('bin'), cpio.text_file('bin/hello', 'hi\n'),
					     cpio.symlink('bin/hi', 'hello')])
			out = Path(tmp) / 'out'
			out.mkdir()
			with archive.open('rb') as f:
				subprocess.run(('cpio', '-id', '--quiet'), stdin=f, cwd=out, check=True)
			self.assertEqual('hi\n', (out / 'bin' / 'hello').read_text())
			self.assertEqual('hello', (out / 'bin' / 'hi').readlink().name)


class SkeletonTest(unittest.TestCase):
	def test_directories_then_device_nodes_then_busybox(self) -> None:
		self.assertEqual(['dev', 'proc', 'sys', 'dev/console'],
				 [e.path for e in initramfs.skeleton()])
		with tempfile.NamedTemporaryFile() as busybox:
			full = initramfs.skeleton(busybox=Path(busybox.name), tmp=True, null=True)
		self.assertEqual(['bin', 'dev', 'proc', 'sys', 'tmp', 'dev/console', 'dev/null',
				  'bin/busybox', 'bin/sh'], [e.path for e in full])
		entries = {e.path: e for e in full}
		self.assertEqual((cpio.Kind.CHAR, (5, 1), 0o600),
				 (entries['dev/console'].kind, entries['dev/console'].rdev,
				  entries['dev/console'].perm))
		self.assertEqual(b'busybox', entries['bin/sh'].data)

	def test_busybox_init_mounts_before_the_body(self) -> None:
		script = initramfs.busybox_init('# whose\n', 'run\n', tmp=True)
		self.assertTrue(script.startswith('#!/bin/busybox sh\n# whose\nbb=/bin/busybox\n'))
		self.assertLess(script.index('mount -t tmpfs tmpfs /tmp'), script.index('run\n'))
		self.assertTrue(script.endswith('run\n'))
		self.assertNotIn('/tmp', initramfs.busybox_init('', 'run\n'))

	def test_missing_busybox_is_an_environment_problem(self) -> None:
		with self.assertRaisesRegex(EnvironmentProblem, 'missing'):
			initramfs.require_busybox(Path('/nonexistent/busybox'))


if __name__ == '__main__':
	unittest.main()
