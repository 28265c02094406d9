# SPDX-License-Identifier: GPL-2.0
"""The conversion rules (cocci/convert_scoped_uaccess.cocci and the Python
of scoped_uaccess.analysis) on their golden files in
testcases/convert/: the census tags and the file after every pass.

Regenerate a .res after a deliberate change, then review its diff:

    /usr/bin/python3 converter/tests/test_convert_rules.py --regen [NAME...]
"""

import re
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

import support

from scoped_uaccess.convert import spatch_passes
from scoped_uaccess.convert.regions import CensusRegion

RULES = support.REPO / 'cocci' / 'convert_scoped_uaccess.cocci'
GOLDEN = support.TESTCASES / 'convert'
EXPECT = re.compile(r'^// EXPECT: (\S+)$', re.M)


def convert(src: Path, tmp: Path) -> tuple[list[CensusRegion], str]:
	"""The census of src and the file after the passes, as the driver runs
	them (one file, no header inline index, masking as on x86)."""
	runner = support.quiet_runner()
	shutil.copy(src, tmp / src.name)
	env = spatch_passes.Environment()
	with spatch_passes.plain_syscall_headers(tmp / src.name):
		regions = spatch_passes.census(runner, RULES, tmp, src.name, env)
		if any(not r.skipped for r in regions):
			spatch_passes.rewrite(runner, RULES, tmp, src.name, regions, env)
	return regions, (tmp / src.name).read_text()


def inputs(names: list[str]) -> list[Path]:
	files = sorted(GOLDEN.glob('*.c'))
	return [f for f in files if not names or f.stem in names]


@unittest.skipUnless(shutil.which('spatch'), 'spatch is not installed')
class ConvertRulesTest(unittest.TestCase):
	maxDiff = None

	def test_golden_inputs_are_there(self) -> None:
		self.assertGreaterEqual(len(inputs([])), 20, f'golden inputs missing in {GOLDEN}')

	def check_golden(self, src: Path) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			regions, out = convert(src, Path(tmp))
		want = EXPECT.findall(src.read_text())
		self.assertTrue(want, f'{src.name}: no // EXPECT: line')
		self.assertEqual(want, [str(r.tag) for r in regions], f'{src.name}: census tags')
		res = src.with_suffix('.res')
		converted = any(not r.skipped for r in regions)
		self.assertEqual(converted, res.exists(),
				 f'{src.name}: a .res exactly when a region converts')
		self.assertEqual(res.read_text() if converted else src.read_text(), out,
				 f'{src.name}: the converted file')

	def test_every_transformation_and_reason_has_a_case(self) -> None:
		from scoped_uaccess.analysis import model
		tags = ' '.join(t for src in inputs([]) for t in EXPECT.findall(src.read_text()))
		for t in model.TRANSFORMATIONS:
			if t != 'split':
				self.assertIn('+' + t, tags, f'no golden case applies {t}')
		for shape in model.SHAPES:
			self.assertIn('converted-' + shape, tags, f'no golden case of shape {shape}')


def _golden_test(src: Path):
	def test(self: ConvertRulesTest) -> None:
		self.check_golden(src)
	test.__doc__ = f'testcases/convert/{src.name}'
	return test


# One test per golden file, so that run.py can spread them over its jobs.
for _src in inputs([]):
	setattr(ConvertRulesTest, 'test_golden_' + re.sub(r'\W', '_', _src.stem), _golden_test(_src))


def regen(names: list[str]) -> None:
	for src in inputs(names):
		with tempfile.TemporaryDirectory() as tmp:
			regions, out = convert(src, Path(tmp))
		res = src.with_suffix('.res')
		if any(not r.skipped for r in regions):
			res.write_text(out)
		elif res.exists():
			res.unlink()
		print(f'{src.name}: ' + ' '.join(str(r.tag) for r in regions))


if __name__ == '__main__':
	if sys.argv[1:2] == ['--regen']:
		regen(sys.argv[2:])
	else:
		unittest.main()
