# SPDX-License-Identifier: GPL-2.0
"""The tree-wide report: triage, counts, summary and the baseline filter."""

import json
import tempfile
import unittest
from pathlib import Path

import support
from scoped_uaccess.checker import check, report
from scoped_uaccess.checker import findings as fmt
from scoped_uaccess.checker.findings import Finding, Severity
from scoped_uaccess.cocci.spatch import ParseFailure
from scoped_uaccess.core import paths
from scoped_uaccess.kernel import tree
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.checker.report import Triage, Verdict


def findings() -> list[Finding]:
	raw = [Finding('arch/x86/kernel/sys_ia32.c', 157, 1, 16, Severity.ERROR, 'mode-mismatch',
		       'region begun with user_write_access_begin() on line 138 ended with '
		       'user_access_end(), not user_write_access_end()'),
	       Finding('io_uring/net.c', 308, 3, 18, Severity.ERROR, 'range', 'addr'),
	       Finding('arch/powerpc/kernel/signal_32.c', 505, 2, 8, Severity.WARNING,
		       'call-in-region', 'call to memset()')]
	return fmt.assign_ids(raw)


def result() -> check.CheckResult:
	return check.CheckResult(files=['a.c'], findings=findings(), spatch_version='1.1.1',
				 parse_failures=[ParseFailure('arch/powerpc/kernel/signal_32.c', 1054,
							      988, 1089, ('unsafe_put_user',))])


def full_triage() -> dict[str, Triage]:
	r = result()
	t = {f.id: Triage(Verdict.HARMLESS, 'x86 only') for f in r.findings}
	t[r.parse_failures[0].id] = Triage(Verdict.REVIEWED, 'correct')
	return t


class GroupingTest(unittest.TestCase):
	def test_subsystem_and_architecture(self) -> None:
		self.assertEqual('arch/x86', report.subsystem('arch/x86/kernel/sys_ia32.c'))
		self.assertEqual('kernel/futex', report.subsystem('kernel/futex/core.c'))
		self.assertEqual('fs', report.subsystem('fs/select.c'))
		self.assertEqual('x86', report.architecture('arch/x86/kernel/sys_ia32.c'))
		self.assertEqual('all', report.architecture('fs/select.c'))


class TriageTest(unittest.TestCase):
	def write(self, data: object) -> Path:
		tmp = tempfile.NamedTemporaryFile('w', suffix='.json', delete=False)
		json.dump(data, tmp)
		tmp.close()
		self.addCleanup(Path(tmp.name).unlink)
		return Path(tmp.name)

	def test_load(self) -> None:
		path = self.write({'range-1': {'verdict': 'real-bug', 'reason': 'r', 'at': 'a.c:1'}})
		self.assertEqual({'range-1': Triage(Verdict.REAL_BUG, 'r', 'a.c:1')},
				 report.load_triage(path))

	def test_bad_verdict_and_empty_reason(self) -> None:
		with self.assertRaises(UsageError):
			report.load_triage(self.write({'x': {'verdict': 'maybe', 'reason': 'r'}}))
		with self.assertRaises(UsageError):
			report.load_triage(self.write({'x': {'verdict': 'harmless', 'reason': ' '}}))

	def test_untriaged_stale_and_error_false_positives(self) -> None:
		r = result()
		by = {f.cls: f for f in r.findings}
		t = full_triage()
		del t[by['range'].id]
		t['gone-123'] = Triage(Verdict.HARMLESS, 'old')
		t[by['mode-mismatch'].id] = Triage(Verdict.FALSE_POSITIVE, 'no')
		t[by['call-in-region'].id] = Triage(Verdict.FALSE_POSITIVE, 'warning only')
		untriaged, stale, fps = report.judge(r, t)
		self.assertEqual([by['range'].id], untriaged)
		self.assertEqual(['gone-123'], stale)
		self.assertEqual([by['mode-mismatch']], fps)


