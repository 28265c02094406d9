# SPDX-License-Identifier: GPL-2.0
"""The package's shape: imports only go down, no cycle, modules stay small,
and the .cocci scripts carry the API tables of cocci/api.py."""

import ast
import re
import tempfile
import unittest
from pathlib import Path

import support
from scoped_uaccess import FLOORS
from scoped_uaccess.checker import calls, check
from scoped_uaccess.cocci import api

PACKAGE = support.CONVERTER / 'scoped_uaccess'
# The rooms, lowest first: a module may import its own room and those below.
LAYERS = FLOORS
# The code spatch imports (convert_scoped_uaccess.cocci) runs inside spatch's
# Python: it may need nothing but the Coccinelle plumbing and core.
ANALYSIS_MAY_IMPORT = ('core', 'cocci', 'analysis')
MAX_LINES = 500


def modules() -> dict[str, Path]:
	return {'.'.join(p.relative_to(support.CONVERTER).with_suffix('').parts): p
		for p in sorted(PACKAGE.rglob('*.py'))}


def imports(path: Path) -> set[str]:
	found = set()
	for node in ast.walk(ast.parse(path.read_text())):
		if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith('scoped_uaccess'):
			for alias in node.names:
				full = f'{node.module}.{alias.name}'
				found.add(full if full in modules() else node.module)
		elif isinstance(node, ast.Import):
			found.update(a.name for a in node.names if a.name.startswith('scoped_uaccess'))
	return found


def layer(module: str) -> int:
	parts = module.split('.')
	return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else -1


class LayoutTest(unittest.TestCase):
	def test_imports_only_go_down(self) -> None:
		upward = [f'{m} imports {i}' for m, p in modules().items() for i in imports(p)
			  if layer(i) > layer(m)]
		self.assertEqual([], upward)

	def test_analysis_imports_only_plumbing(self) -> None:
		wide = [f'{m} imports {i}' for m, p in modules().items() if m.split('.')[1:2] == ['analysis']
			for i in imports(p) if i.split('.')[1] not in ANALYSIS_MAY_IMPORT]
		self.assertEqual([], wide)

	def test_no_import_cycle(self) -> None:
		graph = {m: {i for i in imports(p) if i in modules() and i != m}
			 for m, p in modules().items()}
		state: dict[str, int] = {}

		def visit(m: str, path: list[str]) -> None:
			state[m] = 1
			for n in sorted(graph[m]):
				if state.get(n) == 1:
					self.fail('import cycle: ' + ' -> '.join(path[path.index(n):] + [n]))
				if n not in state:
					visit(n, path + [n])
			state[m] = 2
		for m in graph:
			if m not in state:
				visit(m, [m])

	def test_every_module_is_in_a_stage(self) -> None:
		stray = [m for m in modules() if m.count('.') >= 1 and layer(m) < 0
			 and not m.endswith('__init__') and m != 'scoped_uaccess']
		self.assertEqual([], stray)

	def test_modules_are_small(self) -> None:
		big = [f'{m}: {len(p.read_text().splitlines())} lines' for m, p in modules().items()
		       if len(p.read_text().splitlines()) > MAX_LINES]
		self.assertEqual([], big)


class ApiTablesTest(unittest.TestCase):
	def test_gate_rules_name_whole_families(self) -> None:
		# The gate rule `gate` of each checker script lists literal names for
		# spatch's prefilter, by hand: every name must be the API's, a family
		# named at all must be named whole, and every script declares the
		# scopes, which spatch's C parser needs to parse a scope.
		families = {'OPEN_BEGINS': api.OPEN_BEGINS, 'MASKED_BEGINS': api.MASKED_BEGINS,
			    'ENDS': api.ENDS, 'SCOPES': api.SCOPES, 'ACCESSORS': api.ACCESSORS}
		known = set().union(*families.values())
		for script in check.CHECKERS:
			with self.subTest(script=script.name):
				m = re.search(r'^@gate\b[^\n]*@\n(?P<decls>.*?)^@@\n(?P<body>.*?)\n\n',
					      script.read_text(), re.M | re.S)
				self.assertIsNotNone(m, 'no gate rule @gate')
				decls = set(re.findall(r'\w+', m['decls']))
				positions = re.findall(r'^position ([^;]*);', m['decls'], re.M)
				metavariables = {'S', *re.findall(r'\w+', ''.join(positions))}
				body = set(re.findall(r'\w+', m['body'])) - metavariables
				self.assertLessEqual(set(api.SCOPES), decls)
				self.assertEqual(set(), body - known)
				for name, family in families.items():
					named = body & set(family)
					if named:
						self.assertEqual(set(family), named, name)

	def test_file_macros(self) -> None:
		# The project layer's reading of a file's macros (checker/calls.py):
		# what each function-like macro calls, and whether it is part of
		# the API (ends a region, or wraps accessors and takes their label).
		source = support.TESTCASES / 'cocci' / 'call-in-region' / 'ok-end-macro-and-helper.c'
		self.assertEqual(({'user_write_access_end'}, True),
				 calls.file_macros(str(source))['put_fail'])
		with tempfile.NamedTemporaryFile('w', suffix='.c') as c:
			c.write('#define get2(a, b, p, l) do {\t\\\n'
				'\tunsafe_get_user(a, &(p)[0], l);\t\\\n'
				'\tunsafe_get_user(b, &(p)[1], l); } while (0)\n'
				'#define xchg(v, p, l) do { unsafe_get_user(v, p, l); '
				'unsafe_put_user(0, p, l); } while (0)\n'
				'#define no_label(v, p) unsafe_get_user(v, p, out)\n'
				'#define NR 3\n'
				'#ifdef CONFIG_SLICE\n'
				'#define clear(u, l) do { if (on()) unsafe_put_user(0, u, l); } while (0)\n'
				'#else\n#define clear(u, l) do { } while (0)\n#endif\n'
				'#define stat_inc(x) this_cpu_inc(x)\n')
			c.flush()
			macros = calls.file_macros(c.name)
			self.assertEqual({'get2': True, 'xchg': True, 'no_label': False, 'clear': True,
					  'stat_inc': False}, {k: v[1] for k, v in macros.items()})
			self.assertEqual({'this_cpu_inc'}, macros['stat_inc'][0])
			self.assertEqual({'on', 'unsafe_put_user'}, macros['clear'][0])
		self.assertEqual({}, calls.file_macros('/nonexistent.c'))

if __name__ == '__main__':
	unittest.main()
