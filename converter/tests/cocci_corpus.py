#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The checker corpus, testcases/cocci: every case through the checker
scripts (cocci/scoped_uaccess_*.cocci) by the CLI, with the project-only
layer (spatch once per file and script), and by `make coccicheck`, the
scripts alone, compared with its .expected.

Not named test_*.py: it runs spatch about a hundred times and belongs to
`make check-cocci`, not to the quick unit tests.  KDIR names the kernel tree
for `make coccicheck` (default build/linux); without one that test is
skipped, and says so.
"""

import json
import os
import re
import sys
import tempfile
import unittest
from pathlib import Path

import support
from scoped_uaccess.checker import check
from scoped_uaccess.cocci import spatch
from scoped_uaccess.checker.findings import findings_from_json, parse_report
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output

CORPUS = support.TESTCASES / 'cocci'
KDIR = Path(os.environ.get('KDIR', paths.DEFAULT_KDIR))
CLI = support.CONVERTER / 'scoped-uaccess'
# A line marked (check) is a finding of the project-only layer
# (docs/checker.md): `check` reports it, the kernel scripts alone do not.
_EXPECTED = re.compile(r'^(?P<file>[^:]+):(?P<line>\d+): (?P<severity>ERROR|WARNING): '
		       r'\[(?P<cls>[a-z-]+)\](?P<layer> \(check\))?$')

Key = tuple[int, str, str]	# line, severity, class


def cases() -> list[Path]:
	return sorted(CORPUS.glob('*/*.c'))


def cli_only(case: Path) -> bool:
	"""Cases marked `CLI only`: they need what the CLI adds to spatch, the
	parsing hints of cocci/kernel-macros.h (asm_inline) or the braces
	around do-while and switch scope bodies (cocci/shim.py).  make
	coccicheck has neither: there spatch skips such functions or misreads
	such scopes, as it does in the tree."""
	return 'CLI only' in case.read_text()


def expected(case: Path, layer: bool = True) -> set[Key]:
	"""The findings the case expects; without layer, those of the kernel
	scripts alone."""
	keys = set()
	for line in case.with_suffix('.expected').read_text().splitlines():
		m = _EXPECTED.match(line)
		if not m or m['file'] != case.name:
			raise ValueError(f'{case.with_suffix(".expected")}: bad line {line!r}')
		if m['layer'] and not layer:
			continue
		keys.add((int(m['line']), m['severity'], m['cls']))
	return keys


def by_case(findings: list[check.Finding]) -> dict[str, set[Key]]:
	"""Findings keyed by the case's path relative to the corpus."""
	got: dict[str, set[Key]] = {}
	for f in findings:
		name = f.file.split('testcases/cocci/')[-1]
		got.setdefault(name, set()).add((f.line, f.severity.value, f.cls))
	return got


class CorpusMixin:
	got: dict[str, set[Key]] = {}

	full_cli = True	# the run is the CLI's, with its hints and braces
	layer = True	# and its project-only layer

	def compare(self) -> None:
		self.assertGreaterEqual(len(cases()), 60)
		for case in cases():
			if cli_only(case) and not self.full_cli:
				continue
			name = str(case.relative_to(CORPUS))
			with self.subTest(case=name):
				self.assertEqual(expected(case, self.layer), self.got.get(name, set()))


class CliCorpusTest(CorpusMixin, unittest.TestCase):
	"""The whole corpus through `scoped-uaccess check --format json`: spatch
	once per file and checker script, as `check` runs it on a tree.  (One
	run serves every test here: the corpus is the gate's largest cost.)"""

	@classmethod
	def setUpClass(cls) -> None:
		run = support.quiet_runner().run(
			Command((sys.executable, str(CLI), 'check', '--format', 'json', str(CORPUS)),
				cwd=support.REPO, mutates=False), Output.CAPTURE, check=False)
		cls.command = run
		cls.got = by_case(findings_from_json(run.output))
		cls.parse_failures = json.loads(run.output)['parse_failures'] if run.output else None

	def test_cases(self) -> None:
		self.compare()

	def test_every_case_parses(self) -> None:
		self.assertEqual([], self.parse_failures, self.command.stderr)

	def test_every_class_has_three_of_each(self) -> None:
		for cls in check.classes():
			with self.subTest(cls=cls):
				mine = sorted((CORPUS / cls).glob('*.c'))
				silent = [c for c in mine if not expected(c)]
				reported = [c for c in mine if any(k[2] == cls for k in expected(c))]
				self.assertGreaterEqual(len(silent), 3)
				self.assertGreaterEqual(len(reported), 3)

	def test_exit_status_is_findings(self) -> None:
		self.assertEqual(1, self.command.returncode, self.command.stderr)

	def test_single_clean_file_exits_0(self) -> None:
		case = CORPUS / 'mode-mismatch' / 'ok-shared-label.c'
		run = support.quiet_runner().run(
			Command((sys.executable, str(CLI), 'check', str(case)), mutates=False),
			Output.CAPTURE, check=False)
		self.assertEqual((0, ''), (run.returncode, run.output))

	def test_usage_error_exits_2(self) -> None:
		run = support.quiet_runner().run(
			Command((sys.executable, str(CLI), 'check', '/nonexistent.c'), mutates=False),
			Output.CAPTURE, check=False)
		self.assertEqual(2, run.returncode)


