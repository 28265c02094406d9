# SPDX-License-Identifier: GPL-2.0
"""The conversion driver's pure parts: report lines, subjects, conversion.json,
commit messages and the comparison of two exports of a series."""

import json
import unittest

from scoped_uaccess.convert import changelog, commits, install
from scoped_uaccess.convert import regions as rg
from scoped_uaccess.analysis import status
from scoped_uaccess.analysis.status import Reason, Status, Tag
from scoped_uaccess.kernel import series
from scoped_uaccess.kernel.builders import Builders

REPORT = '''\
fs/readdir.c:224:6: REGION [converted-fault-label] filldir(): scoped_user_write_access_size(dirent, reclen, efault)
./kernel/exit.c:1780:5: REGION [skip:pointer-modified] kernel_waitid(): infop is assigned in the region
init_defrag: 12 ms
arch/x86/kernel/signal_64.c:100:1-17: REGION [converted-masked] restore_sigcontext(): scoped_user_read_access(sc, Efault)
not a region line: REGION [x] y
'''


class ParseRegionsTest(unittest.TestCase):
	def test_lines(self) -> None:
		regions = rg.parse_regions(REPORT)
		self.assertEqual(['arch/x86/kernel/signal_64.c', 'fs/readdir.c', 'kernel/exit.c'],
				 [r.file for r in regions])
		r = regions[1]
		self.assertEqual((224, 6, 'filldir', 'converted-fault-label'),
				 (r.line, r.col, r.function, str(r.tag)))
		self.assertEqual(('fault-label', []), (r.shape, r.transformations))
		self.assertFalse(r.skipped)
		self.assertIs(Reason.POINTER_MODIFIED, regions[2].reason)
		self.assertTrue(regions[2].skipped)

	def test_duplicates_of_two_parse_variants_count_once(self) -> None:
		self.assertEqual(3, len(rg.parse_regions(REPORT + REPORT)))


class PrefixTest(unittest.TestCase):
	CASES = {
		'arch/x86/kernel/signal_64.c': 'x86/signal',
		'arch/x86/kernel/signal_32.c': 'x86/signal',
		'arch/x86/kernel/sys_ia32.c': 'x86/sys_ia32',
		'arch/x86/lib/usercopy_64.c': 'x86/lib',
		'arch/x86/include/asm/checksum_32.h': 'x86/checksum',
		'arch/x86/kvm/x86.c': 'KVM: x86',
		'arch/powerpc/kernel/signal_32.c': 'powerpc/signal32',
		'arch/powerpc/kernel/signal_64.c': 'powerpc/signal64',
		'arch/powerpc/kernel/ptrace/ptrace-view.c': 'powerpc/ptrace',
		'arch/powerpc/include/asm/futex.h': 'powerpc/futex',
		'arch/arm/kernel/signal.c': 'ARM/signal',
		'drivers/gpu/drm/i915/gem/i915_gem_execbuffer.c': 'drm/i915/gem',
		'drivers/gpu/drm/i915/i915_query.c': 'drm/i915',
		'io_uring/net.c': 'io_uring/net',
		'fs/readdir.c': 'fs/readdir',
		'kernel/exit.c': 'exit',
		'kernel/futex/core.c': 'futex',
		'lib/strncpy_from_user.c': 'lib/strncpy_from_user',
		'mm/gup.c': 'mm/gup',
		'net/core/scm.c': 'net: scm',
	}

	def test_from_path(self) -> None:
		for path, prefix in self.CASES.items():
			with self.subTest(path=path):
				self.assertEqual(prefix, commits.prefix_from_path(path))

	def test_history_wins_by_majority(self) -> None:
		subjects = ['select: Convert to scoped user access', 'fs/select: Fix a typo',
			    'select: Use masked access', 'Merge branch x', 'Linux 6.12.118 (Debian)']
		self.assertEqual('select', commits.prefix_from_history(subjects))

	def test_history_keeps_two_level_prefixes(self) -> None:
		self.assertEqual('KVM: x86', commits.prefix_from_history(['KVM: x86: Do a thing']))

	def test_no_history(self) -> None:
		self.assertIsNone(commits.prefix_from_history(['Linux 6.12.118 (Debian linux-source-6.12)']))
		self.assertIsNone(commits.prefix_from_history([]))

	def test_groups_one_commit_per_prefix(self) -> None:
		groups = commits.group_files({'arch/x86/kernel/signal_64.c': 'x86/signal',
					      'fs/readdir.c': 'fs/readdir',
					      'arch/x86/kernel/signal_32.c': 'x86/signal'})
		self.assertEqual([('x86/signal', ['arch/x86/kernel/signal_32.c',
						  'arch/x86/kernel/signal_64.c']),
				  ('fs/readdir', ['fs/readdir.c'])], groups)


