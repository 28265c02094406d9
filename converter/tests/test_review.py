# SPDX-License-Identifier: GPL-2.0
"""check --diff and --patch: the findings a change adds, with the real spatch
on a small git tree."""

import tempfile
import unittest
from pathlib import Path

from support import quiet_runner
from test_tree import git
from scoped_uaccess.checker import identity, patches, review
from scoped_uaccess.core.errors import UsageError

BEFORE = '''// SPDX-License-Identifier: GPL-2.0
static __always_inline void helper(void) { }

static int old_bug(u32 __user *up, u32 __user *other, u32 *v)
{
	scoped_user_read_access(up, efault)
		unsafe_get_user(*v, other, efault);
	return 0;
efault:
	return -EFAULT;
}

static int touched(u32 __user *up, u32 *v)
{
	scoped_user_read_access(up, efault)
		unsafe_get_user(*v, up, efault);
	return 0;
efault:
	return -EFAULT;
}

static int caller(u32 __user *up, u32 *v)
{
	scoped_user_read_access(up, efault) {
		helper();
		unsafe_get_user(*v, up, efault);
	}
	return 0;
efault:
	return -EFAULT;
}
'''

# old_bug() moves down and keeps its finding; touched() gets one; caller()
# is not touched, but helper() it calls in its scope is made noinline.
AFTER = BEFORE.replace('static __always_inline void helper(void) { }',
		       '/* moved */\n\nstatic noinline void helper(void) { }').replace(
	'''static int touched(u32 __user *up, u32 *v)
{
	scoped_user_read_access(up, efault)
		unsafe_get_user(*v, up, efault);''', '''static int touched(u32 __user *up, u32 *v, u32 __user *q)
{
	scoped_user_read_access(up, efault)
		unsafe_get_user(*v, q, efault);''')


def summary(found: review.ReviewResult) -> list[tuple[str, str, str]]:
	return sorted((f.file, f.cls, f.message.split('(')[0]) for f in found.findings)


