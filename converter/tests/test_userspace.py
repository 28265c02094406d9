# SPDX-License-Identifier: GPL-2.0
"""Userspace test runs: console splitting, the comparison, config checks, commands."""

import re
import shutil
import subprocess
import tempfile
import dataclasses
import unittest
from pathlib import Path

from support import DATA, quiet_runner
from scoped_uaccess.kernel import cpio
from scoped_uaccess.kunit import ktap
from scoped_uaccess.kernel import qemu
from scoped_uaccess.userspace import syscalls, compare
from scoped_uaccess.userspace.compare import DiffKind
from scoped_uaccess.userspace.syscalls import Mode, UserspaceRequest

USERSPACE = DATA / 'userspace'


def lines(name: str) -> list[str]:
	return (USERSPACE / name).read_text().splitlines()


def edited(name: str, pattern: str, replacement: str) -> list[str]:
	"""A capture with one line changed: how a converted kernel could differ."""
	text = (USERSPACE / name).read_text()
	new, count = re.subn(pattern, replacement, text, count=1, flags=re.M)
	assert count == 1, pattern
	return new.splitlines()


class ConsoleTest(unittest.TestCase):
	"""Real captures of the baseline and the series kernel (TCG, 6.12.118)."""

	def test_baseline_capture_splits_into_kunit_and_userspace(self) -> None:
		console = syscalls.parse_console(lines('boot-baseline-pass.log'))
		self.assertEqual(['usercopy'], [s.name for s in console.kunit.suites])
		self.assertEqual(0, console.exit_status)
		self.assertEqual(200, len(console.checks))
		self.assertEqual([], console.problems())
		check = console.checks['pselect6.argpack.kernel_ptr']
		self.assertEqual((ktap.Status.PASS, 'errno=EFAULT'), (check.status, check.outcome))
		self.assertEqual('signal=SIGSEGV', console.checks['rseq.register.readonly'].outcome)

	def test_series_capture_has_both_kunit_suites(self) -> None:
		console = syscalls.parse_console(lines('boot-series-pass.log'))
		self.assertEqual(['usercopy', 'scoped_uaccess'], [s.name for s in console.kunit.suites])
		self.assertTrue(console.kunit.complete)
		self.assertEqual([], console.problems())

	def test_benchmarks_are_read_from_diagnostics(self) -> None:
		console = syscalls.parse_console(lines('boot-series-bench.log'))
		self.assertEqual(['pselect6', 'futex_wake', 'waitid', 'getdents64'],
				 [b.name for b in console.benches])
		self.assertTrue(all(b.iterations == 2000 and b.ns_per_call > 0 for b in console.benches))
		self.assertEqual({}, console.checks)	# bench results are not checks
		self.assertEqual([], console.problems())

	def test_failed_check_is_a_problem(self) -> None:
		console = syscalls.parse_console(edited(
			'boot-series-pass.log', r'^ok (\d+) futex.wake.kernel_ptr # errno=EFAULT$',
			r'not ok \1 futex.wake.kernel_ptr # errno=0'))
		self.assertIn('not ok futex.wake.kernel_ptr # errno=0', console.problems())

	def test_no_markers_means_the_program_never_ran(self) -> None:
		console = syscalls.parse_console([l for l in lines('boot-baseline-pass.log')
						   if not l.startswith('# uaccess-init')])
		self.assertIsNone(console.exit_status)
		self.assertEqual({}, console.checks)
		self.assertIn('the program never finished (no exit status from /init)',
			      console.problems())

	def test_crash_in_the_middle(self) -> None:
		text = lines('boot-series-pass.log')
		cut = next(i for i, l in enumerate(text) if 'futex.wake_op.set' in l)
		console = syscalls.parse_console(
			text[:cut] + ['BUG: unable to handle page fault for address: 0000000200001000',
				      'Kernel panic - not syncing: Fatal exception'])
		self.assertIsNone(console.exit_status)
		self.assertFalse(console.user.complete)
		self.assertIn('Kernel panic - not syncing: Fatal exception', console.user.crash_lines)

	def test_kernel_warning_is_a_problem(self) -> None:
		text = lines('boot-series-pass.log')
		cut = next(i for i, l in enumerate(text) if 'futex.wake_op.set' in l)
		warn = 'WARNING: CPU: 0 PID: 57 at kernel/futex/core.c:600 futex_hash+0x1/0x2'
		console = syscalls.parse_console(text[:cut] + [warn] + text[cut:])
		self.assertEqual(200, len(console.checks))
		self.assertEqual([f'console: {warn}'], console.problems())

	def test_bail_out_is_an_error(self) -> None:
		text = lines('boot-baseline-pass.log')
		begin = text.index(syscalls.BEGIN_MARKER)
		console = syscalls.parse_console(
			text[:begin + 4] + ['Bail out! mmap arena: File exists', '# uaccess-init: exit status 2'])
		self.assertIn('Bail out! mmap arena: File exists', console.user.errors)

	def test_printk_timestamps_are_stripped(self) -> None:
		stamped = [f'[    1.{i:06d}] {l}' for i, l in enumerate(lines('boot-baseline-pass.log'))]
		console = syscalls.parse_console(stamped)
		self.assertEqual(200, len(console.checks))
		self.assertEqual(0, console.exit_status)


