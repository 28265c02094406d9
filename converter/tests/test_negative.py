# SPDX-License-Identifier: GPL-2.0
"""Negative compile tests: kbuild command substitution and verdicts."""

import tempfile
import unittest
from pathlib import Path

from support import DATA
from scoped_uaccess.gates import negative
from scoped_uaccess.kernel import kbuild
from scoped_uaccess.core.errors import EnvironmentProblem, UsageError
from scoped_uaccess.gates.negative import CaseStatus, Expectation, NegativeCase

CMD = DATA / 'kbuild' / 'usercopy_kunit.o.cmd'
OBJ = 'lib/usercopy_kunit.o'


class CmdFileTest(unittest.TestCase):
	def setUp(self) -> None:
		self.cmd = kbuild.parse_cmd_file(CMD.read_text(), OBJ)

	def test_real_cmd_file(self) -> None:
		self.assertEqual('gcc', self.cmd.argv[0])
		self.assertEqual('lib/usercopy_kunit.o', self.cmd.output)
		self.assertEqual('lib/.usercopy_kunit.o.d', self.cmd.depfile)
		self.assertTrue(self.cmd.source.endswith('/lib/usercopy_kunit.c'))
		self.assertIn("-DKBUILD_MODNAME=\"usercopy_kunit\"", self.cmd.argv)

	def test_substitution_replaces_exactly_three_words(self) -> None:
		argv = kbuild.substitute(self.cmd, Path('/t/case.c'), Path('/o/case.o'),
					   Path('/o/.case.o.d'))
		self.assertEqual(len(self.cmd.argv), len(argv))
		changed = [(a, b) for a, b in zip(self.cmd.argv, argv) if a != b]
		self.assertEqual([('-Wp,-MMD,lib/.usercopy_kunit.o.d', '-Wp,-MMD,/o/.case.o.d'),
				  ('lib/usercopy_kunit.o', '/o/case.o'),
				  (self.cmd.source, '/t/case.c')], changed)
		self.assertEqual(['-c', '-o', '/o/case.o', '/t/case.c'], argv[-4:])

	def test_objtool_after_semicolon_and_dollars(self) -> None:
		text = ("savedcmd_lib/x.o := gcc -Wp,-MD,lib/.x.o.d -DX='\"a$$b\"' -c -o lib/x.o "
			"/src/lib/x.c ; ./tools/objtool/objtool --uaccess lib/x.o\n")
		cmd = kbuild.parse_cmd_file(text, 'lib/x.o')
		self.assertEqual(('gcc', '-Wp,-MD,lib/.x.o.d', '-DX="a$b"', '-c', '-o', 'lib/x.o',
				  '/src/lib/x.c'), cmd.argv)
		self.assertEqual('/src/lib/x.c', cmd.source)

	def test_missing_savedcmd(self) -> None:
		with self.assertRaises(EnvironmentProblem):
			kbuild.parse_cmd_file(CMD.read_text(), 'lib/other.o')

	def test_cmd_file_location(self) -> None:
		self.assertEqual(Path('/b/lib/.scoped_uaccess_kunit.o.cmd'),
				 kbuild.cmd_file(Path('/b'), 'lib/scoped_uaccess_kunit.o'))


class CaseTest(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.dir = Path(self.tmp.name)

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def write(self, name: str, text: str) -> Path:
		path = self.dir / name
		path.write_text(text)
		return path

	def test_load_cases(self) -> None:
		ok = negative.load_case(self.write('scope-ok.c', '// SPDX\nint x;\n'))
		self.assertIs(Expectation.COMPILES, ok.expectation)
		bad = negative.load_case(self.write('nested.c', '// SPDX\n// EXPECT-ERROR: must not be (nested)\n'))
		self.assertEqual('must not be (nested)', bad.pattern)
		with self.assertRaises(UsageError):
			negative.load_case(self.write('nothing.c', 'int x;\n'))
		with self.assertRaises(UsageError):
			negative.load_case(self.write('badre.c', '// EXPECT-ERROR: (unclosed\n'))

	def test_verdicts(self) -> None:
		ok = NegativeCase(Path('a-ok.c'), Expectation.COMPILES)
		bad = NegativeCase(Path('b.c'), Expectation.FAILS, r'scopes must not be nested')
		error = "b.c:9:2: error: static assertion failed: \"user access scopes must not be nested\""
		cases = [(ok, 0, '', CaseStatus.PASS),
			 (ok, 0, 'a-ok.c:3:1: warning: unused variable', CaseStatus.FAIL),
			 (ok, 1, 'a-ok.c:3:1: error: x', CaseStatus.FAIL),
			 (bad, 1, error, CaseStatus.PASS),
			 (bad, 1, 'b.c:1:1: error: something else', CaseStatus.FAIL),
			 (bad, 0, '', CaseStatus.FAIL)]
		for case, rc, output, want in cases:
			with self.subTest(case=case.path.name, rc=rc, output=output):
				self.assertIs(want, negative.judge(case, rc, output).status)


if __name__ == '__main__':
	unittest.main()
