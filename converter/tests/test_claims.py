# SPDX-License-Identifier: GPL-2.0
"""convert/claims.py: a changelog read against its diff and the tree finds
each kind of contradiction, and a patch whose changelog is true passes."""

import tempfile
import unittest
from pathlib import Path

from scoped_uaccess.convert import claims
from scoped_uaccess.kernel.builders import Builders

HEAD = """From 0123 Mon Sep 17 00:00:00 2001
From: A U Thor <a@example.org>
Date: Sun, 6 Dec 2026 11:34:22 +0000
Subject: [PATCH 1/2] lib/info: Convert put_info() to scoped user access

"""
DIFF = """
Signed-off-by: A U Thor <a@example.org>
---
 lib/info.c | 9 ++++-----

diff --git a/lib/info.c b/lib/info.c
--- a/lib/info.c
+++ b/lib/info.c
@@ -10,9 +10,8 @@ static int put_info(struct info __user *info, int n)
 {
-	if (!user_write_access_begin(info, n))
+	if (!access_ok(info, n))
 		return -EFAULT;
-	unsafe_put_user(1, &info->v, Efault);
-	user_write_access_end();
+	scoped_user_write_access_size(info, n, Efault) {
+		unsafe_put_user(1, &info->v, Efault);
+	}
 	return 0;
-- 
2.39.5
"""
TRUE = ('put_info() writes user memory through info.\n\n'
	'put_info() can leave the region early (goto out;): access_ok() of the whole range '
	'stays in front of the scope.')
EVERYWHERE = {'lib/info.c': Builders(frozenset(), '')}
X86_ONLY = {'lib/info.c': Builders(frozenset({('x86', None)}), '')}


class ClaimsTest(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.dir = Path(self.tmp.name)

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def patch(self, body: str, name: str = '0001-a.patch', diff: str = DIFF) -> Path:
		path = self.dir / name
		path.write_text(HEAD + body + '\n' + diff)
		return path

	def test_a_true_changelog_passes(self) -> None:
		self.assertEqual([], claims.check_series([self.patch(TRUE)], EVERYWHERE))

	def test_a_check_said_to_stay_that_the_diff_does_not_have(self) -> None:
		diff = DIFF.replace('+\tif (!access_ok(info, n))\n', '')
		found = claims.check_series([self.patch(TRUE, diff=diff)], EVERYWHERE)
		self.assertIn('says access_ok() stays in front of the scope of put_info()', found[0])

	def test_a_check_the_diff_adds_and_the_changelog_does_not_explain(self) -> None:
		found = claims.check_series([self.patch('put_info() writes info.')], EVERYWHERE)
		self.assertEqual(['0001-a.patch: adds access_ok() in put_info() and the changelog '
				  'does not say why'], found)

	def test_a_check_said_to_stay_in_front_of_two_scopes_covers_both(self) -> None:
		# the same hunk again, in a second function of the file
		hunk = DIFF[DIFF.index('@@'):DIFF.index('-- \n')]
		second = DIFF.replace('-- \n', hunk.replace('put_info', 'put_more') + '-- \n')
		body = ('put_info() and put_more() write user memory through info.\n\n'
			'They can leave the region early (goto out;): without the range check, a range '
			'past the top could take that exit, so access_ok() of the whole range stays in '
			'front of the scope of put_info() and put_more().')
		self.assertEqual([], claims.check_series([self.patch(body, diff=second)], EVERYWHERE))

	def test_a_check_said_to_go_that_stays(self) -> None:
		body = TRUE + ('\n\nOn x86-64 the scope of put_info() masks info instead: the '
			       'access_ok() compare and the LFENCE after it go.')
		found = claims.check_series([self.patch(body)], EVERYWHERE)
		self.assertEqual(['0001-a.patch: says the access_ok() of put_info() goes, and the diff '
				  'keeps one in front of its scope'], found)

	def test_an_architecture_that_does_not_build_the_file(self) -> None:
		body = TRUE + '\n\nOn powerpc the barrier_nospec() goes.'
		self.assertEqual(['0001-a.patch: names powerpc, which builds none of lib/info.c'],
				 claims.check_series([self.patch(body)], X86_ONLY))
		self.assertEqual([], claims.check_series([self.patch(body)], EVERYWHERE))

	def test_checkpatch_clean_where_it_is_not(self) -> None:
		body = TRUE + '\n\nThe patch is checkpatch --strict clean.'
		path = self.patch(body)
		self.assertEqual([], claims.check_series([path], EVERYWHERE, {path.name: (0, 0, 0)}))
		self.assertIn('checkpatch --strict gives 0 errors, 1 warnings, 14 checks',
			      claims.check_series([path], EVERYWHERE, {path.name: (0, 1, 14)})[0])

	def test_a_tool_name(self) -> None:
		body = TRUE + '\n\nConverted with convert_scoped_uaccess.cocci of scoped-uaccess.'
		found = claims.check_series([self.patch(body)], EVERYWHERE)
		self.assertIn('0001-a.patch: names the tool (scoped-uaccess)', found)

	def test_a_template(self) -> None:
		shared = ('\n\nWhere user pointers can be masked, the scope masks the pointer. A bad '
			  'pointer faults on its first access.')
		one = self.patch(TRUE + shared, '0001-a.patch')
		two = self.patch(TRUE.replace('put_info', 'put_more') + shared, '0002-b.patch',
				 DIFF.replace('put_info', 'put_more'))
		found = claims.check_series([one, two], EVERYWHERE)
		self.assertTrue(any('share the paragraph' in f for f in found), found)
		self.assertTrue(any('0002-b.patch: shares 2 sentences' in f for f in found), found)


if __name__ == '__main__':
	unittest.main()