class CompareTest(unittest.TestCase):
	def compare(self, baseline: list[str], converted: list[str]) -> list[compare.Difference]:
		return compare.compare(syscalls.parse_console(baseline),
					 syscalls.parse_console(converted))

	def test_baseline_and_series_captures_agree(self) -> None:
		self.assertEqual([], self.compare(lines('boot-baseline-pass.log'),
						  lines('boot-series-pass.log')))

	def test_suite_only_one_kernel_has_is_listed_not_compared(self) -> None:
		a = syscalls.parse_console(lines('boot-baseline-pass.log'))
		b = syscalls.parse_console(lines('boot-series-pass.log'))
		self.assertEqual(([], ['scoped_uaccess']), compare.only_one_has(a, b))

	def test_different_errno_with_the_same_status(self) -> None:
		# Both ok: a converted kernel whose expected errno was also edited would
		# still be caught, because the errno itself is compared.
		diffs = self.compare(lines('boot-baseline-pass.log'), edited(
			'boot-series-pass.log', r'^ok (\d+) getdents64.readonly # errno=EFAULT$',
			r'ok \1 getdents64.readonly # errno=EINVAL'))
		self.assertEqual([compare.Difference(DiffKind.OUTCOME, 'getdents64.readonly',
						       'errno=EFAULT', 'errno=EINVAL')], diffs)
		self.assertIn('baseline: errno=EFAULT; converted: errno=EINVAL', str(diffs[0]))

	def test_status_difference(self) -> None:
		diffs = self.compare(lines('boot-baseline-pass.log'), edited(
			'boot-series-pass.log', r'^ok (\d+) rseq.cs.fault # signal=SIGSEGV$',
			r'not ok \1 rseq.cs.fault # errno=0'))
		self.assertEqual([(DiffKind.STATUS, 'rseq.cs.fault')], [(d.kind, d.test) for d in diffs])

	def test_missing_and_extra_checks(self) -> None:
		diffs = self.compare(lines('boot-baseline-pass.log'), edited(
			'boot-series-pass.log', r'^ok (\d+) open.path.null # errno=EFAULT$',
			r'ok \1 open.path.nothing # errno=EFAULT'))
		self.assertEqual({(DiffKind.ONLY_CONVERTED, 'open.path.nothing'),
				  (DiffKind.ONLY_BASELINE, 'open.path.null')},
				 {(d.kind, d.test) for d in diffs})

	def test_kunit_case_of_a_common_suite(self) -> None:
		diffs = self.compare(lines('boot-baseline-pass.log'), edited(
			'boot-series-pass.log', r'^    ok 2 usercopy_test_invalid$',
			'    not ok 2 usercopy_test_invalid'))
		self.assertEqual([(DiffKind.STATUS, 'kunit:usercopy.usercopy_test_invalid')],
				 [(d.kind, d.test) for d in diffs])

	def test_a_run_that_never_finished(self) -> None:
		text = lines('boot-series-pass.log')
		cut = next(i for i, l in enumerate(text) if 'futex.wake_op.set' in l)
		diffs = self.compare(lines('boot-baseline-pass.log'), text[:cut])
		self.assertEqual(DiffKind.INCOMPLETE, diffs[0].kind)
		self.assertEqual('(converted run)', diffs[0].test)
		# every check after the cut is missing from the converted run
		self.assertIn((DiffKind.ONLY_BASELINE, 'futex.wake_op.set'),
			      [(d.kind, d.test) for d in diffs])


