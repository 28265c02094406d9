# SPDX-License-Identifier: GPL-2.0
"""The converter's text helpers that run without spatch: layout fixes
after a pass, the plain syscall headers, label renaming, comments."""

import tempfile
import unittest
from pathlib import Path

from scoped_uaccess.cocci.convert import pipeline, scope, source, transforms


def _tidied(before: str, after: str) -> str:
	with tempfile.TemporaryDirectory() as tmp:
		path = Path(tmp) / 'f.c'
		path.write_text(after)
		pipeline.tidy(path, before)
		return path.read_text()


class TidyTest(unittest.TestCase):
	def test_else_brace_opened_on_the_statement_line(self) -> None:
		before = '\tif (a) {\n\t\tx();\n\t} else if (b) {\n\t\ty();\n\t}\n'
		after = '\tif (a) {\n\t\tx();\n\t} else {if (!b)\n\t\t\tgoto L;\n\t\ty();\n\t}\n'
		self.assertEqual('\tif (a) {\n\t\tx();\n\t} else {\n\t\tif (!b)\n\t\t\tgoto L;\n'
				 '\t\ty();\n\t}\n', _tidied(before, after))

	def test_inserted_blank_lines_lose_indentation_and_repeats(self) -> None:
		before = 'a;\nreturn x;\n'
		after = 'a;\n\t\n\t\nb;\nreturn x;\n'
		self.assertEqual('a;\n\nb;\nreturn x;\n', _tidied(before, after))

	def test_unchanged_lines_stay_as_they_were(self) -> None:
		text = 'a;\n\t\n\t\nb;\n'
		self.assertEqual(text, _tidied(text, text))

	def test_emptied_conditional_goes(self) -> None:
		before = 'f();\n#ifdef X\n\tg();\n#endif\nh();\n'
		after = 'f();\n#ifdef X\n#endif\nscoped {\n#ifdef X\n\tg();\n#endif\n}\n'
		self.assertEqual('f();\nscoped {\n#ifdef X\n\tg();\n#endif\n}\n', _tidied(before, after))

	def test_empty_conditional_of_the_original_stays(self) -> None:
		text = '#ifdef X\n#endif\nf();\n'
		self.assertEqual(text, _tidied(text, text + 'g();\n').removesuffix('g();\n'))

	def test_lone_semicolon_before_the_closing_brace(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			path = Path(tmp) / 'f.c'
			path.write_text('\tscoped (p, e) {\n\t\t/* c */\n\t\t;\n\t}\n\t;\n')
			pipeline.drop_lone_semicolons(path)
			self.assertEqual('\tscoped (p, e) {\n\t\t/* c */\n\t}\n\t;\n', path.read_text())


class SyscallHeaderTest(unittest.TestCase):
	TEXT = ('SYSCALL_DEFINE3(swapcontext, struct ucontext __user *, old_ctx,\n'
		'\t\tstruct ucontext __user *, new_ctx, long, ctx_size)\n{\n\treturn 0;\n}\n'
		'SYSCALL_DEFINE0(rt_sigreturn)\n{\n}\n'
		'COMPAT_SYSCALL_DEFINE2(waitid, int, which, compat_pid_t, pid)\n{\n}\n')

	def test_plain_headers_line_for_line_and_back(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			path = Path(tmp) / 'f.c'
			path.write_text(self.TEXT)
			pairs = pipeline.plain_headers(path)
			plain = path.read_text()
			self.assertEqual(3, len(pairs))
			self.assertIn('long sys_swapcontext( struct ucontext __user *old_ctx,\n'
				      '\t\tstruct ucontext __user *new_ctx, long ctx_size)\n', plain)
			self.assertIn('long sys_rt_sigreturn(void)\n', plain)
			self.assertIn('long compat_sys_waitid( int which, compat_pid_t pid)\n', plain)
			self.assertEqual(self.TEXT.count('\n'), plain.count('\n'))
			pipeline.restore_headers(path, pairs)
			self.assertEqual(self.TEXT, path.read_text())

	def test_context_restores_after_an_error(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			path = Path(tmp) / 'f.c'
			path.write_text(self.TEXT)
			with self.assertRaises(RuntimeError):
				with pipeline.plain_syscall_headers(path):
					self.assertNotIn('SYSCALL_DEFINE', path.read_text())
					raise RuntimeError('spatch failed')
			self.assertEqual(self.TEXT, path.read_text())

	def test_argument_count_mismatch_left_alone(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			path = Path(tmp) / 'f.c'
			path.write_text('SYSCALL_DEFINE2(x, int, a)\n{\n}\n')
			self.assertEqual([], pipeline.plain_headers(path))


class TextTest(unittest.TestCase):
	def test_blank_comments_keeps_lines_and_columns(self) -> None:
		text = 'a; /* one\n two */ b; // three\nc;'
		out = source.blank_comments(text)
		self.assertEqual([len(x) for x in text.split('\n')], [len(x) for x in out.split('\n')])
		self.assertEqual(['a;', 'b;', 'c;'], out.split())

	def test_rename_labels_in_accessor_arguments_and_gotos(self) -> None:
		merged = {'efault_end': 'efault'}
		self.assertEqual('\tunsafe_put_user(x, p, efault);',
				 scope.rename_labels('\tunsafe_put_user(x, p, efault_end);', merged))
		self.assertEqual('\t\t\t\t  efault);', scope.rename_labels('\t\t\t\t  efault_end);', merged))
		self.assertEqual('\tgoto efault;', scope.rename_labels('\tgoto efault_end;', merged))
		self.assertEqual('\tefault_end_count++;',
				 scope.rename_labels('\tefault_end_count++;', merged))

	def test_assigned(self) -> None:
		class Ctx:
			lines = ['ea = f(ea);', 'ea &= ~(size - 1);', 'x = ea;', 'if (ea == 0)',
				 'p->ea = 1;', '++ea;']
		for i, want in enumerate([True, True, False, False, False, True], 1):
			self.assertEqual(want, transforms._assigned(Ctx, 'ea', range(i, i + 1)),
					 Ctx.lines[i - 1])


if __name__ == '__main__':
	unittest.main()
