# SPDX-License-Identifier: GPL-2.0
"""The argument sweep: its rows in a console, the comparison, the report, a target not run."""

import json
import re
import subprocess
import tempfile
import unittest
from dataclasses import replace
from pathlib import Path

from support import DATA, quiet_runner
from scoped_uaccess.core import paths
from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.kernel.architectures import Qemu
from scoped_uaccess.sweep import argreport, guest, records as sweep_records
from scoped_uaccess.sweep import faultsweep

SWEEP = DATA / 'faultsweep'
SWAPCONTEXT = ('swapcontext.old', 'ppc64le', 'ctx_size')


def console(name: str, pattern: str = '', replacement: str = '') -> sweep_records.SweepConsole:
	"""A capture (data/faultsweep/README), with one line changed when asked."""
	text = (SWEEP / name).read_text()
	if pattern:
		text, count = re.subn(pattern, replacement, text, count=1, flags=re.M)
		assert count == 1, pattern
	return sweep_records.parse_console(text.splitlines())


class ConsoleTest(unittest.TestCase):
	"""The ppc64le consoles of 7.3.4 and today's series (data/faultsweep/README)."""

	def test_rows_skips_and_records(self) -> None:
		c = console('argsweep-ppc64le-converted.log')
		self.assertEqual([('swapcontext.old', 'ppc64le', 'ctx_size'),
				  ('swapcontext.old', 'ppc64le', 'old_ctx'),
				  ('readdir', 'ppc64le', 'dirent'),
				  ('openat2.zero_tail', 'ppc64le', 'usize'),
				  ('compat_swapcontext.old', 'ppc64le', 'ctx_size')], c.arg_keys())
		self.assertEqual(sweep_records.ArgRow(
			'size', ('arch/powerpc/kernel/signal_64.c:sys_swapcontext',)), c.arg_rows[SWAPCONTEXT])
		self.assertEqual('no-readdir-syscall', c.arg_skips[('readdir', 'ppc64le', 'dirent')])
		self.assertEqual('pointer', c.arg_kinds[('readdir', 'ppc64le', 'dirent')])
		self.assertEqual(16, c.arg_counts[SWAPCONTEXT])
		r = c.records[('swapcontext.old', 'ppc64le', 'arg:ctx_size=2^52')]
		self.assertEqual(('ctx_size', '2^52'), r.arg)
		self.assertEqual(('0', '0', 'fate=exit0'), (r.ret, r.errno, r.state))
		self.assertEqual([], c.problems(('ppc64le',), kuap=True))

	def test_walk_and_argument_records_apart(self) -> None:
		c = console('argsweep-ppc64le-converted.log')
		self.assertEqual(7, c.walk_records('ppc64le'))
		self.assertEqual(7, len(c.records_of('pselect6.argpack', 'ppc64le')))
		self.assertEqual(44, len(c.arg_records(arch='ppc64le')))
		self.assertEqual(16, len(c.arg_records(SWAPCONTEXT)))
		self.assertIsNone(c.records[('pselect6.argpack', 'ppc64le', 'hole:16')].arg)

	def test_a_row_with_records_lost_or_unfinished(self) -> None:
		lost = console('argsweep-ppc64le-converted.log',
			       r'^# sweep swapcontext.old ppc64le pos=arg:ctx_size=-1 .*\n', '')
		self.assertIn('swapcontext.old ppc64le ctx_size: `# argsweep-count` says 16 values, '
			      'the console has 15', lost.problems(('ppc64le',)))
		cut = console('argsweep-ppc64le-converted.log',
			      r'^# argsweep-count swapcontext.old ppc64le arg=old_ctx .*\n', '')
		self.assertIn('swapcontext.old ppc64le old_ctx: no `# argsweep-count` line (the row '
			      'never finished)', cut.problems(('ppc64le',)))

	def test_malformed_skip_line(self) -> None:
		c = console('argsweep-ppc64le-converted.log', r'kind=pointer reason=no-readdir-syscall$',
			    'reason=no-readdir-syscall')
		self.assertEqual(['malformed sweep line: # argsweep-skip readdir ppc64le arg=dirent '
				  'reason=no-readdir-syscall'], c.problems(('ppc64le',)))


