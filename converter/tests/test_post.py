# SPDX-License-Identifier: GPL-2.0
"""post/: the sender's identity, the patches in their name, and who takes
each patch as get_maintainer.pl says."""

import json
import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from support import quiet_runner
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.core import paths
from scoped_uaccess.post import cover, groups, series

PATCH = """From 0123abc Mon Sep 17 00:00:00 2001
From: Seed 856ff4c8 maintainers
 <maintainers@users.noreply.a-seed-856ff4c8.example>
Date: Sun, 6 Dec 2026 11:34:22 +0000
Subject: [PATCH 03/17] powerpc/signal32: Convert to scoped user access

Body.

Signed-off-by: Seed 856ff4c8 maintainers <maintainers@users.noreply.a-seed-856ff4c8.example>
---
"""
# What scripts/get_maintainer.pl --no-git --no-rolestats --scm --subsystem
# printed for 7.3.4's powerpc/signal32 patch.
GET_MAINTAINER = """Madhavan Srinivasan <maddy@linux.ibm.com>
Michael Ellerman <mpe@ellerman.id.au>
"Christophe Leroy (CS GROUP)" <chleroy@kernel.org>
linuxppc-dev@lists.ozlabs.org
linux-kernel@vger.kernel.org
git git://git.kernel.org/pub/scm/linux/kernel/git/powerpc/linux.git
git git://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git
LINUX FOR POWERPC (32-BIT AND 64-BIT)
THE REST
"""


class IdentityTest(unittest.TestCase):
	def test_given_identity(self) -> None:
		self.assertEqual('A U Thor <a@example.org>',
				 series.sender_identity(quiet_runner(), ' A U  Thor <a@example.org>'))

	def test_the_placeholder_signs_nothing(self) -> None:
		with self.assertRaises(UsageError):
			series.sender_identity(quiet_runner(), 'Seed 856ff4c8 maintainers '
					       '<maintainers@users.noreply.a-seed-856ff4c8.example>')
		with self.assertRaises(UsageError):
			series.sender_identity(quiet_runner(), 'nobody')

	def test_no_identity_configured_stops_with_how_to_set_it(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			env = {'HOME': tmp, 'GIT_CONFIG_GLOBAL': '/dev/null', 'GIT_CONFIG_NOSYSTEM': '1',
			       'XDG_CONFIG_HOME': tmp}
			with mock.patch.dict(os.environ, env), mock.patch.object(Path, 'cwd',
										return_value=Path(tmp)):
				with self.assertRaises(UsageError) as e:
					series.sender_identity(quiet_runner(), '')
		self.assertIn('git config --global user.name', e.exception.one_line())


class NameTest(unittest.TestCase):
	def test_from_and_signoff_are_the_senders(self) -> None:
		text = series.in_the_name_of(PATCH, 'A U Thor <a@example.org>')
		self.assertIn('\nFrom: A U Thor <a@example.org>\nDate:', text)
		self.assertIn('Signed-off-by: A U Thor <a@example.org>', text)
		self.assertNotIn('a-seed-', text)


class GroupsTest(unittest.TestCase):
	def test_parse(self) -> None:
		m = groups.parse(GET_MAINTAINER)
		self.assertEqual(['Madhavan Srinivasan <maddy@linux.ibm.com>',
				  'Michael Ellerman <mpe@ellerman.id.au>',
				  '"Christophe Leroy (CS GROUP)" <chleroy@kernel.org>'], m.people)
		self.assertEqual(['linuxppc-dev@lists.ozlabs.org', 'linux-kernel@vger.kernel.org'],
				 m.lists)
		self.assertEqual('LINUX FOR POWERPC (32-BIT AND 64-BIT)', m.section)
		self.assertEqual(2, len(m.trees))

	def test_cc_trailers_but_stable(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			patch = Path(d) / '0001-x.patch'
			patch.write_text('Subject: [PATCH] rseq: x\n\nWhy.\n\n'
					 'Cc: Mathieu Desnoyers <mathieu.desnoyers@efficios.com>\n'
					 'Cc: stable@vger.kernel.org # 6.19+\n'
					 'Signed-off-by: A <a@example.org>\n---\n'
					 ' x | 1 +\n+Cc: not a trailer <no@example.org>\n')
			self.assertEqual(['Mathieu Desnoyers <mathieu.desnoyers@efficios.com>'],
					 groups.trailer_people(patch))

	def test_slug(self) -> None:
		self.assertEqual('powerpc', groups.slug('LINUX FOR POWERPC (32-BIT AND 64-BIT)',
							'powerpc/signal32: Convert to scoped user access'))
		self.assertEqual('drm-i915', groups.slug('INTEL DRM I915 DRIVER',
							 'drm/i915/gem: Convert to scoped user access'))
		self.assertEqual('core', groups.slug('', 'exit: Convert sys_waitid()'))


class CoverTest(unittest.TestCase):
	def test_the_cost_sentence_gives_the_bench_figures(self) -> None:
		bench = json.loads((paths.REPORTS / 'bench' / 'bench.json').read_text())
		medians = [v['median'] for v in bench['native']['saved_cycles_per_region'].values()]
		facts = cover.TreeFacts('7.3.4', Path('.'), bench=bench)
		text = cover._cost(facts, [('powerpc', None), ('x86', 64)])
		self.assertIn(f'{min(medians):.1f} to {max(medians):.1f} TSC cycles', text)
		self.assertIn('powerpc was not measured', text)
		self.assertEqual('', cover._cost(facts, []))

	def test_the_builds_sentence_names_where_the_files_were_built(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			(Path(d) / 'conversions-7.3.txt').write_text(
				'applied: a b\ntouched: fs/readdir.c kernel/exit.c\ncheckpatch: not run\n'
				'PASS x86_64: fs/readdir.o kernel/exit.o\n'
				'PASS arm64: kernel/exit.o (without sparse: kbuild refused the checker)\n'
				'FAIL powerpc: fs/readdir.o\n  fs/readdir.c:1: warning: x\n')
			facts = cover.TreeFacts('7.3.4', Path('.'))
			with mock.patch.object(cover.paths, 'RESULTS', Path(d)):
				self.assertEqual('Built with gcc for x86_64 and arm64 with no warning the '
						 'unpatched tree does not give.',
						 cover._built(facts, ['kernel/exit.c']))
				self.assertIn('failed or warned for powerpc',
					      cover._built(facts, ['fs/readdir.c']))
				self.assertEqual('', cover._built(facts, ['io_uring/net.c']))


if __name__ == '__main__':
	unittest.main()