@unittest.skipUnless((KDIR / 'scripts' / 'coccicheck').is_file(),
		     f'no kernel tree in {KDIR} for make coccicheck (run make tree)')
class CoccicheckCorpusTest(CorpusMixin, unittest.TestCase):
	"""The corpus through the kernel's own `make coccicheck`, as an external
	module directory (M=), which writes nothing into the tree: one run per
	checker script (COCCI= takes one), the findings merged.  Cases marked
	CLI only are left out (cli_only()), and so are the findings marked
	(check), the project-only layer's."""

	full_cli = False
	layer = False

	@classmethod
	def setUpClass(cls) -> None:
		runner = support.quiet_runner()
		status = Command(('git', '--no-optional-locks', 'status', '--porcelain'), cwd=KDIR,
				 mutates=False)
		cls.before = runner.run(status, Output.CAPTURE, check=False).output
		cls.commands = []
		found = []
		for script in check.CHECKERS:
			# SPFLAGS: coccicheck's spatch, with the interpreter check uses
			run = runner.run(Command(('make', '-s', 'coccicheck', 'MODE=report',
						  f'COCCI={script}', f'M={CORPUS}',
						  f'SPFLAGS=--python {spatch.PYTHON}'), cwd=KDIR,
						 mutates=False), Output.CAPTURE, check=False)
			cls.commands.append(run)
			found += parse_report(run.output)
		cls.after = runner.run(status, Output.CAPTURE, check=False).output
		cls.got = by_case(found)

	def test_cases(self) -> None:
		for run in self.commands:
			self.assertEqual(0, run.returncode, run.command.shell_line() + '\n' + run.stderr)
		self.compare()

	def test_tree_untouched(self) -> None:
		self.assertEqual(self.before, self.after)


# A real subtree for MTest: signal_32.c and signal_64.c call functions and
# macros of their own inside regions.  SUBTREE may name another.
SUBTREE = os.environ.get('SUBTREE', 'arch/powerpc/kernel')


def _in_tree(line: str, subtree: str) -> str:
	"""A report line with its file named from the top of the tree: under
	M=, 7.3's coccicheck runs spatch in the subtree (./signal_32.c)."""
	return re.sub(r'^\./', subtree + '/', line)


@unittest.skipUnless((KDIR / 'scripts' / 'coccicheck').is_file() and (KDIR / SUBTREE).is_dir(),
		     f'no kernel tree in {KDIR} with {SUBTREE} (run make tree)')
class MTest(unittest.TestCase):
	"""The same findings wherever the checker runs, on a real subtree:
	`make coccicheck M=<dir>` (absolute COCCI=, which 7.3 needs) against
	spatch from the top of the tree as coccicheck runs it, per script; and
	`check` from the top against `check` from inside the subtree."""

	def test_coccicheck_m_is_the_run_from_the_top(self) -> None:
		runner = support.quiet_runner()
		for script in check.CHECKERS:
			with self.subTest(script=script.name):
				under = runner.run(Command(('make', '-s', 'coccicheck', 'MODE=report',
							    f'COCCI={script.resolve()}', f'M={SUBTREE}',
							    f'SPFLAGS=--python {spatch.PYTHON}'),
							   cwd=KDIR, mutates=False), Output.CAPTURE, check=False)
				top = runner.run(Command((spatch.SPATCH, '-D', 'report', '--very-quiet',
							  '--python', spatch.PYTHON, '--cocci-file', str(script),
							  *spatch.options(script), '--dir', SUBTREE),
							 cwd=KDIR, mutates=False), Output.CAPTURE, check=False)
				self.assertEqual(0, under.returncode, under.stderr)
				self.assertEqual(0, top.returncode, top.stderr)
				found = sorted(line for line in top.output.splitlines()
					       if parse_report(line))
				self.assertEqual(found, sorted(_in_tree(line, SUBTREE)
							       for line in under.output.splitlines()
							       if parse_report(line)))
				if script == check.owner('call-in-region'):
					self.assertNotEqual([], found, 'the subtree tests nothing')

	def test_check_from_a_subdirectory(self) -> None:
		runs = []
		for cwd, target in ((KDIR, SUBTREE), (KDIR / SUBTREE, '.')):
			run = support.quiet_runner().run(
				Command((sys.executable, str(CLI), 'check', '--format', 'json', target),
					cwd=cwd, mutates=False), Output.CAPTURE, check=False)
			self.assertIn(run.returncode, (0, 1), run.stderr)
			# names from the top of the tree, or from where check ran
			runs.append(sorted((f.file if f.file.startswith(SUBTREE + '/') else
					    SUBTREE + '/' + f.file, f.line, f.cls, f.message)
					   for f in findings_from_json(run.output)))
		self.assertEqual(runs[0], runs[1])


