# SPDX-License-Identifier: GPL-2.0
"""The fault sweep gate: its kernels, its report, the mutation check."""

import json
import unittest
from pathlib import Path

from support import DATA
from test_sweep_records import console
from scoped_uaccess.core import paths
from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.sweep import guest, mutation as sweep_mutation
from scoped_uaccess.sweep import records as sweep_records, report as sweep_report
from scoped_uaccess.sweep import faultsweep
from scoped_uaccess.userspace import syscalls

SWEEP = DATA / 'faultsweep'


class ReportTest(unittest.TestCase):
	def data(self) -> dict:
		conv = console('x86_64-converted.log')
		ppc = console('ppc64le-converted.log')
		diffs = sweep_records.compare(console('x86_64-baseline.log'), conv)
		as_hole = [('recvmsg.creds', 'x86_64', f'top:{n}') for n in (24, 20, 16, 12, 8)]
		conversion = json.loads((SWEEP / 'conversion.json').read_text())
		targets = [{'target': 'x86_64', 'archs': ['x86_64', 'i386'],
			    'config': 'testcases/kernel/x86_64.config', 'kuap': False, 'kuap_on': False,
			    'records': {'x86_64': 34, 'i386': 15}, 'differences': 5, 'problems': []}]
		return sweep_report.report_data('6.12.118', ('baseline + 8 commits', 'baseline + 18 commits'), targets,
						{'x86_64': conv, 'i386': conv, 'ppc64le': ppc}, diffs,
						as_hole, conversion)

	def test_one_entry_per_path_and_arch(self) -> None:
		paths_ = self.data()['paths']
		creds = next(e for e in paths_ if e['path'] == 'recvmsg.creds' and e['arch'] == 'x86_64')
		self.assertEqual(20, creds['positions'])
		self.assertEqual(5, creds['differences'])
		self.assertEqual(['net/core/scm.c:put_cmsg'], creds['regions'])
		readdir = next(e for e in paths_ if e['path'] == 'readdir' and e['arch'] == 'x86_64')
		self.assertEqual((0, 'no-readdir-syscall'), (readdir['positions'], readdir['skipped']))

	def test_top_positions_faulting_as_at_a_hole_get_a_section(self) -> None:
		text = sweep_report.render_markdown(self.data())
		self.assertIn('## The top of user space under masking', text)
		self.assertIn('| recvmsg.creds | x86_64 | 5 | top:8 to top:24 |', text)

	def test_regions_reached_and_why_not(self) -> None:
		regions = {f'{r["file"]}:{r["function"]}': r for r in self.data()['regions']}
		self.assertEqual(['recvmsg.creds (x86_64)', 'recvmsg.creds (ppc64le)'],
				 regions['net/core/scm.c:put_cmsg']['reached_by'])
		self.assertEqual('converted', regions['fs/select.c:get_sigset_argpack']['status'])
		# a syscall by its symbol, in the converter's table and the sweep's
		self.assertEqual(['rt_sigreturn (ppc64le)'],
				 regions['arch/powerpc/kernel/signal_64.c:sys_rt_sigreturn']['reached_by'])
		self.assertEqual(['waitid.infop (x86_64)'],
				 regions['kernel/exit.c:sys_waitid']['reached_by'])
		self.assertEqual('no i915 device in QEMU', regions[
			'drivers/gpu/drm/i915/i915_query.c:copy_perf_config_registers_or_number']['unreached'])
		tm = regions['arch/powerpc/kernel/signal_32.c:do_setcontext_tm']
		self.assertIn('transactional memory', tm['unreached'])
		self.assertEqual('no path reaches it, and no reason is recorded',
				 regions['kernel/rseq.c:rseq_update_cpu_node_id']['unreached'])

	def test_markdown_and_json_are_reproducible_and_machine_free(self) -> None:
		data = self.data()
		md, js = sweep_report.render_markdown(data), sweep_report.render_json(data)
		self.assertEqual(md, sweep_report.render_markdown(self.data()))
		self.assertEqual(data, json.loads(js))
		for text in (md, js):
			self.assertNotIn(str(paths.REPO), text)
			self.assertNotRegex(text, r'\b[0-9a-f]{12,40}\b')
		self.assertIn('| recvmsg.creds | 20 | 15 | 19 | 5 | x86_64/ppc64le: '
			      '`net/core/scm.c:put_cmsg`; i386: none |', md)
		self.assertIn('    recvmsg.creds x86_64, top:8, data: baseline .2, converted G2', md)
		self.assertIn('| `drivers/gpu/drm/i915/gem/i915_gem_execbuffer.c:eb_copy_relocations` '
			      '| converted (0023-drm-i915-gem-Convert-to-scoped-user-access.patch) | '
			      'not reachable: no i915 device in QEMU |', md)


