# SPDX-License-Identifier: GPL-2.0
"""The fixes' boot tests: how a console is judged, which kernels boot, the report."""

import tempfile
import unittest
from pathlib import Path

from support import REPO
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.gates import fixes_boot
from scoped_uaccess.gates.fixes_boot import CONTROL, FIXED, PRISTINE, FixBoot, Run

CONSOLE = '''[    0.5] Run /init as init process
# fixes-dcbz begin
1..3
ok 1 aligned: dcbz at 128 cleared bytes 128-255
not ok 2 unaligned: dcbz at 264 must clear bytes 256-383, cleared 264-391
ok 3 the uprobe ran both: the kernel emulated them
# block 128 bytes, emulate_dcbz() cleared the wrong bytes
# fixes-dcbz end
[    1.2] reboot: Power down
'''

RSEQ = '''# fixes-rseq begin
1..2
# TASK_SIZE 0xbffe0000
# sequences at 0x90000000
ok 1 a preemption inside the sequence resumes at its abort handler (exit status 0)
ok 2 an abort handler without the signature gets the task killed (killed by signal 11)
# fixes-rseq end
'''
RSEQ_CONTROL = RSEQ.replace(
	'ok 1 a preemption inside the sequence resumes at its abort handler (exit status 0)',
	'not ok 1 a preemption inside the sequence resumes at its abort handler '
	'(killed by signal 11)')


def run_of(label: str, text: str) -> Run:
	run = Run(label)
	run.results, run.problems = fixes_boot.parse_console(text, 'test')
	run.task_size = fixes_boot.task_size(text)
	return run


def boot_named(name: str, arch: str) -> FixBoot:
	return next(b for b in fixes_boot.BOOTS if b.name == name and b.arch.name == arch)


class ConsoleTest(unittest.TestCase):
	def test_console(self) -> None:
		results, problems = fixes_boot.parse_console(CONSOLE, 'dcbz-uprobe')
		self.assertEqual([1, 2, 3], sorted(results))
		self.assertEqual((False, 'unaligned: dcbz at 264 must clear bytes 256-383, '
				  'cleared 264-391'), results[2])
		self.assertEqual([], problems)
		_, problems = fixes_boot.parse_console(CONSOLE.replace('# fixes-dcbz end\n', ''), 'x')
		self.assertEqual(['x: no end line on the console'], problems)

	def test_task_size_is_the_tests_diagnostic(self) -> None:
		self.assertEqual('0xbffe0000', fixes_boot.task_size(RSEQ))
		self.assertEqual('', fixes_boot.task_size(CONSOLE))


class VerdictTest(unittest.TestCase):
	def test_the_pristine_kernel_must_show_the_bug_and_the_fixed_one_not(self) -> None:
		boot = boot_named('dcbz-uprobe', 'powerpc')
		shown = run_of(PRISTINE, CONSOLE)
		good = run_of(FIXED, CONSOLE.replace('not ok 2', 'ok 2'))
		self.assertEqual([], fixes_boot.verdict(boot, {PRISTINE: shown, FIXED: good}))
		# A pristine kernel that passes shows nothing: the test proves nothing.
		self.assertEqual(['pristine: passes 2 unaligned: dcbz at 264 must clear bytes '
				  '256-383, cleared 264-391'],
				 fixes_boot.verdict(boot, {PRISTINE: good, FIXED: good}))
		self.assertEqual(['fixed: fails 2 unaligned: dcbz at 264 must clear bytes 256-383, '
				  'cleared 264-391'],
				 fixes_boot.verdict(boot, {PRISTINE: shown, FIXED: shown}))
		oops = run_of(FIXED, CONSOLE.replace('not ok 2', 'ok 2') +
			      'Oops: Kernel access of bad area\n')
		self.assertEqual(['fixed: Oops: Kernel access of bad area'],
				 fixes_boot.verdict(boot, {PRISTINE: shown, FIXED: oops}))

	def test_the_control_fails_where_its_record_says_and_only_there(self) -> None:
		e500, i386 = boot_named('rseq-abort', 'powerpc32'), boot_named('rseq-abort', 'i386')
		self.assertEqual((1,), e500.control_fails)
		self.assertEqual((), i386.control_fails)
		good, bad = run_of(PRISTINE, RSEQ), run_of(CONTROL, RSEQ_CONTROL)
		self.assertEqual([], fixes_boot.verdict(
			e500, {PRISTINE: good, CONTROL: bad, FIXED: run_of(FIXED, RSEQ)}))
		# A control that passes where it must fail: the test cannot catch it.
		self.assertEqual(['control: passes 1 a preemption inside the sequence resumes at '
				  'its abort handler (exit status 0)'],
				 fixes_boot.verdict(e500, {CONTROL: run_of(CONTROL, RSEQ)}))
		self.assertEqual(['control: fails 1 a preemption inside the sequence resumes at '
				  'its abort handler (killed by signal 11)'],
				 fixes_boot.verdict(i386, {CONTROL: bad}))
		self.assertEqual(['fixed: no test results'],
				 fixes_boot.verdict(i386, {FIXED: run_of(FIXED, '')})[-1:])

	def test_every_32_bit_kernel_above_2_gib_and_both_64_bit_ones_run_rseq(self) -> None:
		arches = {b.arch.name for b in fixes_boot.BOOTS if b.name == 'rseq-abort'}
		self.assertEqual({'x86_64', 'i386', 'powerpc', 'powerpc32'}, arches)
		for boot in fixes_boot.BOOTS:
			self.assertTrue(boot.source.is_file(), boot.source)
			self.assertTrue(boot.config.is_file(), boot.config)
			self.assertIsNotNone(boot.arch.qemu, boot.key)
			if boot.control is not None:
				self.assertTrue(boot.control.is_file(), boot.control)


