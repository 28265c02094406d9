# SPDX-License-Identifier: GPL-2.0
"""The conversion driver's pure parts: report lines, subjects, conversion.json,
commit messages and the comparison of two exports of a series."""

import json
import unittest

from scoped_uaccess.convert import commits, install
from scoped_uaccess.convert import regions as rg
from scoped_uaccess.analysis import status
from scoped_uaccess.analysis.status import Reason, Status, Tag
from scoped_uaccess.kernel import series

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


class MessageTest(unittest.TestCase):
	def test_body(self) -> None:
		entries = [e for e in _entries() if e.status is Status.CONVERTED]
		entries[0].begin, entries[0].scope = 'user_access_begin', 'scoped_user_read_access'
		entries[1].begin, entries[1].scope = 'masked_user_access_begin', 'scoped_user_rw_access'
		msg = commits.commit_message('x86/signal', ['arch/x86/kernel/signal_64.c'], entries,
					     [], 'A U Thor <a@example.org>', 'rules.cocci', ('x86',))
		lines = msg.splitlines()
		text = ' '.join(lines)
		self.assertEqual('x86/signal: Convert to scoped user access', lines[0])
		self.assertEqual('', lines[1])
		self.assertEqual('Signed-off-by: A U Thor <a@example.org>', lines[-1])
		self.assertIn('on x86-64 the access_ok() range check and the LFENCE of '
			      'barrier_nospec() after it go', text)
		self.assertIn('restore_sigcontext() began the region for reading and writing but '
			      'only reads', text)
		self.assertNotIn('No functional change', text)
		self.assertTrue(all(len(line) <= 75 for line in lines))

	def test_nothing_changes_where_the_file_is_built_without_masking(self) -> None:
		entries = [e for e in _entries() if e.status is Status.CONVERTED][:1]
		entries[0].begin, entries[0].scope = 'user_access_begin', 'scoped_user_read_access'
		msg = commits.commit_message('powerpc/signal32', ['arch/powerpc/kernel/signal_32.c'],
					     entries, [], 'A <a@example.org>', 'rules.cocci', ('x86',))
		text = ' '.join(msg.split())
		self.assertIn('built for powerpc only, which does not mask user pointers in this '
			      'tree', text)
		self.assertNotIn('x86-64', text)
		msg = commits.commit_message('powerpc/signal32', ['arch/powerpc/kernel/signal_32.c'],
					     entries, [], 'A <a@example.org>', 'rules.cocci',
					     ('powerpc', 'x86'))
		self.assertIn('on powerpc the access_ok() range check goes, and for reads the '
			      'barrier_nospec() after it', ' '.join(msg.split()))

	def test_a_run_time_size_says_what_changes_at_the_top(self) -> None:
		region = rg.CensusRegion('fs/select.c', 1014, 2, 'do_sys_poll', Tag('two-level'),
				   'write region; on ufds; unchecked size nfds * sizeof(*ufds)')
		entry = rg.Entry(region, begin='user_write_access_begin',
				 scope='scoped_user_write_access_size')
		self.assertEqual('nfds * sizeof(*ufds)', entry.unchecked_size)
		self.assertEqual('ufds', entry.pointer)
		text = ' '.join(commits.commit_message('select', ['fs/select.c'], [entry], [],
						       'A <a@example.org>', 'rules.cocci').split())
		self.assertIn('do_sys_poll() accesses a range whose size is known only at run time '
			      '(nfds * sizeof(*ufds))', text)
		self.assertIn('for every constant size up to a page', text)
		# Built only where nothing masks: nothing to say.
		entry.region = rg.CensusRegion('arch/x86/lib/usercopy_32.c', 1, 2, 'f', Tag('two-level'),
					 'write region; on p; unchecked size n')
		text = ' '.join(commits.commit_message('x86/lib', [entry.region.file], [entry], [],
						       'A <a@example.org>', 'rules.cocci').split())
		self.assertNotIn('known only at run time', text)

	def test_long_names_wrap(self) -> None:
		entries = [e for e in _entries() if e.status is Status.CONVERTED]
		for e in entries:
			e.begin, e.scope = 'masked_user_write_access_begin', 'scoped_user_write_access_size'
		msg = commits.commit_message('fs/readdir', ['fs/readdir.c'], entries, entries,
					     'A U Thor <a@example.org>', 'convert_scoped_uaccess.cocci')
		self.assertTrue(all(len(line) <= 75 for line in msg.splitlines()), msg)
		self.assertIn('nothing changes at run time', ' '.join(msg.split()))

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