class SummaryTest(unittest.TestCase):
	def summary(self, triage: dict[str, Triage]) -> str:
		r = result()
		rep = report.ReportResult('6.12.118', Path('out'), r, triage)
		rep.untriaged, rep.stale, rep.error_false_positives = report.judge(r, triage)
		return report.summary(rep, report.describe_tree('baseline-11-gabc1234'))

	def test_every_finding_with_its_verdict(self) -> None:
		text = self.summary(full_triage())
		for f in result().findings:
			self.assertIn(f'`{f.file}:{f.line}`', text)
			self.assertIn(f.id, text)
		self.assertIn('harmless on the architectures it builds for', text)
		self.assertIn('| mode-mismatch | 1 | 0 | 0 | 1 | 0 |', text)
		self.assertIn('| arch/powerpc | 1 | 0 |', text)
		self.assertIn('| x86 | 1 | 1 |', text)
		self.assertIn('`arch/powerpc/kernel/signal_32.c:988-1089`', text)
		self.assertNotIn('NOT TRIAGED', text)

	def test_reproduces(self) -> None:
		"""No commit id, no wall time, no path of this machine."""
		text = self.summary(full_triage())
		self.assertNotIn('abc1234', text)
		self.assertNotIn(' s wall time', text)
		self.assertNotIn(str(paths.REPO), text)
		self.assertIn('plus 11 patches of the series', text)

	def test_untriaged_is_visible(self) -> None:
		triage = full_triage()
		del triage[result().findings[0].id]
		text = self.summary(triage)
		self.assertIn('NOT TRIAGED', text)
		self.assertIn('not triaged: the report is incomplete', text)


class BaselineTest(unittest.TestCase):
	def test_only_new_findings(self) -> None:
		r = result()
		old = check.CheckResult(findings=r.findings[1:])
		with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as tmp:
			tmp.write(old.to_json())
		self.addCleanup(Path(tmp.name).unlink)
		self.assertEqual([r.findings[0]], report.new_findings(r, Path(tmp.name)))


class VersionTest(unittest.TestCase):
	def test_version_from_makefile(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			Path(d, 'Makefile').write_text('# SPDX\nVERSION = 6\nPATCHLEVEL = 12\n'
						       'SUBLEVEL = 118\nEXTRAVERSION =\n')
			self.assertEqual('6.12.118', tree.kernel_version(Path(d)))



class ProvenanceTest(unittest.TestCase):
	def test_tree_description(self) -> None:
		self.assertEqual('the pristine `baseline`', report.describe_tree('baseline'))
		self.assertEqual('the pristine `baseline` plus 18 patches of the series',
				 report.describe_tree('baseline-18-gdf5de7e0c'))
		self.assertEqual('not a tree made by `make tree`',
				 report.describe_tree('baseline-18-gdf5de7e0c-dirty'))
		self.assertEqual('the pristine `baseline` (Linux 6.1.192 (Debian linux-source-6.1))',
				 report.describe_tree('baseline', 'Linux 6.1.192 (Debian linux-source-6.1)'))
		self.assertEqual('a directory that is not a git tree',
				 report.describe_tree('not a git tree'))

	def test_results_dir(self) -> None:
		self.assertEqual(paths.RESULTS / 'report' / 'linux-6.12.118-pristine',
				 report.results_dir(report.REPORTS / 'linux-6.12.118' / 'pristine'))
		self.assertEqual(paths.RESULTS / 'report' / 'x', report.results_dir(Path('/tmp/x')))

	def test_plain_directory_is_not_described_by_the_repository_around_it(self) -> None:
		with tempfile.TemporaryDirectory(dir=paths.BUILD if paths.BUILD.is_dir() else None) as d:
			runner = support.quiet_runner()
			self.assertEqual('not a git tree', report.tree_state(runner, Path(d)))
			self.assertIsNone(report.head_commit(runner, Path(d)))

	def test_regenerate_command(self) -> None:
		self.assertEqual('make report', report.regenerate_command(
			report.ReportRequest(kdir=paths.DEFAULT_KDIR)))
		self.assertEqual('make report KDIR=build/linux-6.1', report.regenerate_command(
			report.ReportRequest(kdir=paths.BUILD / 'linux-6.1')))
		self.assertEqual('converter/scoped-uaccess report --kdir build/wt-baseline '
				 '--out o --triage t.json',
				 report.regenerate_command(report.ReportRequest(
					 kdir=Path('build/wt-baseline'), out=Path('o'),
					 triage=Path('t.json'))))

if __name__ == '__main__':
	unittest.main()