class ConfigTest(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = Path(tempfile.mkdtemp())
		self.addCleanup(shutil.rmtree, self.tmp)
		(self.tmp / 'lib').mkdir()
		(self.tmp / 'lib' / 'Kconfig').write_text('config KUNIT\n\tbool\nmenuconfig NET\n\tbool\n'
							  'config UNIX\n\tbool\n')
		self.fragment = self.tmp / 'frag.config'
		self.fragment.write_text('# comment\nCONFIG_KUNIT=y\nCONFIG_NET=y\nCONFIG_UNIX=y\n'
					 'CONFIG_SCOPED_UACCESS_KUNIT_TEST=y\n')

	def test_unknown_option_is_dropped_known_one_is_missing(self) -> None:
		dotconfig = self.tmp / '.config'
		dotconfig.write_text('CONFIG_KUNIT=y\nCONFIG_NET=y\n# CONFIG_UNIX is not set\n')
		report = syscalls.check_config(self.fragment, dotconfig, self.tmp)
		self.assertEqual(['CONFIG_SCOPED_UACCESS_KUNIT_TEST'], report.dropped_unknown)
		self.assertEqual(['CONFIG_UNIX'], report.missing)

	def test_everything_there(self) -> None:
		dotconfig = self.tmp / '.config'
		dotconfig.write_text('CONFIG_KUNIT=y\nCONFIG_NET=y\nCONFIG_UNIX=y\n'
				     'CONFIG_SCOPED_UACCESS_KUNIT_TEST=y\n')
		report = syscalls.check_config(self.fragment, dotconfig, self.tmp)
		self.assertEqual(([], []), (report.dropped_unknown, report.missing))

	def test_the_real_fragment_asks_for_what_the_tests_need(self) -> None:
		options = syscalls.fragment_options(syscalls.CONFIG)
		for needed in ('CONFIG_BLK_DEV_INITRD', 'CONFIG_DEVTMPFS', 'CONFIG_FUTEX', 'CONFIG_RSEQ',
			       'CONFIG_UNIX', 'CONFIG_SERIAL_8250_CONSOLE', 'CONFIG_KUNIT',
			       'CONFIG_SCOPED_UACCESS_KUNIT_TEST', 'CONFIG_USERCOPY_KUNIT_TEST'):
			self.assertEqual('y', options.get(needed), needed)


class CommandsTest(unittest.TestCase):
	request = UserspaceRequest(kdir=Path('/k/wt-series'), name='series', mode=Mode.BENCH,
				   iterations=50)

	def test_boot_command_line(self) -> None:
		tcg = qemu.ACCELERATORS[qemu.Accelerator.TCG]
		line = syscalls.boot_command(self.request, Path('/i.cpio'), tcg).shell_line()
		self.assertIn('qemu-system-x86_64 -nodefaults', line)
		self.assertIn('-no-reboot', line)
		self.assertIn("-append 'console=ttyS0 panic=-1 UACCESS_MODE=bench UACCESS_ITERATIONS=50'",
			      line)
		self.assertIn('-initrd /i.cpio', line)
		self.assertTrue(line.endswith('-cpu max'))
		self.assertTrue(line.startswith(f'timeout {tcg.timeout} '))

	def test_the_checks_boot_without_the_tsc_watchdog(self) -> None:
		# Its warning once split a fault sweep record; the bench keeps the
		# kernel's own choice of clock.
		tcg = qemu.ACCELERATORS[qemu.Accelerator.TCG]
		checks = dataclasses.replace(self.request, mode=Mode.TEST)
		self.assertIn('UACCESS_ITERATIONS=50 tsc=reliable\'',
			      syscalls.boot_command(checks, Path('/i.cpio'), tcg).shell_line())
		self.assertNotIn('tsc=reliable', syscalls.boot_command(
			self.request, Path('/i.cpio'), tcg).shell_line())

	def test_build_is_out_of_tree_and_niced(self) -> None:
		runner = quiet_runner(dry_run=True)
		syscalls.build_kernel(runner, self.request, Path('/dev/null'))
		line = runner.echo.getvalue()
		self.assertIn('nice -n 10 make -C /k/wt-series', line)
		self.assertIn(f'O={syscalls.paths.OUT}/user-series ARCH=x86_64 CC=gcc', line)
		self.assertIn(' bzImage', line)

	def test_results_are_named_after_the_run_and_mode(self) -> None:
		self.assertEqual('userspace-series-bench', self.request.results_stem)
		self.assertEqual('userspace-b', UserspaceRequest(Path('/k'), 'b').results_stem)

	@unittest.skipUnless(shutil.which('qemu-system-x86_64') and shutil.which('gcc'),
			     'needs qemu-system-x86 and gcc')
	def test_dry_run_echoes_every_step(self) -> None:
		runner = quiet_runner(dry_run=True)
		request = UserspaceRequest(kdir=syscalls.paths.REPO, name='dry-unit-test',
					   accel=qemu.AccelChoice.TCG)
		result = syscalls.run_userspace(runner, request)
		echoed = runner.echo.getvalue()
		for step in ('olddefconfig', 'nice -n 10 make', 'gcc -static -O2 -Wall -Werror',
			     'qemu-system-x86_64'):
			self.assertIn(step, echoed)
		self.assertFalse(request.build_dir.exists())
		self.assertIsNone(result.console)


@unittest.skipUnless(shutil.which('cpio'), 'needs GNU cpio to read the archive back')
class InitramfsTest(unittest.TestCase):
	def test_archive_lists_what_init_needs(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			program = Path(tmp) / 'prog'
			program.write_bytes(b'\x7fELF')
			busybox = Path(tmp) / 'busybox'
			busybox.write_bytes(b'bb')
			entries = syscalls.initramfs_entries(program, busybox)
			archive = Path(tmp) / 'initramfs.cpio'
			cpio.write(archive, entries)
			listing = subprocess.run(('cpio', '-itv', '--quiet'), stdin=archive.open('rb'),
						 capture_output=True, text=True, check=True).stdout
		self.assertRegex(listing, r'(?m)^crw------- .* 5,\s+1 .* dev/console$')
		self.assertRegex(listing, r'(?m)^-rwxr-xr-x .* init$')
		self.assertRegex(listing, r'(?m)^lrwxrwxrwx .* bin/sh -> busybox$')
		self.assertIn(f'bin/{syscalls.PROGRAM}', listing)

	def test_init_frames_the_program_and_reboots(self) -> None:
		script = syscalls.INIT_SCRIPT
		self.assertTrue(script.startswith('#!/bin/busybox sh\n'))
		self.assertLess(script.index(syscalls.BEGIN_MARKER), script.index(f'/bin/{syscalls.PROGRAM}'))
		self.assertIn(syscalls.END_MARKER + '$?', script)
		self.assertTrue(script.rstrip().endswith('reboot -f'))


if __name__ == '__main__':
	unittest.main()