@unittest.skipUnless((KDIR / '.git').exists(), f'no kernel tree in {KDIR} (run make tree)')
class HeaderInlinesTest(unittest.TestCase):
	"""check on the files of a kernel tree classifies calls to the static
	inlines of its headers (the index of cocci/inlines.py): a tree made
	of one header and one file, as --no-includes sees a real one."""

	def test_header_inlines_are_classified(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			tree = Path(tmp)
			(tree / 'Makefile').write_text('VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\n'
							'EXTRAVERSION =\n')
			(tree / 'include' / 'linux').mkdir(parents=True)
			(tree / 'include' / 'linux' / 'helpers.h').write_text(
				'static __always_inline u32 fold_fast(u32 v)\n{\n\treturn v + 1;\n}\n\n'
				'static inline u32 fold_slow(u32 v)\n{\n\treturn v - 1;\n}\n')
			source = tree / 'put.c'
			source.write_text(
				'static int put3(u32 __user *p, u32 v)\n{\n'
				'\tscoped_user_write_access_size(p, 3 * sizeof(*p), Efault) {\n'
				'\t\tunsafe_put_user(fold_fast(v), &p[0], Efault);\n'
				'\t\tunsafe_put_user(fold_slow(v), &p[1], Efault);\n'
				'\t\tunsafe_put_user(fold_other(v), &p[2], Efault);\n'
				'\t}\n\treturn 0;\nEfault:\n\treturn -EFAULT;\n}\n')
			run = support.quiet_runner().run(
				Command((sys.executable, str(CLI), 'check', '--cocci',
					 str(check.owner('call-in-region')), str(source)),
					cwd=tree, mutates=False), Output.CAPTURE, check=False)
		lines = [line.split(': [call-in-region] ')[1] for line in run.output.splitlines()]
		self.assertEqual(2, len(lines), run.output + run.stderr)
		self.assertIn('fold_slow()', lines[0])
		self.assertIn('a static inline of a header, not __always_inline', lines[0])
		self.assertIn('fold_other()', lines[1])
		self.assertIn('not known to be inlined', lines[1])


class ModesTest(unittest.TestCase):
	"""patch fixes only an unambiguous mismatch; context and org point at
	the findings.  Each case runs the script that owns its class (the
	case's directory), as `make coccicheck COCCI=` would."""

	def spatch(self, mode: str, case: str) -> str:
		path = CORPUS / case
		script = check.owner(path.parent.name)
		run = support.quiet_runner().run(
			Command(('spatch', '--python', spatch.PYTHON, '--very-quiet', '-D', mode,
				 '--sp-file', str(script), *spatch.options(script), path.name),
				cwd=path.parent, mutates=False), Output.CAPTURE)
		return run.output

	def test_patch_fixes_the_end(self) -> None:
		diff = self.spatch('patch', 'mode-mismatch/read-begin-write-end.c')
		self.assertIn('-\tuser_write_access_end();\n+\tuser_read_access_end();', diff)
		self.assertEqual(1, diff.count('\n+\t'))

	def test_patch_fixes_the_fault_label(self) -> None:
		diff = self.spatch('patch', 'mode-mismatch/write-begin-fault-label-rw-end.c')
		self.assertIn('-\tuser_access_end();\n+\tuser_write_access_end();', diff)

	def test_patch_leaves_an_ambiguous_end(self) -> None:
		# The label ends a read region correctly and a write region wrongly.
		self.assertEqual('', self.spatch('patch', 'mode-mismatch/shared-label-wrong-region.c'))

	def test_patch_leaves_correct_code(self) -> None:
		self.assertEqual('', self.spatch('patch', 'mode-mismatch/ok-masked-prologue.c'))

	def test_context_stars_the_finding(self) -> None:
		out = self.spatch('context', 'missing-end/return-without-end.c')
		self.assertIn('-\t\treturn -EINVAL;', out)

	def test_org_lists_the_finding(self) -> None:
		out = self.spatch('org', 'range/other-pointer.c')
		self.assertRegex(out, r'\* TODO \[\[view:other-pointer.c::face=ovl-face1::linb=10::')
		self.assertIn('@(range)', out)


if __name__ == '__main__':
	unittest.main(verbosity=2)
