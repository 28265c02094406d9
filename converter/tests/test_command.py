# SPDX-License-Identifier: GPL-2.0
"""The command chokepoint: echo, dry run, failures."""

import unittest
from pathlib import Path

from support import quiet_runner
from scoped_uaccess.core.command import Command, Output
from scoped_uaccess.core.errors import CommandFailed, EnvironmentProblem
from scoped_uaccess.kernel.toolchains import TOOLCHAINS, toolchain
from scoped_uaccess.core.errors import UsageError


class CommandTest(unittest.TestCase):
	def test_echo_is_a_shell_line(self) -> None:
		command = Command(('make', 'O=/b x', "-DX='\"y\"'"), cwd=Path('/k/linux'),
				  env={'A': 'b c'}, stdin=Path('/p/1.patch'), nice=True)
		self.assertEqual("cd /k/linux && A='b c' nice -n 10 make 'O=/b x' '-DX='\"'\"'\"y\"'\"'\"'' "
				 '< /p/1.patch', command.shell_line())

	def test_dry_run_skips_only_mutating_commands(self) -> None:
		runner = quiet_runner(dry_run=True)
		self.assertTrue(runner.run(Command(('false',))).dry_run)
		probe = runner.run(Command(('echo', 'hi'), mutates=False), Output.CAPTURE)
		self.assertEqual('hi\n', probe.output)
		self.assertIn('# dry run: not executed', runner.echo.getvalue())

	def test_failure_is_typed(self) -> None:
		with self.assertRaises(CommandFailed) as cm:
			quiet_runner().run(Command(('sh', '-c', 'echo oops >&2; exit 3')), Output.CAPTURE)
		self.assertEqual(3, cm.exception.returncode)
		self.assertIn('oops', cm.exception.one_line())

	def test_missing_program(self) -> None:
		with self.assertRaises(EnvironmentProblem) as cm:
			quiet_runner().run(Command(('no-such-program-xyz',)))
		self.assertIn('make deps', cm.exception.fix)

	def test_lines_go_to_sink_and_log(self) -> None:
		seen = []
		result = quiet_runner().run(Command(('printf', 'a\\nb\\n')), Output.LINES, sink=seen.append)
		self.assertEqual(['a\n', 'b\n'], seen)
		self.assertEqual('a\nb\n', result.output)


class ToolchainTest(unittest.TestCase):
	def test_keyed_by_cc(self) -> None:
		self.assertEqual(('CC=gcc',), toolchain('gcc').make_options)
		self.assertEqual(('LLVM=-14',), toolchain('clang-14').make_options)
		self.assertEqual(('LLVM=-19',), toolchain('clang-19').make_options)
		self.assertEqual({'gcc', 'clang-14', 'clang-19'}, set(TOOLCHAINS))
		with self.assertRaises(UsageError):
			toolchain('icc')


if __name__ == '__main__':
	unittest.main()