class TagTest(unittest.TestCase):
	def test_a_tag_is_its_parts(self) -> None:
		tag = Tag.parse('converted-masked+local-pointer+label')
		self.assertEqual(Tag('masked', ('local-pointer', 'label')), tag)
		self.assertEqual('converted-masked+local-pointer+label', str(tag))
		self.assertIs(Status.CONVERTED, tag.status)
		skip = Tag.parse('skip:shared-label')
		self.assertEqual((Reason.SHARED_LABEL, Status.SKIPPED), (skip.reason, skip.status))
		self.assertEqual('skip:shared-label', str(skip))

	def test_tags_sort_as_their_text(self) -> None:
		texts = ['skip:keep', 'converted-no-fault', 'skip:begin-failure', 'converted-masked+label']
		self.assertEqual(sorted(texts), [str(t) for t in sorted(Tag.parse(t) for t in texts)])

	def test_an_unknown_reason_or_tag_is_refused(self) -> None:
		for text in ('skip:no-such-reason', 'converted', 'open'):
			with self.assertRaises(ValueError, msg=text):
				Tag.parse(text)

	def test_every_reason_has_a_line_of_its_own(self) -> None:
		table = status.reasons_table()
		self.assertEqual(len(Reason) + 2, len(table))
		for r in Reason:
			self.assertTrue(r.description and '\n' not in r.description, r)
			self.assertIn(f'| `{r.value}` |', '\n'.join(table))


def _entries() -> list[rg.Entry]:
	regions = rg.parse_regions(REPORT)
	return [rg.Entry(r, r.status, r.reason) for r in regions]


class ConversionJsonTest(unittest.TestCase):
	def test_one_entry_per_region(self) -> None:
		entries = _entries()
		entries[0].patch = '0013-x86-signal-Convert-to-scoped-user-access.patch'
		data = json.loads(rg.conversion_json(entries, {'version': '6.12.118'}))
		self.assertEqual('6.12.118', data['version'])
		self.assertEqual(3, len(data['regions']))
		first, _, skipped = data['regions']
		self.assertEqual({'file': 'arch/x86/kernel/signal_64.c', 'line': 100,
				  'function': 'restore_sigcontext', 'status': 'converted',
				  'shape': 'masked', 'transformations': [],
				  'patch': '0013-x86-signal-Convert-to-scoped-user-access.patch'}, first)
		self.assertEqual('skipped', skipped['status'])
		self.assertEqual('pointer-modified', skipped['reason'])
		self.assertNotIn('reason', first)

	def test_summary_counts(self) -> None:
		text = rg.summary_markdown(_entries(), {'version': '6.12.118'}, ['0013-a.patch'])
		self.assertIn('3 open-coded regions: 2 converted (67%), 1 skipped.', text)
		self.assertIn('| skipped, reason | regions |', text)
		self.assertIn('| pointer-modified | 1 |', text)
		self.assertIn('| kernel/exit.c:1780 | kernel_waitid() | pointer-modified |', text)
		self.assertNotIn(' s.', text)


OLD_C = """static int put_info(struct info __user *info, int v)
{
	if (!user_write_access_begin(info, sizeof(*info)))
		return -EFAULT;
	unsafe_put_user(v, &info->v, Efault);
	user_write_access_end();
	return 0;
Efault:
	user_write_access_end();
	return -EFAULT;
}
"""
NEW_C = """static int put_info(struct info __user *info, int v)
{
	scoped_user_write_access(info, Efault) {
		unsafe_put_user(v, &info->v, Efault);
	}
	return 0;
Efault:
	return -EFAULT;
}
"""


def _facts(file: str, builders_: Builders, masking: tuple, text: str = 'write region; on info',
	   tests: dict = {}) -> changelog.PatchFacts:
	region = rg.CensusRegion(file, 3, 2, 'put_info', Tag('fault-label'), text)
	entry = rg.Entry(region, begin='user_write_access_begin', scope='scoped_user_write_access')
	return changelog.PatchFacts('x86/info', [file], [entry], [], {file: builders_}, masking,
				    {file: OLD_C}, {file: NEW_C}, tests=tests,
				    signoff='A U Thor <a@example.org>')