class KernelsTest(unittest.TestCase):
	def patches(self, t: Path) -> list[Path]:
		one = t / '0001-one.patch'
		one.write_text('From: A <a@example.org>\nSubject: [PATCH 1/2] sub: The first\n\nbody\n')
		two = t / '0002-two.patch'
		two.write_text('From: A <a@example.org>\nSubject: [PATCH 2/2] rseq: Mask the signature '
			       'address\n against speculation\n\nbody\n')
		return [one, two]

	def test_the_control_takes_the_place_of_the_fix_it_names(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			t = Path(tmp)
			series = self.patches(t)
			self.assertEqual('rseq: Mask the signature address against speculation',
					 fixes_boot.patch_subject(series[1]))
			control = t / 'control.patch'
			control.write_text('')
			boot = FixBoot('rseq-abort', *fixes_boot._I386,
				       'rseq: Mask the signature address against speculation', (),
				       control=control)
			self.assertEqual([series[0], control], fixes_boot.control_series(series, boot))
			kernels = fixes_boot._kernels('head', series, [boot])
			self.assertEqual([(FIXED, None), (CONTROL, [series[0], control]), (PRISTINE, [])],
					 [(label, patches) for label, patches, _ in kernels])
			renamed = FixBoot('rseq-abort', *fixes_boot._I386, 'rseq: Something else', (),
					  control=control)
			with self.assertRaisesRegex(UsageError, 'no patch of the fixes series'):
				fixes_boot.control_series(series, renamed)

	def test_a_kernel_without_a_control_boots_twice(self) -> None:
		boots = [b for b in fixes_boot.BOOTS if b.name == 'dcbz-uprobe']
		self.assertEqual([FIXED, PRISTINE],
				 [label for label, _, _ in fixes_boot._kernels('head', [], boots)])

	def test_the_real_control_replaces_the_real_fix(self) -> None:
		series = sorted((REPO / 'patches' / 'linux-7.3' / 'fixes').glob('0*.patch'))
		boot = boot_named('rseq-abort', 'powerpc32')
		replaced = fixes_boot.control_series(series, boot)
		self.assertEqual(len(series), len(replaced))
		self.assertEqual(1, sum(p == boot.control for p in replaced))

	def test_a_nolibc_program_builds_without_a_c_library(self) -> None:
		boot = boot_named('rseq-abort', 'powerpc32')
		line = fixes_boot.compile_command(boot, Path('prog'), Path('sysroot'), Path('tree')).argv
		self.assertEqual('powerpc-linux-gnu-gcc', line[0])
		for word in ('-nostdlib', '-static', 'tree/tools/include/nolibc/nolibc.h',
			     'sysroot/include', '-lgcc'):
			self.assertIn(word, line)
		glibc = fixes_boot.compile_command(boot_named('dcbz-uprobe', 'powerpc'), Path('p'),
						   Path('s'), Path('t')).argv
		self.assertNotIn('-nostdlib', glibc)


class ReportTest(unittest.TestCase):
	def test_one_row_per_boot_and_a_column_for_the_control(self) -> None:
		e500, dcbz = boot_named('rseq-abort', 'powerpc32'), boot_named('dcbz-uprobe', 'powerpc')
		runs = [(dcbz, {FIXED: run_of(FIXED, CONSOLE.replace('not ok 2', 'ok 2')),
				PRISTINE: run_of(PRISTINE, CONSOLE)}),
			(e500, {FIXED: run_of(FIXED, RSEQ), CONTROL: run_of(CONTROL, RSEQ_CONTROL),
				PRISTINE: run_of(PRISTINE, RSEQ)})]
		text = fixes_boot.markdown('7.3.4', runs, 'the command')
		self.assertIn('| dcbz-uprobe | powerpc | pseries | - | **not ok 2** | - | 3/3 ok |', text)
		self.assertIn('| rseq-abort | powerpc32 | ppce500 | 0xbffe0000 | 2/2 ok | '
			      '**not ok 1** | 2/2 ok |', text)
		self.assertIn('| test | pristine | control | fixed |', text)
		self.assertIn('`testcases/fixes/rseq-array-index-nospec.patch`, must fail test 1 here',
			      text)
		self.assertNotIn(str(REPO), text)


if __name__ == '__main__':
	unittest.main()