class CompareTest(unittest.TestCase):
	def test_swapcontext_size_past_the_range_check(self) -> None:
		"""Today's 7.3 series: on masking powerpc the write scope ignores
		ctx_size, so sizes access_ok() refused now succeed and write."""
		diffs = sweep_records.compare(console('argsweep-ppc64le-baseline.log'),
					      console('argsweep-ppc64le-converted.log'))
		self.assertEqual(18, len(diffs))
		self.assertEqual({'swapcontext.old'}, {d.path for d in diffs})
		self.assertEqual(['2^52', 'LONG_MAX', '-1', '-exact', 'INT_MIN', 'LONG_MIN'],
				 list(dict.fromkeys(d.pos.partition('=')[2] for d in diffs)))
		self.assertEqual(['swapcontext.old ppc64le, arg:ctx_size=2^52, ret: baseline -1, '
				  'converted 0',
				  'swapcontext.old ppc64le, arg:ctx_size=2^52, errno: baseline EFAULT, '
				  'converted 0',
				  'swapcontext.old ppc64le, arg:ctx_size=2^52, data: baseline .384, '
				  'converted .5w.19w2.w83.w67.w32.172'], [str(d) for d in diffs[:3]])

	def test_a_row_skipped_on_one_side_only(self) -> None:
		base = console('argsweep-ppc64le-converted.log')
		conv = console('argsweep-ppc64le-converted.log',
			       r'reason=no-readdir-syscall$', 'reason=other')
		self.assertEqual(['readdir ppc64le, arg:dirent, skip: baseline no-readdir-syscall, '
				  'converted other'], [str(d) for d in sweep_records.compare(base, conv)])


class ReportTest(unittest.TestCase):
	def runs(self, ppc_not_run: str = '') -> tuple[list[argreport.ArchRun], list]:
		base, conv = console('argsweep-ppc64le-baseline.log'), console('argsweep-ppc64le-converted.log')
		diffs = sweep_records.compare(base, conv)
		run = argreport.ArchRun('ppc64le', base, conv,
					argreport.not_run_reason('ppc64le', base, conv, [], ppc_not_run))
		x86 = argreport.ArchRun('x86_64', not_run=argreport.not_run_reason(
			'x86_64', None, None, [], 'qemu-system-x86_64 is not installed; install '
			'qemu-system-x86 (`make deps`)'))
		return [x86, run], diffs

	def data(self, ppc_not_run: str = '') -> dict:
		runs, diffs = self.runs(ppc_not_run)
		return argreport.report_data('7.3.4', ('baseline + 2 commits', 'baseline + 17 commits'),
					     runs, diffs, 'converter/scoped-uaccess faultsweep --kdir '
					     'build/linux-7.3 --install')

	def test_rows_values_and_differences(self) -> None:
		data = self.data()
		rows = {(r['path'], r['arg']): r for r in data['rows']}
		swap = rows[('swapcontext.old', 'ctx_size')]
		self.assertEqual(18, swap['differences'])
		self.assertEqual(16, len(swap['archs']['ppc64le']['values']))
		self.assertEqual({'skipped': 'no-readdir-syscall'}, rows[('readdir', 'dirent')]['archs']['ppc64le'])
		self.assertEqual(0, rows[('openat2.zero_tail', 'usize')]['differences'])
		self.assertEqual(18, data['differences'])
		self.assertEqual({'x86_64': 0, 'ppc64le': 44}, data['records'])

	def test_an_arch_not_run_counts_no_differences(self) -> None:
		data = self.data()
		for row in data['rows']:
			self.assertIn('not_run', row['archs']['x86_64'])
			self.assertEqual(['x86_64'], row['not_run'])
		md = argreport.render_markdown(data)
		self.assertIn('NOT RUN on x86_64, whose rows count no differences', md)
		self.assertIn('- NOT RUN on x86_64: qemu-system-x86_64 is not installed', md)
		self.assertIn('| swapcontext.old ctx_size | size | NOT RUN | 16 (18 differ) | '
			      '18 (not run on x86_64) | exact+256 | '
			      '`arch/powerpc/kernel/signal_64.c:sys_swapcontext` |', md)
		self.assertIn('| compat_swapcontext.old ctx_size | size | NOT RUN | skip: '
			      'no-32-bit-powerpc-task:no-little-endian-ppc32-userland,'
			      'no-COMPAT-in-the-ppc64le-kernel | 0 (not run on x86_64) | - | - |', md)
		ppc = self.data('converted: ppc64le: the program never finished (no exit status from '
				'/init)')
		self.assertEqual(0, ppc['differences'])
		self.assertEqual({'x86_64': 0, 'ppc64le': 0}, ppc['records'])

	def test_not_run_reason_names_the_side_and_the_problem(self) -> None:
		conv = console('argsweep-ppc64le-converted.log', r'^# sweep-done .*\n', '')
		base = console('argsweep-ppc64le-baseline.log')
		problems = [f'converted: {p}' for p in conv.problems(('ppc64le',))]
		self.assertEqual('converted: ppc64le: no `# sweep-done` line',
				 argreport.not_run_reason('ppc64le', base, conv, problems))
		self.assertEqual('', argreport.not_run_reason('ppc64le', base, base, []))
		self.assertEqual('baseline: not booted', argreport.not_run_reason('ppc64le', None, base, []))

	def test_markdown_and_json_are_reproducible_and_machine_free(self) -> None:
		data = self.data()
		md, js = argreport.render_markdown(data), argreport.render_json(data)
		self.assertEqual(md, argreport.render_markdown(self.data()))
		self.assertEqual(data, json.loads(js))
		for text in (md, js):
			self.assertNotIn(str(paths.REPO), text)
			self.assertNotRegex(text, r'\b[0-9a-f]{12,40}\b')
		self.assertIn('    swapcontext.old ppc64le, arg:ctx_size=LONG_MIN, data: baseline .384, '
			      'converted .5w.19w2.w83.w67.w32.172', md)
		self.assertIn('| size | ppc64le | `exact` `0` `exact-1` `top` `top+1` `2^31` `INT_MAX` '
			      '`2^32` `UINT_MAX` `2^52` `LONG_MAX` `-1` `-exact` `INT_MIN` `LONG_MIN` |', md)


