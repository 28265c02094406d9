# SPDX-License-Identifier: GPL-2.0
"""Tree state decisions on a tiny synthetic kernel tarball."""

import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from support import quiet_runner
from scoped_uaccess.kernel import tree, worktree
from scoped_uaccess.core.errors import EnvironmentProblem, TreeStateError
from scoped_uaccess.kernel.tree import KernelSource, TreeRequest, TreeState

MAKEFILE = 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = {sublevel}\nEXTRAVERSION =\n'
GIT_ENV = {'GIT_AUTHOR_NAME': 'Test Dev', 'GIT_AUTHOR_EMAIL': 'dev@example.org',
	   'GIT_COMMITTER_NAME': 'Test Dev', 'GIT_COMMITTER_EMAIL': 'dev@example.org'}


def git(cwd: Path, *args: str) -> str:
	return subprocess.run(('git', *args), cwd=cwd, check=True, capture_output=True, text=True,
			      env=dict(os.environ, **GIT_ENV)).stdout.strip()


def make_tarball(where: Path, sublevel: int = 118) -> Path:
	"""A tarball shaped like Debian's linux-source-6.12 (one top directory)."""
	top = where / 'src' / 'linux-source-6.12'
	(top / 'lib').mkdir(parents=True)
	(top / 'Makefile').write_text(MAKEFILE.format(sublevel=sublevel))
	(top / '.gitignore').write_text('*.o\n/*\n')	# as Debian's: ignores everything
	(top / 'lib' / 'a.c').write_text('int a;\n')
	(top / 'lib' / 'b.c').write_text('int b;\n')
	(top / 'lib' / 'c.c').write_text(''.join(f'int c{i};\n' for i in range(30)))
	tarball = where / f'linux-source-6.12-{sublevel}.tar.xz'
	subprocess.run(('tar', '-cJf', str(tarball), '-C', str(where / 'src'), 'linux-source-6.12'),
		       check=True)
	shutil.rmtree(where / 'src')
	return tarball


