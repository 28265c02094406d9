# SPDX-License-Identifier: GPL-2.0
"""run_convert on a scratch kernel tree: a git repository made from
testcases/convert inputs, with a baseline tag and a history that gives two
files one subject prefix.  spatch runs the real rules; the checker and
checkpatch, which need a whole kernel tree, are stood in for, so that each
of their verdicts can be given."""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import unittest
from pathlib import Path
from typing import Iterator
from unittest import mock

import support
from scoped_uaccess.convert import spatch_passes
from scoped_uaccess.convert import driver as convert_driver
from scoped_uaccess.analysis.status import Reason, Status
from scoped_uaccess.core.errors import CommandFailed
from scoped_uaccess.kernel.checkpatch import PatchResult

GOLDEN = support.TESTCASES / 'convert'
# Tree file: golden input.  net/ has one subject prefix from its history.
FILES = {
	'fs/info.c': 'fault-label-return.c',
	'net/one.c': 'two-level-labels.c',
	'net/two.c': 'shared-exit-label.c',
	'lib/shared.c': 'skip-shared-label.c',
	# built for powerpc only, which does not mask in this tree: no-gain
	'arch/powerpc/lib/info.c': 'fault-label-return.c',
}
# The one architecture that masks user pointers in the tree.
MASKING_HEADER = ('arch/x86/include/asm/uaccess_64.h',
		  '#define masked_user_access_begin(x) __masked(x)\n')
GIT_ENV = {'GIT_AUTHOR_NAME': 'Test Dev', 'GIT_AUTHOR_EMAIL': 'dev@example.org',
	   'GIT_COMMITTER_NAME': 'Test Dev', 'GIT_COMMITTER_EMAIL': 'dev@example.org',
	   'GIT_CONFIG_GLOBAL': '/dev/null', 'GIT_CONFIG_NOSYSTEM': '1'}
# A conversion of the four files takes seconds; one that hangs fails.
TIMEOUT = 300


def git(cwd: Path, *args: str) -> str:
	return subprocess.run(('git', *args), cwd=cwd, check=True, capture_output=True, text=True,
			      env=dict(os.environ, **GIT_ENV)).stdout.strip()


def make_tree(root: Path) -> Path:
	"""A 6.12 tree made as `make tree` makes one: baseline tag, then one
	commit of the series that touches both net/ files."""
	kdir = root / 'linux'
	kdir.mkdir()
	(kdir / 'Makefile').write_text('VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 118\n'
				       'EXTRAVERSION =\n')
	for name, golden in FILES.items():
		(kdir / name).parent.mkdir(parents=True, exist_ok=True)
		(kdir / name).write_text((GOLDEN / golden).read_text())
	(kdir / MASKING_HEADER[0]).parent.mkdir(parents=True)
	(kdir / MASKING_HEADER[0]).write_text(MASKING_HEADER[1])
	git(kdir, 'init', '-q', '-b', 'master')
	git(kdir, 'config', 'user.name', 'Test Dev')
	git(kdir, 'config', 'user.email', 'dev@example.org')
	git(kdir, 'add', '-A')
	git(kdir, 'commit', '-qm', 'Linux 6.12.118')
	git(kdir, 'tag', 'baseline')
	for name in ('net/one.c', 'net/two.c'):
		with open(kdir / name, 'a') as f:
			f.write('\n/* net */\n')
	git(kdir, 'commit', '-qam', 'net: Mark the files')
	return kdir


@contextlib.contextmanager
def time_limit(seconds: int) -> Iterator[None]:
	def expire(signum, frame):
		raise TimeoutError(f'the conversion took more than {seconds} s')
	old = signal.signal(signal.SIGALRM, expire)
	signal.alarm(seconds)
	try:
		yield
	finally:
		signal.alarm(0)
		signal.signal(signal.SIGALRM, old)


def clean(runner, kdir, patch, **kwargs) -> PatchResult:
	return PatchResult(str(patch))


