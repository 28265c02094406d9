# SPDX-License-Identifier: GPL-2.0
"""Fault sweep consoles and boots: records, console problems, the comparison, the initramfs."""

import re
import unittest
from pathlib import Path

from support import DATA
from scoped_uaccess.kernel import cpio
from scoped_uaccess.kernel.qemu import ACCELERATORS, Accelerator, boot_command
from scoped_uaccess.sweep import guest, records as sweep_records
from scoped_uaccess.sweep.records import Difference

SWEEP = DATA / 'faultsweep'


def console(name: str) -> sweep_records.SweepConsole:
	return sweep_records.parse_console((SWEEP / name).read_text().splitlines())


def edited(name: str, pattern: str, replacement: str) -> sweep_records.SweepConsole:
	"""A capture with one line changed."""
	new, count = re.subn(pattern, replacement, (SWEEP / name).read_text(), count=1, flags=re.M)
	assert count == 1, pattern
	return sweep_records.parse_console(new.splitlines())


class RecordsTest(unittest.TestCase):
	"""Trimmed real captures (TCG, 6.12.118), see data/faultsweep/README."""

	def test_x86_64_capture(self) -> None:
		c = console('x86_64-converted.log')
		r = c.records[('recvmsg.creds', 'x86_64', 'top:24')]
		self.assertEqual(('1', '0', 'G6', 'flags=0,clen=0'), (r.ret, r.errno, r.data, r.state))
		self.assertEqual(('net/core/scm.c:put_cmsg',), c.regions[('recvmsg.creds', 'x86_64')])
		self.assertEqual((), c.regions[('recvmsg.creds', 'i386')])
		self.assertEqual('no-readdir-syscall', c.skips[('readdir', 'x86_64')])
		self.assertEqual(20, c.counts[('recvmsg.creds', 'x86_64')].positions)
		self.assertEqual({'x86_64': 0, 'i386': 0}, c.exits)
		self.assertEqual([], c.problems(('x86_64', 'i386')))
		self.assertFalse(c.kuap_on)

	def test_paths_keep_the_program_order_with_skips(self) -> None:
		c = console('x86_64-converted.log')
		self.assertEqual(['pselect6.argpack', 'waitid.infop', 'readdir', 'recvmsg.creds'],
				 [p for p, _ in c.paths('x86_64')])

	def test_ppc64le_capture_says_kuap_is_on(self) -> None:
		c = console('ppc64le-converted.log')
		self.assertTrue(c.kuap_on)
		self.assertEqual([], c.problems(('ppc64le',), kuap=True))
		self.assertEqual(('arch/powerpc/kernel/signal_64.c:sys_rt_sigreturn',),
				 c.regions[('rt_sigreturn', 'ppc64le')])

	def test_kuap_required_but_not_on(self) -> None:
		c = edited('ppc64le-converted.log', r'^Activating Kernel Userspace Access Prevention$',
			   'Not activating anything')
		self.assertEqual(['KUAP is not on: no "Activating Kernel Userspace Access Prevention" '
				  'in the boot log'], c.problems(('ppc64le',), kuap=True))

	def test_unfinished_program(self) -> None:
		c = edited('x86_64-converted.log', r'^# faultsweep-init i386 exit 0$', '')
		self.assertEqual(['i386: the program never finished (no exit status from /init)'],
				 c.problems(('x86_64', 'i386')))

	def test_lost_records_and_malformed_lines(self) -> None:
		c = edited('x86_64-converted.log', r'^(# sweep waitid.infop x86_64 pos=hole:8 .*)$',
			   r'\1 [ 12.3] split')
		c2 = edited('x86_64-converted.log', r'^# sweep waitid.infop x86_64 pos=hole:8 .*$',
			    '# sweep waitid.infop x86_64 pos=hole:8 ret=')
		self.assertEqual([], c.problems(('x86_64',)))	# the state takes the rest
		self.assertEqual(['x86_64: `# sweep-done` says 34 records, the console has 33',
				  'malformed sweep line: # sweep waitid.infop x86_64 pos=hole:8 ret='],
				 c2.problems(('x86_64',)))


