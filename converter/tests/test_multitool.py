# SPDX-License-Identifier: GPL-2.0
"""Microsoft's SARIF Multitool: its output parsed, and every SARIF log the
project writes validated with no error and no warning (when `make deps`
has installed it under build/npm)."""

import tempfile
import unittest
from pathlib import Path

import support
from scoped_uaccess.checker import check, findings
from scoped_uaccess.kernel import deps, multitool

# Trimmed from a real `Sarif.Multitool validate` log.
OUTPUT = {'runs': [{'tool': {'driver': {'rules': [
	{'id': 'SARIF2010', 'name': 'ProvideCodeSnippets', 'messageStrings': {'Note_Default': {
		'text': "{0}: The 'region' object in this result location does not provide a "
			"'snippet' property."}}},
	{'id': 'SARIF1004', 'name': 'ExpressUriBaseIdsCorrectly', 'messageStrings': {
		'Error_UriBaseIdRequiresRelativeUri': {'text': '{0}: bad {1}'}}}]}},
	'results': [
		{'ruleId': 'SARIF2010', 'level': 'note',
		 'message': {'id': 'Note_Default', 'arguments': ['runs[0].results[0]']},
		 'locations': [{'physicalLocation': {'artifactLocation': {'uri': 'file:///r/a.sarif'}}}]},
		{'ruleId': 'SARIF1004', 'level': 'error',
		 'message': {'id': 'Error_UriBaseIdRequiresRelativeUri', 'arguments': ['x', 'y']},
		 'locations': [{'physicalLocation': {'artifactLocation': {'uri': 'file:///r/a.sarif'}}}]},
	]}]}


class ParseTest(unittest.TestCase):
	def test_levels_rules_and_messages(self) -> None:
		found = multitool.parse(OUTPUT)
		self.assertEqual(['note', 'error'], [p.level for p in found])
		self.assertEqual("runs[0].results[0]: The 'region' object in this result location "
				 "does not provide a 'snippet' property.", found[0].text)
		self.assertEqual('/r/a.sarif: error: SARIF1004 ExpressUriBaseIdsCorrectly: x: bad y',
				 found[1].line())

	def test_missing_tool_is_an_environment_problem(self) -> None:
		if multitool.BINARY.is_file():
			self.skipTest('installed')
		from scoped_uaccess.core.errors import EnvironmentProblem
		with self.assertRaises(EnvironmentProblem):
			multitool.validate(support.quiet_runner(), [Path('x.sarif')])


class DepsTest(unittest.TestCase):
	def test_provided_packages_count_as_installed(self) -> None:
		names = deps.installed_names('nodejs installed nodejs-dev, npm (= 1), nodejs-legacy\n'
					     'npm not-installed \nlibc6:amd64 installed \n')
		self.assertIn('npm', names)
		self.assertIn('libc6', names)
		self.assertIn('nodejs', names)

	def test_deps_install_what_the_multitool_needs(self) -> None:
		for p in (*multitool.DEBIAN_PACKAGES, 'linux-source-6.1'):
			self.assertIn(p, deps.REQUIRED_PACKAGES)


@unittest.skipUnless(multitool.BINARY.is_file(),
		     'the SARIF Multitool is not installed: run make deps')
class ValidateTest(unittest.TestCase):
	"""Every SARIF log the project writes: the committed reports and what
	`check --format sarif` and the report write, with and without this
	machine's paths."""

	def test_every_log_validates(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			Path(d, 'a.c').write_text('int f(void)\n{\n\tuser_access_end();\n}\n')
			result = check.CheckResult(files=['a.c'], spatch_version='1.1.1', findings=[
				findings.Finding('a.c', 3, 1, 16, findings.Severity.ERROR,
						 'end-without-begin', 'f(): end', 'end-without-begin-1'),
				findings.Finding('a.c', 4, 0, 1, findings.Severity.WARNING,
						 'call-in-region', 'f(): call', 'call-in-region-1')])
			written = []
			for name, tree in (('committed', findings.SarifTree('6.1.192', 'pristine')),
					   ('local', findings.SarifTree('6.1.192', 'pristine',
									Path(d).as_uri() + '/', 'abc')),
					   ('check', findings.SarifTree(None, root_uri=Path(d).as_uri() + '/'))):
				path = Path(d, f'{name}.sarif')
				path.write_text(result.to_sarif(Path(d), tree))
				written.append(path)
			files = written + multitool.sarif_files(support.REPO / 'reports')
			validation = multitool.validate(support.quiet_runner(), files)
		self.assertTrue(any('reports' in str(f) for f in files))
		self.assertEqual([], [p.line() for p in validation.problems])
		self.assertEqual(len(files), len(validation.files))


if __name__ == '__main__':
	unittest.main()