@unittest.skipUnless(shutil.which('spatch'), 'spatch is not installed')
class RunConvertTest(unittest.TestCase):
	@classmethod
	def setUpClass(cls) -> None:
		cls.fixture = tempfile.TemporaryDirectory()
		cls.root = Path(cls.fixture.name)
		cls.kdir = make_tree(cls.root)
		cls.head = git(cls.kdir, 'rev-parse', 'HEAD')
		(cls.root / 'inlines.json').write_text('{}\n')

	@classmethod
	def tearDownClass(cls) -> None:
		cls.fixture.cleanup()

	def setUp(self) -> None:
		self.work = Path(tempfile.mkdtemp(dir=self.root))
		self.said: list[str] = []

	def convert(self, checker: dict[str, list[str]] = {},
		    check_patch=clean) -> convert_driver.ConvertResult:
		request = convert_driver.ConvertRequest(self.kdir, self.work / 'out',
							worktree=self.work / 'wt', jobs=2)
		with time_limit(TIMEOUT), \
		     mock.patch.object(convert_driver.index_cache, 'index',
				       return_value=self.root / 'inlines.json'), \
		     mock.patch.object(convert_driver, 'new_checker_errors',
				       return_value=dict(checker)), \
		     mock.patch.object(convert_driver, 'check_patch', side_effect=check_patch):
			result = convert_driver.run_convert(support.quiet_runner(), request,
							    self.said.append)
		# The tree itself is never touched.
		self.assertEqual(self.head, git(self.kdir, 'rev-parse', 'HEAD'))
		self.assertEqual('', git(self.kdir, 'status', '--porcelain'))
		return result

	def by_file(self, result: convert_driver.ConvertResult) -> dict[str, list]:
		found: dict[str, list] = {}
		for e in result.entries:
			found.setdefault(e.region.file, []).append(e)
		return found

	def subjects(self, result: convert_driver.ConvertResult) -> dict[str, str]:
		"""Each patch's subject prefix: the files it touches."""
		out = {}
		for p in result.patches:
			text = p.read_text()
			subject = next(line for line in text.splitlines() if line.startswith('Subject:'))
			prefix = subject.split('] ', 1)[1].split(':', 1)[0]
			out[prefix] = ' '.join(sorted(
				line.split(' b/', 1)[1] for line in text.splitlines()
				if line.startswith('diff --git ')))
		return out

	def test_one_patch_per_subject_prefix(self) -> None:
		result = self.convert()
		self.assertEqual({'fs/info': 'fs/info.c', 'net': 'net/one.c net/two.c'},
				 self.subjects(result))
		files = self.by_file(result)
		self.assertEqual(sorted(FILES), sorted(files))
		for name in ('fs/info.c', 'net/one.c', 'net/two.c'):
			self.assertEqual([Status.CONVERTED], [e.status for e in files[name]], name)
			self.assertTrue(files[name][0].patch, name)
		self.assertEqual({Status.SKIPPED}, {e.status for e in files['lib/shared.c']})
		self.assertIn(Reason.SHARED_LABEL, [e.reason for e in files['lib/shared.c']])
		self.assertEqual([Reason.NO_GAIN], [e.reason for e in files['arch/powerpc/lib/info.c']])
		out = self.work / 'out'
		table = json.loads((out / 'conversion.json').read_text())
		self.assertEqual(len(result.entries), len(table['regions']))
		self.assertEqual(3, sum(r['status'] == 'converted' for r in table['regions']))
		self.assertEqual(sorted(p.name for p in result.patches),
				 sorted(p.name for p in out.glob('*.patch')))
		self.assertIn('3 converted', (out / 'summary.md').read_text())

	def test_a_checker_error_drops_the_file_not_its_group(self) -> None:
		result = self.convert(checker={'net/one.c': ['[region-end] a new ERROR']})
		self.assertEqual({'fs/info': 'fs/info.c', 'net': 'net/two.c'}, self.subjects(result))
		files = self.by_file(result)
		self.assertEqual([(Status.SKIPPED, Reason.CHECKER_ERROR)],
				 [(e.status, e.reason) for e in files['net/one.c']])
		self.assertEqual(Status.CONVERTED, files['net/two.c'][0].status)

	def test_a_patch_checkpatch_refuses_is_dropped(self) -> None:
		def dirty_net(runner, kdir, patch, **kwargs) -> PatchResult:
			bad = 'net/' in Path(patch).read_text()
			return PatchResult(str(patch), errors=int(bad), issues=['ERROR: bad'] if bad else [])
		result = self.convert(check_patch=dirty_net)
		self.assertEqual({'fs/info': 'fs/info.c'}, self.subjects(result))
		files = self.by_file(result)
		for name in ('net/one.c', 'net/two.c'):
			self.assertEqual([(Status.SKIPPED, Reason.CHECKPATCH)],
					 [(e.status, e.reason) for e in files[name]], name)
		self.assertTrue(any('net: dropped, checkpatch' in s for s in self.said), self.said)

	def test_a_region_the_rewrite_leaves_is_retried_without_it(self) -> None:
		rewrite = spatch_passes.rewrite
		calls: list[str] = []

		def skip_first(runner, rules, wt, name, regions, env):
			calls.append(name)
			if name == 'fs/info.c' and calls.count(name) == 1:
				return spatch_passes.FileRun(name)	# as if patch mode left it open-coded
			return rewrite(runner, rules, wt, name, regions, env)
		with mock.patch.object(spatch_passes, 'rewrite', side_effect=skip_first):
			result = self.convert()
		self.assertTrue(any('fs/info.c: in put_info() what is still open-coded' in s
				    for s in self.said), self.said)
		files = self.by_file(result)
		self.assertEqual([(Status.SKIPPED, Reason.EXCLUDED)],
				 [(e.status, e.reason) for e in files['fs/info.c']])
		self.assertEqual({'net': 'net/one.c net/two.c'}, self.subjects(result))

	def test_a_failure_leaves_out_as_it_was(self) -> None:
		out = self.work / 'out'
		out.mkdir()
		(out / '0001-old.patch').write_text('old\n')
		(out / 'conversion.json').write_text('{}\n')

		def fails(runner, kdir, patch, **kwargs) -> PatchResult:
			raise CommandFailed('scripts/checkpatch.pl', 2, 'no such file')
		with self.assertRaises(CommandFailed):
			self.convert(check_patch=fails)
		self.assertEqual({'0001-old.patch': 'old\n', 'conversion.json': '{}\n'},
				 {p.name: p.read_text() for p in out.iterdir()})
		self.assertEqual([], list(self.work.glob('.convert-*')))


if __name__ == '__main__':
	unittest.main()