class MessageTest(unittest.TestCase):
	def test_what_the_diff_did_in_numbers(self) -> None:
		msg = changelog.message(_facts('arch/x86/kernel/info.c',
					       Builders(frozenset({('x86', 64)}), ''), (('x86', 64),)))
		lines = msg.splitlines()
		text = ' '.join(msg.split())
		self.assertEqual('x86/info: Convert put_info() to scoped user access', lines[0])
		self.assertEqual('Signed-off-by: A U Thor <a@example.org>', lines[-1])
		self.assertIn('put_info() writes user memory in a region begun with '
			      'user_write_access_begin() and ended by two calls to '
			      'user_write_access_end(), one at the fault label Efault.', text)
		self.assertIn('On x86-64, which masks user pointers, the scope of put_info() masks '
			      'info instead of checking it: the access_ok() compare and the LFENCE '
			      'after it go', text)
		self.assertTrue(all(len(line) <= 75 for line in lines))
		self.assertNotIn('scoped-uaccess', text)
		self.assertNotIn('cocci', text)

	def test_only_the_architectures_that_build_the_file(self) -> None:
		i915 = Builders(frozenset({('x86', None)}), '', 'DRM_I915 depends on X86 && PCI')
		text = ' '.join(changelog.message(_facts(
			'drivers/gpu/drm/i915/i915_query.c', i915, (('powerpc', None), ('x86', 64)))).split())
		self.assertIn('is built for x86 only (DRM_I915 depends on X86 && PCI)', text)
		self.assertNotIn('powerpc', text)
		self.assertIn('On 32-bit x86, the scope of put_info() begins the region with '
			      'user_write_access_begin() as before.', text)

	def test_a_generic_file(self) -> None:
		text = ' '.join(changelog.message(_facts(
			'kernel/info.c', Builders(frozenset(), ''), (('powerpc', None), ('x86', 64)))).split())
		self.assertIn('kernel/info.c is built for every architecture.', text)
		self.assertIn('On powerpc and x86-64, which mask user pointers, the scope of put_info() '
			      'masks info instead of checking it: the access_ok() compare goes, on '
			      'x86-64 with the LFENCE after it,', text)
		self.assertIn('On the architectures that do not mask, the scope of put_info() begins', text)

	def test_a_run_time_size_says_what_changes_at_the_top(self) -> None:
		text = ' '.join(changelog.message(_facts(
			'fs/info.c', Builders(frozenset(), ''), (('x86', 64),),
			'write region; on info; unchecked size n * sizeof(*info)')).split())
		self.assertIn('The size of the range, n * sizeof(*info), is known only at run time in '
			      'put_info()', text)

	def test_the_tests_that_reached_it_and_why_not(self) -> None:
		tests = {('fs/info.c', 'put_info'): changelog.Coverage(
			('info.get (x86_64)', 'info.get (i386)'))}
		text = ' '.join(changelog.message(_facts('fs/info.c', Builders(frozenset(), ''),
							 (('x86', 64),), tests=tests)).split())
		self.assertIn('Each access of put_info() was made to fault in turn, through info() on '
			      'x86-64 and i386 (compat)', text)
		tests = {('fs/info.c', 'put_info'): changelog.Coverage((), 'no device in QEMU')}
		text = ' '.join(changelog.message(_facts('fs/info.c', Builders(frozenset(), ''),
							 (('x86', 64),), tests=tests)).split())
		self.assertIn('No test here runs put_info(): no device in QEMU.', text)

	def test_scopes_paired_in_order(self) -> None:
		diff = ('--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-\tif (!user_access_begin(p, 4))\n'
			'+\tscoped_user_write_access_size(p, 4, efault) {\n'
			'+\tscoped_user_read_access(q, efault) {\n')
		self.assertEqual(['scoped_user_write_access_size', 'scoped_user_read_access'],
				 rg.added_scopes(diff))
		entries = [e for e in _entries() if e.status is Status.CONVERTED]
		rg.pair_scopes(entries, rg.added_scopes(diff))
		self.assertEqual('scoped_user_read_access', entries[1].scope)
		entries = [e for e in _entries() if e.status is Status.CONVERTED]
		rg.pair_scopes(entries, ['scoped_user_rw_access'])
		self.assertEqual(['', ''], [e.scope for e in entries])

	def test_begin_call(self) -> None:
		region = rg.CensusRegion('f.c', 2, 6, 'f', Tag('masked'))
		source = ['{', '\tif (!user_write_access_begin(p, 4))', '}']
		self.assertEqual('user_write_access_begin', rg.begin_call(source, region))
		source = ['{', '\tif (can_do_masked_user_access())', '}']
		self.assertEqual('masked_user_access_begin', rg.begin_call(source, region))


PATCH_A = '''\
From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001
From: A U Thor <a@example.org>
Date: Thu, 3 Dec 2026 07:00:00 +0000
Subject: [PATCH 13/14] fs/readdir: Convert to scoped user access

Body.

diff --git a/fs/readdir.c b/fs/readdir.c
index 1111111..2222222 100644
--- a/fs/readdir.c
+++ b/fs/readdir.c
@@ -1 +1 @@
-old
+new
-- 
2.39.5

'''