class TreeTest(unittest.TestCase):
	@classmethod
	def setUpClass(cls) -> None:
		cls.fixture = tempfile.TemporaryDirectory()
		root = Path(cls.fixture.name)
		cls.source = KernelSource('linux-source-6.12', '6.12', version='6.12.118',
					  tarball=make_tarball(root))
		cls.other_version = make_tarball(root, sublevel=99)
		# The series: two patches made on a tree extracted the real way.
		scratch = root / 'scratch'
		tree.prepare(quiet_runner(), TreeRequest(scratch, root / 'none', source=cls.source))
		cls.baseline = git(scratch, 'rev-parse', 'baseline')
		(scratch / 'lib' / 'a.c').write_text('int a;\nint a2;\n')
		git(scratch, 'commit', '-qam', 'lib: Add a2')
		(scratch / 'lib' / 'b.c').write_text('int b;\nint b2;\n')
		git(scratch, 'commit', '-qam', 'lib: Add b2')
		cls.patches = root / 'patches'
		git(scratch, 'format-patch', '-q', '-o', str(cls.patches), 'baseline..HEAD')
		names = sorted(p.name for p in cls.patches.glob('*.patch'))
		(cls.patches / 'series').write_text('# the series\n' + '\n'.join(names) + '\n')
		# The same kind of series made with more context: other patch ids.
		(scratch / 'lib' / 'c.c').write_text(''.join(f'int c{i};\n' for i in range(30) if i != 15))
		git(scratch, 'commit', '-qam', 'lib: Drop c15')
		cls.wide = root / 'wide'
		git(scratch, 'format-patch', '-q', '-U10', '-o', str(cls.wide), 'baseline..HEAD')
		names = sorted(p.name for p in cls.wide.glob('*.patch'))
		(cls.wide / 'series').write_text('\n'.join(names) + '\n')
		shutil.rmtree(scratch)

	@classmethod
	def tearDownClass(cls) -> None:
		cls.fixture.cleanup()

	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.kdir = Path(self.tmp.name) / 'linux'
		self.runner = quiet_runner()

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def request(self, force: bool = False, patches: Path = None, **kw) -> TreeRequest:
		return TreeRequest(self.kdir, patches or self.patches, force=force,
				   source=kw.get('source', self.source))

	def prepare(self, **kw) -> tree.TreeResult:
		return tree.prepare(self.runner, self.request(**kw))

	def state(self) -> TreeState:
		return tree.assess(self.runner, self.request()).state

	def head(self) -> str:
		return git(self.kdir, 'rev-parse', 'HEAD')

	def subjects(self) -> list[str]:
		return git(self.kdir, 'log', '--format=%s', 'baseline..HEAD').splitlines()[::-1]

	def test_fresh_extracts_commits_baseline_and_applies_series(self) -> None:
		result = self.prepare()
		self.assertIs(TreeState.MISSING, result.before.state)
		self.assertEqual(['lib: Add a2', 'lib: Add b2'], self.subjects())
		self.assertEqual('int b;\nint b2;\n', (self.kdir / 'lib' / 'b.c').read_text())
		self.assertIs(TreeState.UP_TO_DATE, self.state())
		# Nothing else is left next to the tree (the temporary extraction).
		self.assertEqual(['linux'], os.listdir(self.kdir.parent))

	def test_baseline_commit_is_reproducible(self) -> None:
		self.prepare()
		self.assertEqual(self.baseline, git(self.kdir, 'rev-parse', 'baseline'))
		# The Debian .gitignore ignores everything; -f added the files anyway.
		self.assertIn('lib/a.c', git(self.kdir, 'ls-tree', '-r', '--name-only', 'baseline'))

	def test_up_to_date_changes_nothing(self) -> None:
		self.prepare()
		head = self.head()
		result = self.prepare()
		self.assertIs(TreeState.UP_TO_DATE, result.before.state)
		self.assertEqual([], result.actions)
		self.assertEqual(head, self.head())

	def test_patches_with_more_context_still_match(self) -> None:
		self.prepare(patches=self.wide)
		result = self.prepare(patches=self.wide)
		self.assertIs(TreeState.UP_TO_DATE, result.before.state)
		self.assertEqual(3, result.before.applied)

	def test_prefix_gets_the_rest(self) -> None:
		self.prepare()
		git(self.kdir, 'reset', '-q', '--hard', 'HEAD~1')
		self.assertIs(TreeState.PREFIX, self.state())
		result = self.prepare()
		self.assertEqual([sorted(p.name for p in self.patches.glob('*.patch'))[1]], result.applied)
		self.assertEqual(['lib: Add a2', 'lib: Add b2'], self.subjects())

	def test_baseline_only_is_an_empty_prefix(self) -> None:
		self.prepare()
		git(self.kdir, 'reset', '-q', '--hard', 'baseline')
		self.assertEqual(TreeState.PREFIX, self.state())
		self.assertEqual(2, len(self.prepare().applied))

	def test_the_first_patches_only(self) -> None:
		# The 7.3 tree of another 7.3.x: the checker patch, not the conversions.
		first = tree.prepare(self.runner, TreeRequest(self.kdir, self.patches,
							      source=self.source, upto=1))
		self.assertEqual(1, len(first.applied))
		self.assertEqual(['lib: Add a2'], self.subjects())
		self.assertIs(TreeState.UP_TO_DATE, tree.assess(self.runner, TreeRequest(
			self.kdir, self.patches, source=self.source, upto=1)).state)
		self.assertEqual(1, len(self.prepare().applied))

	def test_dirty_is_refused_then_forced(self) -> None:
		self.prepare()
		head = self.head()
		(self.kdir / 'lib' / 'a.c').write_text('local edit\n')
		with self.assertRaises(TreeStateError) as cm:
			self.prepare()
		self.assertIn('uncommitted changes', cm.exception.problem)
		self.assertIn('FORCE=1', cm.exception.fix)
		self.assertEqual('local edit\n', (self.kdir / 'lib' / 'a.c').read_text())
		result = self.prepare(force=True)
		self.assertEqual(['reset to baseline + 2 patch(es)'], result.actions)
		self.assertEqual('int a;\nint a2;\n', (self.kdir / 'lib' / 'a.c').read_text())
		self.assertEqual(head, self.head())

	def test_extra_commit_is_refused(self) -> None:
		self.prepare()
		(self.kdir / 'lib' / 'a.c').write_text('wip\n')
		git(self.kdir, 'commit', '-qam', 'WIP')
		self.assertIs(TreeState.DIVERGED, self.state())
		with self.assertRaises(TreeStateError) as cm:
			self.prepare()
		self.assertIn('1 commit(s) beyond the 2 of the series', cm.exception.problem)
		b_mtime = (self.kdir / 'lib' / 'b.c').stat().st_mtime_ns
		result = self.prepare(force=True)
		self.assertEqual(['reset to baseline + 2 patch(es)'], result.actions)
		self.assertEqual(['lib: Add a2', 'lib: Add b2'], self.subjects())
		self.assertEqual('int a;\nint a2;\n', (self.kdir / 'lib' / 'a.c').read_text())
		# Files of the kept patches are not rewritten: builds stay incremental.
		self.assertEqual(b_mtime, (self.kdir / 'lib' / 'b.c').stat().st_mtime_ns)

	def test_different_commit_is_refused(self) -> None:
		self.prepare()
		git(self.kdir, 'reset', '-q', '--hard', 'baseline')
		(self.kdir / 'lib' / 'a.c').write_text('other\n')
		git(self.kdir, 'commit', '-qam', 'Something else')
		with self.assertRaises(TreeStateError) as cm:
			self.prepare()
		self.assertIn('commit 1 on baseline is not patch 1', cm.exception.problem)
		result = self.prepare(force=True)
		self.assertEqual(['reset to baseline + 0 patch(es)', 'applied 2 patch(es)'], result.actions)
		self.assertEqual(['lib: Add a2', 'lib: Add b2'], self.subjects())

	def test_changed_later_patch_keeps_the_earlier_ones(self) -> None:
		self.prepare()
		changed = Path(self.tmp.name) / 'changed'
		shutil.copytree(self.patches, changed)
		second = sorted(changed.glob('*.patch'))[1]
		second.write_text(second.read_text().replace('+int b2;', '+int b3;'))
		self.assertIs(TreeState.DIVERGED, tree.assess(self.runner, self.request(patches=changed)).state)
		result = self.prepare(force=True, patches=changed)
		self.assertEqual(['reset to baseline + 1 patch(es)', 'applied 1 patch(es)'], result.actions)
		self.assertEqual('int b;\nint b3;\n', (self.kdir / 'lib' / 'b.c').read_text())

	def test_wrong_version_is_refused_then_reextracted(self) -> None:
		other = KernelSource('x', '6.12', version='6.12.99', tarball=self.other_version,
				     topdir='linux-source-6.12')
		tree.prepare(self.runner, self.request(source=other, patches=Path(self.tmp.name) / 'none'))
		with self.assertRaises(TreeStateError) as cm:
			self.prepare()
		self.assertIn('another kernel version', cm.exception.problem)
		self.assertIn('6.12.99', cm.exception.problem)
		result = self.prepare(force=True)
		self.assertEqual(['extracted', 'applied 2 patch(es)'], result.actions)
		self.assertEqual(self.baseline, git(self.kdir, 'rev-parse', 'baseline'))

	def test_tree_without_baseline_tag_is_refused(self) -> None:
		self.prepare()
		git(self.kdir, 'tag', '-d', 'baseline')
		self.assertIs(TreeState.NO_BASELINE, self.state())
		with self.assertRaises(TreeStateError):
			self.prepare()

	def test_failed_am_restores_the_tree_and_names_the_patch(self) -> None:
		broken = Path(self.tmp.name) / 'broken'
		shutil.copytree(self.patches, broken)
		second = sorted(broken.glob('*.patch'))[1]
		second.write_text(second.read_text().replace(' int b;', ' int c;'))
		with self.assertRaises(TreeStateError) as cm:
			self.prepare(patches=broken)
		self.assertIn(second.name, cm.exception.problem)
		self.assertEqual(git(self.kdir, 'rev-parse', 'baseline'), self.head())
		self.assertFalse((self.kdir / '.git' / 'rebase-apply').exists())
		self.assertEqual('', git(self.kdir, 'status', '--porcelain'))

	def test_missing_tarball_names_make_deps(self) -> None:
		gone = KernelSource('linux-source-6.12', '6.12', version='6.12.118',
				    tarball=Path(self.tmp.name) / 'gone.tar.xz', topdir='x')
		with self.assertRaises(EnvironmentProblem) as cm:
			self.prepare(source=gone)
		self.assertIn('make deps', cm.exception.fix)
		self.assertFalse(self.kdir.exists())

	def test_series_naming_a_missing_file(self) -> None:
		patches = Path(self.tmp.name) / 'p'
		patches.mkdir()
		(patches / 'series').write_text('0001-missing.patch\n')
		with self.assertRaises(TreeStateError):
			self.prepare(patches=patches)

	def test_dry_run_changes_nothing(self) -> None:
		tree.prepare(quiet_runner(dry_run=True), self.request())
		self.assertFalse(self.kdir.exists())

	def test_worktree_follows_the_commit_and_refuses_local_changes(self) -> None:
		self.prepare()
		wt = Path(self.tmp.name) / 'wt'
		worktree.worktree(self.runner, self.kdir, wt, 'baseline')
		self.assertEqual(git(self.kdir, 'rev-parse', 'baseline'), git(wt, 'rev-parse', 'HEAD'))
		worktree.worktree(self.runner, self.kdir, wt, 'HEAD')
		self.assertEqual(self.head(), git(wt, 'rev-parse', 'HEAD'))
		(wt / 'lib' / 'a.c').write_text('changed\n')
		with self.assertRaises(TreeStateError):
			worktree.worktree(self.runner, self.kdir, wt, 'baseline')
		# A scratch worktree is reset instead, untracked files included.
		(wt / 'lib' / 'new.c').write_text('new\n')
		worktree.worktree(self.runner, self.kdir, wt, 'baseline', scratch=True)
		self.assertEqual('int a;\n', (wt / 'lib' / 'a.c').read_text())
		self.assertFalse((wt / 'lib' / 'new.c').exists())
		self.assertEqual(['lib/a.c', 'lib/b.c'], worktree.changed_files(self.runner, self.kdir, 'baseline'))

	def test_worktree_of_another_repository_is_refused(self) -> None:
		self.prepare()
		other = Path(self.tmp.name) / 'other'
		other.mkdir()
		git(other, 'init', '-q')
		with self.assertRaises(TreeStateError):
			worktree.worktree(self.runner, self.kdir, other, 'baseline')

	def test_makefile_version(self) -> None:
		self.prepare()
		self.assertEqual('6.12.118', tree.makefile_version(self.kdir))
		self.assertIsNone(tree.makefile_version(Path(self.tmp.name) / 'nowhere'))


if __name__ == '__main__':
	unittest.main()
