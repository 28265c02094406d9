# SPDX-License-Identifier: GPL-2.0
"""check --diff and --patch: the findings a change adds in the functions it
touches, with the real spatch on a small git tree."""

import tempfile
import unittest
from pathlib import Path

from support import quiet_runner
from test_tree import git
from scoped_uaccess.checker import review
from scoped_uaccess.core.errors import UsageError

BEFORE = '''// SPDX-License-Identifier: GPL-2.0
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

static int untouched(u32 __user *up, u32 __user *other, u32 *v)
{
	scoped_user_read_access(up, efault)
		unsafe_get_user(*v, other, efault);
	return 0;
efault:
	return -EFAULT;
}
'''

# old_bug() is reformatted but keeps its finding; touched() gets one;
# untouched() keeps its old one and is not part of the change.
AFTER = BEFORE.replace('''static int old_bug(u32 __user *up, u32 __user *other, u32 *v)
{''', '''static int old_bug(u32 __user *up, u32 __user *other, u32 *v)
{
	/* reformatted */''').replace('''static int touched(u32 __user *up, u32 *v)
{
	scoped_user_read_access(up, efault)
		unsafe_get_user(*v, up, efault);''', '''static int touched(u32 __user *up, u32 *v, u32 __user *q)
{
	scoped_user_read_access(up, efault)
		unsafe_get_user(*v, q, efault);''')


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
		(cls.tree / 'lib' / 'a.c').write_text(AFTER)
		(cls.tree / 'lib' / 'plain.c').write_text('int y;\n')
		git(cls.tree, 'commit', '-qam', 'lib: Read q')
		cls.patch = Path(cls.tmp.name) / 'p.patch'
		cls.patch.write_text(git(cls.tree, 'format-patch', '--stdout', '-1') + '\n')
		git(cls.tree, 'reset', '-q', '--hard', 'HEAD~1')

	@classmethod
	def tearDownClass(cls) -> None:
		cls.tmp.cleanup()

	def test_only_the_new_finding_in_a_touched_function(self) -> None:
		runner = quiet_runner()
		head = git(self.tree, 'rev-parse', 'HEAD')
		applied = review.apply_patches(runner, self.tree, [self.patch],
					       Path(self.tmp.name) / 'wt-review')
		self.assertEqual(head, git(self.tree, 'rev-parse', 'HEAD'), 'the tree is not touched')
		found = review.review(runner, review.ReviewRequest(self.tree, head, applied))
		self.assertEqual(['lib/a.c'], found.files)
		self.assertEqual([('lib/a.c', 'range', 'touched')],
				 [(f.file, f.cls, f.message.split('(')[0]) for f in found.findings])
		self.assertEqual(2, len(found.old_ids))

	def test_touched_lines_are_whole_functions(self) -> None:
		diff = ('@@ -10,8 +11,8 @@ static int touched(u32 __user *up, u32 *v)\n x\n'
			'@@ -30 +31,0 @@\n-y\n')
		self.assertEqual([(11, 18)], review.touched_lines(diff))

	def test_a_range_needs_two_dots(self) -> None:
		self.assertEqual(('v7.3', 'HEAD'), review.parse_range('v7.3..'))
		with self.assertRaises(UsageError):
			review.parse_range('v7.3')


if __name__ == '__main__':
	unittest.main()