class KernelsTest(unittest.TestCase):
	def test_x86_64_boots_the_userspace_kernels_unconfigured_again(self) -> None:
		"""Same Build as userspace/syscalls.py's, so its configure stamp matches."""
		t = guest.TARGETS['x86_64']
		request = faultsweep.FaultsweepRequest(Path('conv'), 'base-commit')
		base, conv = faultsweep.kernels(t, request)
		self.assertEqual(paths.OUT / 'user-validate-baseline', base.build_dir)
		ur = syscalls.UserspaceRequest(kdir=Path('conv'), name='converted')
		self.assertEqual(syscalls.kernel_build(ur), faultsweep.kernel_build(t, conv))
		ppc = faultsweep.kernels(guest.TARGETS['ppc64le'], request)
		self.assertEqual([paths.OUT / 'faultsweep-ppc64le-baseline',
				  paths.OUT / 'faultsweep-ppc64le-converted'], [k.build_dir for k in ppc])
		self.assertEqual((), faultsweep.kernel_build(guest.TARGETS['ppc64le'], ppc[1]).make_options)

	def test_baselines_build_in_the_converted_kernels_directory(self) -> None:
		"""The baseline is rebuilt incrementally where the converted kernel is
		built (the gcc KUnit kernel's directory on x86_64); only its image is
		kept apart, where the boots look for it."""
		request = faultsweep.FaultsweepRequest(Path('conv'), 'base-commit')
		x86 = faultsweep.baseline_pair(guest.TARGETS['x86_64'], request)
		self.assertEqual(paths.kunit_build_dir('gcc'), x86.build.out)
		self.assertEqual(Path('conv'), x86.build.srctree)
		self.assertEqual(paths.OUT / 'user-validate-baseline' / 'arch/x86/boot/bzImage', x86.kept)
		self.assertEqual(syscalls.CONFIG, x86.config)
		ppc = faultsweep.baseline_pair(guest.TARGETS['ppc64le'], request)
		self.assertEqual(paths.OUT / 'faultsweep-ppc64le-converted', ppc.build.out)
		self.assertEqual(paths.OUT / 'faultsweep-ppc64le-baseline', ppc.keep)