class CompareTest(unittest.TestCase):
	def test_baseline_against_converted_x86_64(self) -> None:
		diffs = sweep_records.compare(console('x86_64-baseline.log'),
					      console('x86_64-converted.log'))
		self.assertEqual([
			'recvmsg.creds x86_64, top:24, data: baseline .6, converted G6',
			'recvmsg.creds x86_64, top:20, data: baseline .5, converted G4.',
			'recvmsg.creds x86_64, top:16, data: baseline .4, converted G4',
			'recvmsg.creds x86_64, top:12, data: baseline .3, converted G3',
			'recvmsg.creds x86_64, top:8, data: baseline .2, converted G2'],
			[str(d) for d in diffs])

	def test_same_console_has_no_difference(self) -> None:
		c = console('ppc64le-converted.log')
		self.assertEqual([], sweep_records.compare(c, console('ppc64le-converted.log')))

	def test_every_field_absent_records_and_skips(self) -> None:
		base = console('x86_64-converted.log')
		conv = edited('x86_64-converted.log', r'^# sweep waitid.infop x86_64 pos=hole:4 .*$',
			      '# sweep waitid.infop x86_64 pos=hole:4 ret=0 errno=0 data=. '
			      'state=child=left')
		self.assertEqual({'ret', 'errno', 'data', 'state'},
				 {d.field for d in sweep_records.compare(base, conv)})
		gone = edited('x86_64-converted.log', r'^# sweep waitid.infop x86_64 pos=kernel .*$', '')
		self.assertEqual([Difference('waitid.infop', 'x86_64', 'kernel', 'record', 'present',
					     '(absent)')], sweep_records.compare(base, gone))
		skipped = edited('x86_64-converted.log', r'^# sweep-skip readdir x86_64 .*$',
				 '# sweep-skip readdir x86_64 reason=other')
		self.assertEqual(['readdir x86_64, -, skip: baseline no-readdir-syscall, converted other'],
				 [str(d) for d in sweep_records.compare(base, skipped)])

	def test_a_masked_top_position_that_faults_as_at_a_hole_is_accepted(self) -> None:
		base, conv = console('x86_64-baseline.log'), console('x86_64-converted.log')
		tops = [('recvmsg.creds', 'x86_64', f'top:{n}') for n in (24, 20, 16, 12, 8)]
		self.assertEqual(tops, sweep_records.top_as_hole(base, conv, ('x86_64', 'i386')))
		self.assertEqual([], sweep_records.top_as_hole(base, conv, ('i386',)))
		self.assertEqual([], sweep_records.compare(base, conv, None, tops))
		# Anything else at a top position stays a difference.
		other = edited('x86_64-converted.log', r'^# sweep recvmsg.creds x86_64 pos=top:24 .*$',
			       '# sweep recvmsg.creds x86_64 pos=top:24 ret=1 errno=0 data=G5x '
			       'state=flags=0,clen=0')
		accepted = sweep_records.top_as_hole(base, other, ('x86_64',))
		self.assertEqual(tops[1:], accepted)
		self.assertEqual(['recvmsg.creds x86_64, top:24, data: baseline .6, converted G5x'],
				 [str(d) for d in sweep_records.compare(base, other, None, accepted)])

	def test_archs_restrict_the_comparison(self) -> None:
		diffs = sweep_records.compare(console('x86_64-baseline.log'),
					      console('x86_64-converted.log'), ('i386',))
		self.assertEqual([], diffs)


class BootTest(unittest.TestCase):
	def test_x86_64_initramfs_runs_both_programs_from_busybox(self) -> None:
		t = guest.TARGETS['x86_64']
		built = {p.name: SWEEP / 'README' for p in t.programs}
		entries = {e.path: e for e in guest.initramfs_entries(t, built)}
		self.assertEqual(cpio.Kind.CHAR, entries['dev/console'].kind)
		self.assertIn('bin/faultsweep-i386', entries)
		script = entries['init'].data.decode()
		self.assertIn('/bin/faultsweep-x86_64; echo "# faultsweep-init x86_64 exit $?"\n'
			      '/bin/faultsweep-i386; echo "# faultsweep-init i386 exit $?"', script)
		self.assertEqual(('-m32', '-idirafter', '/usr/include/x86_64-linux-gnu'),
				 tuple(t.programs[1].compile_command(Path('x')).argv[1:4]))

	def test_ppc64le_program_is_init(self) -> None:
		t = guest.TARGETS['ppc64le']
		entries = guest.initramfs_entries(t, {'faultsweep-ppc64le': SWEEP / 'README'})
		self.assertEqual(['dev', 'proc', 'sys', 'tmp', 'dev/console', 'init'],
				 [e.path for e in entries])
		argv = boot_command(t.kernel, Path('vmlinux'), Path('i.cpio'), t.append,
			    ACCELERATORS[Accelerator.TCG]).argv
		self.assertEqual('qemu-system-ppc64', argv[2])
		self.assertIn('pseries,cap-htm=off', argv)
		self.assertEqual(['-cpu', 'power9'], list(argv[-2:]))
		self.assertIn('console=hvc0', argv[argv.index('-append') + 1])
		self.assertEqual('powerpc64le-linux-gnu-gcc', t.programs[0].compile_command(Path('x')).argv[0])


if __name__ == '__main__':
	unittest.main()