class CompareSeriesTest(unittest.TestCase):
	def test_hashes_dates_and_version_ignored(self) -> None:
		b = (PATCH_A.replace('0123456789abcdef', 'fedcba9876543210')
			    .replace('1111111..2222222', 'aaaaaaa..bbbbbbb')
			    .replace('07:00:00', '08:12:13').replace('2.39.5', '2.47.0'))
		self.assertEqual([], install.compare_series([('0013-a.patch', PATCH_A)],
							     [('0013-a.patch', b)]))

	def test_content_change_found(self) -> None:
		b = PATCH_A.replace('+new', '+newer')
		problems = install.compare_series([('0013-a.patch', PATCH_A)], [('0013-a.patch', b)])
		self.assertEqual(1, len(problems))
		self.assertIn('0013-a.patch', problems[0])

	def test_missing_patch_found(self) -> None:
		problems = install.compare_series([('0013-a.patch', PATCH_A)], [])
		self.assertIn('patch names differ', problems[0])


class SeriesSplitTest(unittest.TestCase):
	def test_marker(self) -> None:
		lines = ['0001-a.patch', '0002-b.patch', series.SERIES_MARKER, '0003-c.patch']
		core, conversions = series.split_series(lines)
		self.assertEqual(['0001-a.patch', '0002-b.patch'], core)
		self.assertEqual(['0003-c.patch'], conversions)

	def test_no_marker_is_all_core(self) -> None:
		self.assertEqual((['0001-a.patch'], []), series.split_series(['0001-a.patch']))


class InstallTest(unittest.TestCase):
	def test_replaces_the_conversions_part(self) -> None:
		import tempfile
		from pathlib import Path
		with tempfile.TemporaryDirectory() as tmp:
			root = Path(tmp)
			patches, out, reports = root / 'patches', root / 'out', root / 'reports'
			for d in (patches, out):
				d.mkdir()
			(patches / '0001-a.patch').write_text('a')
			(patches / '0002-old.patch').write_text('old')
			(patches / 'series').write_text(f'0001-a.patch\n{series.SERIES_MARKER}\n'
							'0002-old.patch\n')
			(out / '0002-new.patch').write_text('new')
			(out / 'conversion.json').write_text('{}')
			(out / 'summary.md').write_text('# s')
			install.install(out, patches, reports, lambda text: None)
			self.assertEqual(['0001-a.patch', series.SERIES_MARKER, '0002-new.patch'],
					 (patches / 'series').read_text().splitlines())
			self.assertFalse((patches / '0002-old.patch').exists())
			self.assertEqual('# s', (reports / 'conversion.md').read_text())
			parts = series.series_parts(patches)
			self.assertEqual((['0001-a.patch'], ['0002-new.patch']),
					 (parts.core, parts.conversions))


class KeptCallsTest(unittest.TestCase):
	def test_census_text_parses_back(self) -> None:
		from scoped_uaccess.analysis import calls
		text = ('user_read_access_begin() region becomes scoped_user_read_access(); keeps ' +
			', '.join(f'f{i}() ({t})' for i, t in enumerate(calls.KEPT_TEXT.values())))
		entry = rg.Entry(rg.CensusRegion('a.c', 1, 1, 'f', Tag('fault-label'), text))
		self.assertEqual({f'f{i}': t for i, t in enumerate(calls.KEPT_TEXT.values())},
				 entry.kept_calls)


class PreexistingTest(unittest.TestCase):
	def test_paragraph_before_the_signoff(self) -> None:
		msg = commits.with_preexisting('a: b\n\nbody\n\nSigned-off-by: X <x@y>\n', [
			'arch/powerpc/include/asm/futex.h:54: WARNING:ENOSYS: ENOSYS means x',
			'arch/powerpc/include/asm/futex.h:74: WARNING:LINE_CONTINUATIONS: Avoid',
			'arch/powerpc/include/asm/futex.h:76: WARNING:LINE_CONTINUATIONS: Avoid'])
		self.assertIn('\n  arch/powerpc/include/asm/futex.h: ENOSYS, LINE_CONTINUATIONS (2)\n\n'
			      'Signed-off-by: X <x@y>\n', msg)
		self.assertTrue(all(len(line) <= 75 for line in msg.splitlines()))

	def test_nothing_to_add(self) -> None:
		self.assertEqual('m\n', commits.with_preexisting('m\n', []))


if __name__ == '__main__':
	unittest.main()