class MutationTest(unittest.TestCase):
	source = (SWEEP / 'exit-waitid.c').read_text()

	def mutant(self, name: str) -> str:
		(m,) = [m for m in sweep_mutation.MUTATIONS_LIST if m.name == name]
		return sweep_mutation.mutate(self.source, m)

	def test_swap_writes_si_errno_first(self) -> None:
		text = self.mutant('swap-accessors')
		self.assertLess(text.index('si_errno'), text.index('si_signo'))

	def test_wrong_mode_opens_a_read_scope(self) -> None:
		self.assertIn('scoped_user_read_access(infop, Efault) {', self.mutant('wrong-mode'))

	def test_open_coded_mutants_differ_on_the_fault_path_only(self) -> None:
		missing, wrong = self.mutant('missing-end'), self.mutant('wrong-end')
		self.assertIn('\tuser_write_access_end();\n\treturn err;\nEfault:\n\treturn -EFAULT;\n',
			      missing)
		self.assertIn('Efault:\n\tuser_read_access_end();\n\treturn -EFAULT;\n', wrong)
		self.assertNotIn('scoped_user', missing + wrong)
		self.assertIn('\tunsafe_put_user(info.status, &infop->si_status, Efault);\n', missing)

	def test_unknown_shape_is_an_error(self) -> None:
		with self.assertRaises(EnvironmentProblem):
			sweep_mutation.mutate('int x;\n', sweep_mutation.MUTATIONS_LIST[0])

	def test_verdicts_compare_with_the_expectation(self) -> None:
		wrong_end = sweep_mutation.MUTATIONS_LIST[-1]
		detectors = ('x86_64', 'ppc64le', 'objtool', 'checker')
		result = sweep_mutation.MutationResult(wrong_end, {'checker': 'mode-mismatch'})
		self.assertEqual([], result.verdicts(detectors))
		result.seen['ppc64le'] = 'console: WARNING: ...'
		self.assertEqual(['wrong-end: ppc64le reported it: console: WARNING: ...'],
				 result.verdicts(detectors))
		del result.seen['checker']
		self.assertIn('wrong-end: checker did not report it', result.verdicts(detectors))

	def test_objtool_lines(self) -> None:
		log = ('  CC      kernel/exit.o\n'
		       'kernel/exit.o: warning: objtool: __do_sys_waitid+0x1a4: return with UACCESS '
		       'enabled\n')
		self.assertEqual(['kernel/exit.o: warning: objtool: __do_sys_waitid+0x1a4: return with '
				  'UACCESS enabled'], sweep_mutation.objtool_lines(log))

	def test_objtool_only_with_x86_64(self) -> None:
		self.assertEqual(('ppc64le', 'checker'), sweep_mutation.detectors_of(('ppc64le',)))
		self.assertEqual(('x86_64', 'ppc64le', 'objtool', 'checker'),
				 sweep_mutation.detectors_of(('x86_64', 'ppc64le')))

	def test_objtool_lines_of_vmlinux(self) -> None:
		# What the x86_64 build printed for the missing-end mutation:
		# objtool ran on vmlinux.o, not on exit.o.
		log = ('  LD      vmlinux.o\n'
		       'vmlinux.o: warning: objtool: __do_sys_waitid+0xd5: return with UACCESS enabled\n'
		       'vmlinux.o: warning: objtool: do_foo+0x10: call to bar() with UACCESS enabled\n')
		self.assertEqual(['vmlinux.o: warning: objtool: __do_sys_waitid+0xd5: return with '
				  'UACCESS enabled'], sweep_mutation.objtool_lines(log))


if __name__ == '__main__':
	unittest.main()


class CommittedReportsTest(unittest.TestCase):
	"""The committed sweep reports are of the series as it is: a series
	regenerated without `make faultsweep-install` leaves them describing
	commits that are gone (6.12's said 34 of a 26-patch series)."""

	def test_the_sweep_reports_count_the_commits_of_their_series(self) -> None:
		import re
		from scoped_uaccess.kernel import sources
		from scoped_uaccess.kernel.series import read_series
		checked = 0
		for source in sources.SOURCES.values():
			if source.patches is None or not (source.patches / 'series').is_file():
				continue
			count = len(read_series(source.patches))
			for report in sorted(paths.REPORTS.glob(f'linux-{source.series}.*/*sweep.md')):
				m = re.search(r'^- converted: baseline \+ the (\d+) commits', report.read_text(),
					      re.M)
				self.assertIsNotNone(m, report)
				self.assertEqual(count, int(m.group(1)),
						 f'{report}: run make faultsweep-install KDIR={source.kdir}')
				checked += 1
		self.assertGreaterEqual(checked, 4)
