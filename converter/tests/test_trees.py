# SPDX-License-Identifier: GPL-2.0
"""Every tree make test tests gets its gates from its record, the same way."""

import ast
import dataclasses
import re
import unittest

import support
from scoped_uaccess.core.command import Runner
from scoped_uaccess.gates import make_test, trees
from scoped_uaccess.gates.warmup import Warmup
from scoped_uaccess.kernel import sources

GATES = support.REPO / 'converter' / 'scoped_uaccess' / 'gates'


def tree_test(source: sources.KernelSource) -> trees.TreeTest:
	return trees.TreeTest(source, source.kdir, Runner(dry_run=True), Warmup())


def names(source: sources.KernelSource) -> list[str]:
	t = tree_test(source)
	return [g.name for stage in trees.Stage for g in trees.gates(t, stage)]


class TreesTest(unittest.TestCase):
	def test_each_tested_tree_runs_the_kinds_its_record_names(self) -> None:
		for source in sources.TESTED:
			assert source.gates is not None
			suffix = '' if source is sources.DEFAULT else f'-{source.series}'
			want = []
			for kind in trees.KINDS:
				if kind not in source.gates.kinds:
					continue
				if kind == 'kunit':
					want += [f'kunit-{cc}{suffix}' for cc in source.gates.compilers]
				else:
					want.append(f'{kind}{suffix}')
			with self.subTest(tree=source.series):
				self.assertEqual(sorted(want), sorted(names(source)))
				self.assertTrue(set(source.gates.kinds) <= set(trees.KINDS))

	def test_make_test_runs_every_tested_trees_gates_once(self) -> None:
		gates = make_test.gates(Runner(dry_run=True), make_test.TestOptions(), Warmup())
		listed = [g.name for g in gates]
		self.assertEqual(len(listed), len(set(listed)))
		for source in sources.TESTED:
			self.assertLessEqual(set(names(source)), set(listed))
		# Every gate a gate needs is listed before it.
		for i, gate in enumerate(gates):
			for need in gate.needs:
				self.assertIn(need, listed[:i], gate.name)

	def test_a_new_tree_is_a_record(self) -> None:
		# Debian's 7.2 with a report gate: nothing but the record says so.
		record = dataclasses.replace(sources.DEBIAN_7_2,
					     gates=sources.Gates(('tree', 'report', 'kunit'),
								 recorded=('kunit-gcc',)))
		self.assertEqual(['tree-7.2', 'report-7.2', 'kunit-gcc-7.2'], names(record))
		t = tree_test(record)
		report = trees.gates(t, trees.Stage.CHECKS)[0]
		self.assertEqual(('tree-7.2',), report.needs)
		self.assertIn('Linux 7.2.x', report.failure)
		self.assertEqual(('kunit-gcc-7.2',), t.recorded())

	def test_the_recorded_gates_are_the_records(self) -> None:
		want = tuple(f'{g}{"" if s is sources.DEFAULT else "-" + s.series}'
			     for s in sources.TESTED for g in s.gates.recorded)
		self.assertEqual(want, make_test.recorded_gates())
		for name in want:
			self.assertTrue((support.REPO / 'reports' / 'gates' / f'{name}.json').is_file(), name)

	def test_a_recorded_kind_says_what_its_verdict_depends_on(self) -> None:
		# Kind's default inputs are the tree and the series alone: a record
		# of such a kind would outlive a change to the code that judges it.
		default = trees.Kind.__dataclass_fields__['inputs'].default
		for source in sources.TESTED:
			for gate in source.gates.recorded:
				kind = trees.KINDS['kunit' if gate.startswith('kunit-') else gate]
				with self.subTest(tree=source.series, gate=gate):
					self.assertIsNot(default, kind.inputs)
					self.assertTrue(kind.inputs(tree_test(source), gate).code)
					self.assertTrue(kind.results_file(tree_test(source), gate))

	def test_no_gate_module_names_a_tree(self) -> None:
		# Docstrings may give examples; code takes the tree from its record.
		tree_path = re.compile(r'build/linux|linux-\d|\b\d+\.\d+\b')
		for path in sorted(GATES.glob('*.py')):
			module = ast.parse(path.read_text())
			docstrings = {id(n.body[0].value) for n in ast.walk(module)
				      if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef))
				      and n.body and isinstance(n.body[0], ast.Expr)
				      and isinstance(n.body[0].value, ast.Constant)}
			for node in ast.walk(module):
				if isinstance(node, ast.Constant) and isinstance(node.value, str) \
						and id(node) not in docstrings:
					with self.subTest(module=path.name, line=node.lineno):
						self.assertIsNone(tree_path.search(node.value), node.value)


if __name__ == '__main__':
	unittest.main()
