# SPDX-License-Identifier: GPL-2.0
"""The conversion rules (cocci/convert_scoped_uaccess.cocci) on their golden
files in testcases/convert/: -D patch output and -D report tags."""

import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import support

COCCI = support.REPO / 'cocci' / 'convert_scoped_uaccess.cocci'
MACROS = support.REPO / 'cocci' / 'kernel-macros.h'
GOLDEN = support.TESTCASES / 'convert'
OPTIONS = ('--very-quiet', '--smpl-spacing', '--no-includes', '--include-headers',
	   '--macro-file', str(MACROS))
# FILE:LINE:COL: REGION [TAG] FUNCTION(): text, as cocci/README.md fixes it
REPORT = re.compile(r'^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): REGION '
		    r'\[(?P<tag>converted-[a-z-]+|skip:[a-z-]+)\] (?P<function>\S+)\(\): (?P<text>.*)$')
EXPECT = re.compile(r'^// EXPECT: (\S+)$', re.M)


def spatch(*args: str, cwd: Path) -> subprocess.CompletedProcess:
	return subprocess.run(('spatch', '--sp-file', str(COCCI), *OPTIONS, *args),
			      cwd=cwd, capture_output=True, text=True, timeout=300)


@unittest.skipUnless(shutil.which('spatch'), 'spatch is not installed')
class ConvertRulesTest(unittest.TestCase):
	def inputs(self) -> list[Path]:
		files = sorted(GOLDEN.glob('*.c'))
		self.assertTrue(files, f'no golden inputs in {GOLDEN}')
		return files

	def patched(self, src: Path, tmp: Path) -> str:
		"""The -D patch result of src (its own text when nothing changes)."""
		out = tmp / (src.stem + '.out')
		run = spatch('-D', 'patch', '-o', str(out), src.name, cwd=src.parent)
		self.assertEqual(0, run.returncode, run.stderr)
		return out.read_text() if out.exists() else src.read_text()

	def report(self, src: Path) -> list[re.Match]:
		run = spatch('-D', 'report', '--no-show-diff', src.name, cwd=src.parent)
		self.assertEqual(0, run.returncode, run.stderr)
		lines = [l for l in run.stdout.splitlines() if l.strip()]
		matches = [REPORT.match(l) for l in lines]
		self.assertTrue(all(matches), f'{src.name}: unparsable report line in {lines}')
		return matches

	def test_patch_output_matches_golden(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			for src in self.inputs():
				with self.subTest(src.name):
					res = src.with_suffix('.res')
					want = res.read_text() if res.exists() else src.read_text()
					self.assertEqual(want, self.patched(src, Path(tmp)),
							 f'{src.name}: -D patch differs from '
							 f'{res.name if res.exists() else "the input"}')

	def test_report_tags_match_expect_lines(self) -> None:
		for src in self.inputs():
			with self.subTest(src.name):
				want = EXPECT.findall(src.read_text())
				self.assertTrue(want, f'{src.name} has no // EXPECT: line')
				got = [m['tag'] for m in self.report(src)]
				self.assertEqual(want, got)

	def test_report_and_patch_agree(self) -> None:
		"""Converted regions change the file, skipped ones do not."""
		for src in self.inputs():
			with self.subTest(src.name):
				tags = [m['tag'] for m in self.report(src)]
				has_res = src.with_suffix('.res').exists()
				if any(t.startswith('converted-') for t in tags):
					self.assertTrue(has_res, f'{src.name}: converted but no .res')
				else:
					self.assertFalse(has_res, f'{src.name}: all skipped but has a .res')

	def test_every_skip_reason_has_a_must_not_change_file(self) -> None:
		readme = (support.REPO / 'cocci' / 'README.md').read_text()
		for reason in ('pointer-modified', 'pointer-expression', 'foreign-pointer',
			       'split-branches', 'masked-range', 'out-of-line-call',
			       'loop-control', 'positive-begin', 'shared-label', 'begin-failure'):
			with self.subTest(reason):
				self.assertIn(f'`{reason}`', readme)
				self.assertTrue((GOLDEN / f'skip-{reason}.c').exists())
				self.assertFalse((GOLDEN / f'skip-{reason}.res').exists())


if __name__ == '__main__':
	unittest.main()
