# SPDX-License-Identifier: GPL-2.0
"""`convert FILE...` on the scratch kernel tree of test_convert_run: the
real rules on a copy, a diff by default, the files alone written back with
--in-place, one-line refusals that change nothing.  The checker, which
needs a whole kernel tree, is stood in for."""

import io
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import support
from test_convert_run import TIMEOUT, git, make_tree, time_limit
from scoped_uaccess.convert import driver as convert_driver
from scoped_uaccess.convert import files as convert_files
from scoped_uaccess.core.errors import TreeStateError, UsageError


@unittest.skipUnless(shutil.which('spatch'), 'spatch is not installed')
class ConvertFilesTest(unittest.TestCase):
	def setUp(self) -> None:
		fixture = tempfile.TemporaryDirectory()
		self.addCleanup(fixture.cleanup)
		self.root = Path(fixture.name)
		self.kdir = make_tree(self.root)
		(self.kdir / 'Kconfig').write_text('# top\n')
		(self.kdir / 'include/linux').mkdir(parents=True)
		(self.kdir / 'include/linux/uaccess.h').write_text('/* the API */\n')
		git(self.kdir, 'add', '-A')
		git(self.kdir, 'commit', '-qm', 'markers of a tree top')
		(self.root / 'inlines.json').write_text('{}\n')

	def convert(self, *names: str, in_place: bool = False, checker=None):
		out = io.StringIO()
		request = convert_files.FilesRequest(tuple(self.kdir / n for n in names),
						     in_place=in_place, jobs=1)
		with time_limit(TIMEOUT), \
		     mock.patch.object(convert_files.index_cache, 'index',
				       return_value=self.root / 'inlines.json'), \
		     mock.patch.object(convert_driver, 'new_checker_errors',
				       return_value=dict(checker or {})):
			outcome = convert_files.convert_files(support.quiet_runner(), request, out)
		return outcome, out.getvalue()

	def status(self) -> str:
		return git(self.kdir, 'status', '--porcelain')

	def test_a_diff_against_the_tree_and_nothing_written(self) -> None:
		outcome, diff = self.convert('fs/info.c')
		self.assertEqual(0, outcome.exit_status, outcome.summary)
		self.assertIn('1 of 1 region(s) converted in 1 of 1 file(s)', outcome.summary)
		self.assertTrue(diff.startswith('diff --git a/fs/info.c b/fs/info.c\n'), diff[:80])
		self.assertIn('+\tscoped_user_', diff)
		self.assertEqual('', self.status())
		# The diff applies to the tree as it is, from its top.
		subprocess.run(('git', 'apply', '--check', '-'), cwd=self.kdir, input=diff,
			       text=True, check=True)

	def test_in_place_writes_the_files_and_nothing_else(self) -> None:
		worktrees = git(self.kdir, 'worktree', 'list')
		outcome, diff = self.convert('fs/info.c', 'net/one.c', in_place=True)
		self.assertEqual(0, outcome.exit_status, outcome.summary)
		self.assertEqual('', diff)
		self.assertEqual('fs/info.c\nnet/one.c', git(self.kdir, 'diff', '--name-only'))
		self.assertEqual('', git(self.kdir, 'ls-files', '--others'))
		self.assertEqual(worktrees, git(self.kdir, 'worktree', 'list'))
		self.assertEqual([], list(self.kdir.rglob('*.scoped-uaccess.tmp')))

	def test_a_file_no_masking_architecture_builds_is_left_alone(self) -> None:
		outcome, diff = self.convert('arch/powerpc/lib/info.c', in_place=True)
		self.assertIn('0 of 1 region(s) converted in 0 of 1 file(s)', outcome.summary)
		self.assertEqual(('', ''), (diff, self.status()))

	def test_a_checker_error_writes_nothing(self) -> None:
		with self.assertRaises(TreeStateError) as e:
			self.convert('fs/info.c', 'net/one.c', in_place=True,
				     checker={'net/one.c': ['[call] a call']})
		self.assertIn('nothing was written', e.exception.one_line())
		self.assertEqual('', self.status())

	def test_bad_input_is_refused_in_one_line(self) -> None:
		outside = self.root / 'elsewhere.c'
		outside.write_text('int x;\n')
		(self.kdir / 'notes.txt').write_text('x\n')
		for names, words in ((('missing.c',), 'no such file'),
				     (('notes.txt',), 'not a C file')):
			with self.subTest(names=names), self.assertRaises(UsageError) as e:
				self.convert(*names)
			self.assertIn(words, e.exception.one_line())
		with self.assertRaises(UsageError) as e:
			convert_files.convert_files(support.quiet_runner(), convert_files.FilesRequest(
				(self.kdir / 'fs/info.c', outside), tree=self.kdir))
		self.assertIn('is not in the tree', e.exception.one_line())
		with self.assertRaises(UsageError) as e:
			convert_files.convert_files(support.quiet_runner(),
						    convert_files.FilesRequest((outside,)))
		self.assertIn('not in a kernel tree', e.exception.one_line())


if __name__ == '__main__':
	unittest.main()