class NotRunTest(unittest.TestCase):
	def test_the_machines_of_the_targets(self) -> None:
		self.assertEqual('pseries', guest.machine(guest.TARGETS['ppc64le']))
		self.assertEqual('pc', guest.machine(guest.TARGETS['x86_64']))

	def test_a_qemu_without_the_machine_or_not_installed(self) -> None:
		"""Real QEMU binaries: `-machine help` lists pseries, not ppce600."""
		t = guest.TARGETS['ppc64le']
		runner = quiet_runner()
		guest.require_qemu(runner, t)
		assert t.kernel.qemu is not None
		lacking = replace(t, kernel=replace(t.kernel, qemu=replace(
			t.kernel.qemu, machine_args=('-M', 'ppce600,x=y', '-m', '64'))))
		with self.assertRaisesRegex(EnvironmentProblem, 'qemu-system-ppc64 has no machine ppce600'):
			guest.require_qemu(runner, lacking)
		missing = replace(t, kernel=replace(t.kernel, qemu=Qemu(
			'qemu-system-nonesuch', 'qemu-system-nonesuch', (), 'console=x', 'vmlinux')))
		with self.assertRaisesRegex(EnvironmentProblem, 'qemu-system-nonesuch is not installed'):
			guest.require_qemu(runner, missing)

	def test_a_target_not_run_says_so_per_arch(self) -> None:
		tr = faultsweep.TargetResult(guest.TARGETS['x86_64'],
					     not_run='qemu-system-x86_64 is not installed')
		self.assertEqual('x86_64: NOT RUN: qemu-system-x86_64 is not installed', tr.summary())
		self.assertEqual([('x86_64', 'qemu-system-x86_64 is not installed'),
				  ('i386', 'qemu-system-x86_64 is not installed')],
				 [(r.arch, r.not_run) for r in tr.arch_runs()])
		self.assertFalse(tr.passed)
		self.assertEqual(['x86_64: qemu-system-x86_64 is not installed'],
				 faultsweep.SweepResult([tr]).not_run)

	def test_report_kdir_of_a_worktree_at_the_trees_commit(self) -> None:
		"""A worktree at the tree's HEAD reports as the tree; once the tree
		moves on, as itself."""
		runner = quiet_runner()
		with tempfile.TemporaryDirectory() as tmp:
			tree, wt = Path(tmp) / 'linux-7.3', Path(tmp) / 'wt-h-x'
			git = ('git', '-c', 'user.name=t', '-c', 'user.email=t@t')
			subprocess.run((*git, 'init', '-q', str(tree)), check=True)
			subprocess.run((*git, '-C', str(tree), 'commit', '-q', '--allow-empty', '-m', 'a'),
				       check=True)
			subprocess.run((*git, '-C', str(tree), 'worktree', 'add', '-q', '--detach', str(wt)),
				       check=True)
			self.assertEqual(tree.resolve(), faultsweep.report_kdir(runner, wt).resolve())
			self.assertEqual(tree, faultsweep.report_kdir(runner, tree))
			subprocess.run((*git, '-C', str(tree), 'commit', '-q', '--allow-empty', '-m', 'b'),
				       check=True)
			self.assertEqual(wt, faultsweep.report_kdir(runner, wt))


if __name__ == '__main__':
	unittest.main()