class ReviewTest(unittest.TestCase):
	@classmethod
	def setUpClass(cls) -> None:
		cls.tmp = tempfile.TemporaryDirectory()
		cls.tree = Path(cls.tmp.name) / 'tree'
		(cls.tree / 'lib').mkdir(parents=True)
		git(cls.tree, 'init', '-q')
		(cls.tree / 'lib' / 'a.c').write_text(BEFORE)
		(cls.tree / 'lib' / 'plain.c').write_text('int x;\n')
		git(cls.tree, 'add', '-A')
		git(cls.tree, 'commit', '-qm', 'before')
		cls.before = git(cls.tree, 'rev-parse', 'HEAD')
		(cls.tree / 'lib' / 'a.c').write_text(AFTER)
		(cls.tree / 'lib' / 'plain.c').write_text('int y;\n')
		git(cls.tree, 'commit', '-qam', 'lib: Read q')
		cls.after = git(cls.tree, 'rev-parse', 'HEAD')
		git(cls.tree, 'mv', 'lib/a.c', 'lib/b.c')
		git(cls.tree, 'commit', '-qm', 'lib: Rename a.c')
		cls.renamed = git(cls.tree, 'rev-parse', 'HEAD')
		cls.mbox = Path(cls.tmp.name) / 'series.mbox'
		cls.mbox.write_text(git(cls.tree, 'format-patch', '--stdout', f'--base={cls.before}',
					f'{cls.before}..{cls.renamed}') + '\n')

	@classmethod
	def tearDownClass(cls) -> None:
		cls.tmp.cleanup()

	def test_what_the_change_adds_in_whole_files(self) -> None:
		found = review.review(quiet_runner(), review.ReviewRequest(
			self.tree, self.before, self.after))
		self.assertEqual(['lib/a.c'], found.files)
		self.assertEqual([('lib/a.c', 'call-in-region', 'caller'),
				  ('lib/a.c', 'range', 'touched')], summary(found))

	def test_a_rename_adds_nothing(self) -> None:
		found = review.review(quiet_runner(), review.ReviewRequest(
			self.tree, self.after, self.renamed))
		self.assertEqual(['lib/b.c'], found.files)
		self.assertEqual([], found.findings)

	def test_a_series_from_its_base_commit_told_by_patch(self) -> None:
		objects = sorted(p.name for p in (self.tree / '.git' / 'objects').rglob('*'))
		seen = []
		result = review.review_patches(
			quiet_runner(), review.ReviewRequest(self.tree, '', ''), [str(self.mbox)],
			on_patch=lambda patch, found: seen.append((patch.number, summary(found))))
		self.assertEqual(self.before, result.base)
		self.assertEqual([(1, [('lib/a.c', 'call-in-region', 'caller'),
				       ('lib/a.c', 'range', 'touched')]), (2, [])], seen)
		# Nothing written to the tree's repository, no worktree registered.
		self.assertEqual(objects, sorted(p.name for p in (self.tree / '.git' / 'objects').rglob('*')))
		self.assertFalse((self.tree / '.git' / 'worktrees').exists())
		self.assertEqual(self.renamed, git(self.tree, 'rev-parse', 'HEAD'))

	def test_ranges(self) -> None:
		runner = quiet_runner()
		self.assertEqual((self.before, self.after),
				 review.parse_range(runner, self.tree, f'{self.before}..{self.after}'))
		self.assertEqual((self.after, self.renamed),
				 review.parse_range(runner, self.tree, f'{self.after}'))
		self.assertEqual((self.before, self.renamed),
				 review.parse_range(runner, self.tree, f'{self.before}...HEAD'))
		for bad in ('nosuch..HEAD', '-x', 'a..b..c'):
			with self.subTest(bad=bad), self.assertRaises(UsageError):
				review.parse_range(runner, self.tree, bad)
		with self.assertRaises(UsageError):
			review.parse_range(runner, Path(self.tmp.name), 'HEAD~1')


class IdentityTest(unittest.TestCase):
	def test_a_conversion_keeps_the_statement(self) -> None:
		self.assertEqual(identity.statement('\tif (!user_read_access_begin(p, sizeof(*p)))'),
				 identity.statement('\tscoped_user_read_access_size(p, sizeof(*p), Efault) {'))
		self.assertEqual(identity.statement('\t\tunsafe_get_user(x, &p->a, efault);'),
				 identity.statement('unsafe_get_user(x,  &p->a, Efault); /* c */'))
		self.assertEqual(identity.statement('\tif (f(current, &p->m)) {'),
				 identity.statement('\t\tif (f(current, &p->m))'))
		self.assertNotEqual(identity.statement('unsafe_get_user(x, &p->a, e);'),
				    identity.statement('unsafe_get_user(x, &p->b, e);'))

	def test_a_second_copy_is_new(self) -> None:
		self.assertEqual(['a', 'b'], identity.new_ones(['a'], ['a', 'a', 'b'], str))


class PatchesTest(unittest.TestCase):
	def test_an_mbox_is_its_patches(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			mbox = Path(d) / 'x.mbox'
			mbox.write_text('From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH 1/2] a: One\n\n'
					'diff --git a/x b/x\n--- a/x\n+++ b/x\n\nbase-commit: abcdef0\n'
					'From 5678 Mon Sep 17 00:00:00 2001\nSubject: [PATCH 2/2] a:\n Two\n\n'
					'diff --git a/y b/y\n')
			found = patches.read([str(mbox)])
			self.assertEqual([('a: One', 'abcdef0'), ('a: Two', 'abcdef0')],
					 [(p.subject, p.base) for p in found])
			(Path(d) / 'not').write_text('hello\n')
			with self.assertRaises(UsageError):
				patches.read([str(Path(d) / 'not')])


if __name__ == '__main__':
	unittest.main()
