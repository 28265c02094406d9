# SPDX-License-Identifier: GPL-2.0
"""The converter's text helpers that run without spatch: layout fixes
after a pass, the plain syscall headers, label renaming, comments."""

import tempfile
import unittest
from pathlib import Path

from scoped_uaccess.analysis import declarations, scope_pass, source, transformations
from scoped_uaccess.convert import spatch_passes, tidy


def _tidied(before: str, after: str) -> str:
	with tempfile.TemporaryDirectory() as tmp:
		path = Path(tmp) / 'f.c'
		path.write_text(after)
		tidy.tidy(path, before)
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
			tidy.drop_lone_semicolons(path)
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
			pairs = spatch_passes.plain_headers(path)
			plain = path.read_text()
			self.assertEqual(3, len(pairs))
			self.assertIn('long sys_swapcontext( struct ucontext __user *old_ctx,\n'
				      '\t\tstruct ucontext __user *new_ctx, long ctx_size)\n', plain)
			self.assertIn('long sys_rt_sigreturn(void)\n', plain)
			self.assertIn('long compat_sys_waitid( int which, compat_pid_t pid)\n', plain)
			self.assertEqual(self.TEXT.count('\n'), plain.count('\n'))
			spatch_passes.restore_headers(path, pairs)
			self.assertEqual(self.TEXT, path.read_text())

	def test_context_restores_after_an_error(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			path = Path(tmp) / 'f.c'
			path.write_text(self.TEXT)
			with self.assertRaises(RuntimeError):
				with spatch_passes.plain_syscall_headers(path):
					self.assertNotIn('SYSCALL_DEFINE', path.read_text())
					raise RuntimeError('spatch failed')
			self.assertEqual(self.TEXT, path.read_text())

	def test_argument_count_mismatch_left_alone(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			path = Path(tmp) / 'f.c'
			path.write_text('SYSCALL_DEFINE2(x, int, a)\n{\n}\n')
			self.assertEqual([], spatch_passes.plain_headers(path))


class TextTest(unittest.TestCase):
	def test_blank_comments_keeps_lines_and_columns(self) -> None:
		text = 'a; /* one\n two */ b; // three\nc;'
		out = source.blank_comments(text)
		self.assertEqual([len(x) for x in text.split('\n')], [len(x) for x in out.split('\n')])
		self.assertEqual(['a;', 'b;', 'c;'], out.split())

	def test_pretty_spaces_an_expression_as_the_kernel_does(self) -> None:
		self.assertEqual('&t->a[2]', source.pretty('& t -> a [ 2 ]'))
		self.assertEqual('f(x, -1)', source.pretty('f ( x , - 1 )'))
		self.assertEqual('p++ + n', source.pretty('p ++ + n'))

	def test_rename_labels_in_accessor_arguments_and_gotos(self) -> None:
		merged = {'efault_end': 'efault'}
		self.assertEqual('\tunsafe_put_user(x, p, efault);',
				 scope_pass.rename_labels('\tunsafe_put_user(x, p, efault_end);', merged))
		self.assertEqual('\t\t\t\t  efault);', scope_pass.rename_labels('\t\t\t\t  efault_end);', merged))
		self.assertEqual('\tgoto efault;', scope_pass.rename_labels('\tgoto efault_end;', merged))
		self.assertEqual('\tefault_end_count++;',
				 scope_pass.rename_labels('\tefault_end_count++;', merged))

	def test_assigned(self) -> None:
		class Ctx:
			lines = ['ea = f(ea);', 'ea &= ~(size - 1);', 'x = ea;', 'if (ea == 0)',
				 'p->ea = 1;', '++ea;']
		for i, want in enumerate([True, True, False, False, False, True], 1):
			self.assertEqual(want, transformations._assigned(Ctx, 'ea', range(i, i + 1)),
					 Ctx.lines[i - 1])


if __name__ == '__main__':
	unittest.main()


class ScopeLocalsTest(unittest.TestCase):
	"""declarations.scope_locals(): a scope's locals declared in it."""

	def test_a_cursor_is_declared_in_its_scope(self) -> None:
		text = ('int f(u32 __user *um, int n)\n{\n\tint left = n;\n\tu32 __user *um_cur;\n\n'
			'\tscoped_user_read_access_size(um, n, Efault) {\n\t\tum_cur = um;\n'
			'\t\twhile (left--)\n\t\t\tunsafe_get_user(x, um_cur++, Efault);\n\t}\n'
			'\treturn 0;\nEfault:\n\treturn -EFAULT;\n}')
		self.assertEqual(
			'int f(u32 __user *um, int n)\n{\n\tint left = n;\n\n'
			'\tscoped_user_read_access_size(um, n, Efault) {\n'
			'\t\tu32 __user *um_cur = um;\n\n'
			'\t\twhile (left--)\n\t\t\tunsafe_get_user(x, um_cur++, Efault);\n\t}\n'
			'\treturn 0;\nEfault:\n\treturn -EFAULT;\n}', declarations.scope_locals(text))

	def test_the_store_a_scope_repeats_goes(self) -> None:
		text = ('int f(void)\n{\n\tstruct frame __user *frame;\n\tstruct mc __user *mctx;\n\n'
			'\tframe = get_frame();\n\tmctx = &frame->mc;\n'
			'\tscoped_user_write_access(frame, bad) {\n\t\tmctx = &frame->mc;\n\n'
			'\t\tunsafe_put_user(0, &mctx->x, bad);\n\t}\n\treturn 0;\nbad:\n\treturn 1;\n}')
		got = declarations.scope_locals(text)
		self.assertNotIn('\tmctx = &frame->mc;\n\tscoped', got)
		self.assertIn('\t\tstruct mc __user *mctx = &frame->mc;\n', got)
		self.assertIn('\tframe = get_frame();\n', got, 'a store that calls stays')

	def test_a_local_read_after_the_scope_stays_declared_its_stale_store_goes(self) -> None:
		text = ('int f(void)\n{\n\tstruct mc __user *mctx;\n\n\tmctx = &frame->mc;\n'
			'\tscoped_user_write_access(frame, bad) {\n\t\tmctx = &frame->mc;\n\t}\n'
			'\treturn use(mctx);\nbad:\n\treturn 1;\n}')
		self.assertEqual(text.replace('\tmctx = &frame->mc;\n\tscoped', '\tscoped'),
				 declarations.scope_locals(text))

	def test_the_comment_of_a_stale_store_moves_into_the_scope(self) -> None:
		text = ('int f(void)\n{\n\tstruct mc __user *mctx;\n\n\t/* aligned */\n'
			'\tmctx = (struct mc __user *)\n\t\t((unsigned long)&frame->mc & ~0xfUL);\n'
			'\tscoped_user_write_access(frame, bad) {\n'
			'\t\tmctx = (struct mc __user *)\n\t\t\t((unsigned long)&frame->mc & ~0xfUL);\n'
			'\t}\n\treturn use(mctx);\nbad:\n\treturn 1;\n}')
		want = ('int f(void)\n{\n\tstruct mc __user *mctx;\n\n'
			'\tscoped_user_write_access(frame, bad) {\n\t\t/* aligned */\n'
			'\t\tmctx = (struct mc __user *)\n\t\t\t((unsigned long)&frame->mc & ~0xfUL);\n'
			'\t}\n\treturn use(mctx);\nbad:\n\treturn 1;\n}')
		self.assertEqual(want, declarations.scope_locals(text))

	def test_a_store_a_refused_begin_can_read_stays(self) -> None:
		text = ('int f(void)\n{\n\tstruct mc __user *mctx;\n\n\tmctx = &frame->mc;\n'
			'\tscoped_user_write_access(frame, bad) {\n\t\tmctx = &frame->mc;\n\t}\n'
			'\treturn use(mctx);\nbad:\n\treturn use(mctx);\n}')
		self.assertEqual(text, declarations.scope_locals(text))


class PlanTest(unittest.TestCase):
	"""The typed edit plan between the analysis and the SmPL rules."""

	def test_kinds_at_one_position_stay_apart(self) -> None:
		from scoped_uaccess.analysis import plan
		edits = plan.Plan()
		edits.add((10, 1), plan.BeforeIf('x = y'))
		edits.add((10, 1), plan.AfterIf('z = y'))
		edits.add((4, 1), plan.LocalDecl('uctx', 'cast', '(void __user *)ctx'))
		self.assertEqual('x = y', edits.get(plan.BeforeIf, (10, 1)).text)
		self.assertEqual('z = y', edits.get(plan.AfterIf, (10, 1)).text)
		self.assertIsNone(edits.get(plan.CursorDecl, (4, 1)))
		self.assertEqual(['cast'], [d.how for d in edits.of_kind(plan.LocalDecl)])
		edits.drop(plan.BeforeIf, (10, 1))
		self.assertFalse(edits.has(plan.BeforeIf, (10, 1)))

	def test_the_rules_split_no_joined_string(self) -> None:
		from scoped_uaccess.core import paths
		text = (paths.REPO / 'cocci' / 'convert_scoped_uaccess.cocci').read_text()
		self.assertNotIn("split('\\0')", text)
		self.assertNotIn('hooks.value(', text)
