# SPDX-License-Identifier: GPL-2.0
"""The KUnit matrix: kunit.py's QEMU configurations read from a tree, the
skips each platform requires, the rows and their report."""

import tempfile
import unittest
from pathlib import Path

from support import DATA, quiet_runner
from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.core.outcome import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from scoped_uaccess.kernel import deps, kunit_qemu
from scoped_uaccess.kernel.architectures import Arch
from scoped_uaccess.kernel.kunit_qemu import KunitArch, parse_config
from scoped_uaccess.kernel.qemu import Accelerator
from scoped_uaccess.kunit import expected, ktap, matrix, matrix_report
from scoped_uaccess.kunit.expected import FindingKind, Platform
from scoped_uaccess.kunit.matrix import MatrixRequest, Row, RowStatus
from scoped_uaccess.kunit.suites import SuiteSummary

# qemu_configs/riscv.py and s390.py as the kernel has them: a path built
# from a name, a check that exits, and QEMU options given as one word.
RISCV = '''from ..qemu_config import QemuArchParams
import os
import os.path
import sys

OPENSBI_FILE = 'opensbi-riscv64-generic-fw_dynamic.bin'
OPENSBI_PATH = '/usr/share/qemu/' + OPENSBI_FILE

if not os.path.isfile(OPENSBI_PATH):
	print('OpenSBI bios was not found in "' + OPENSBI_PATH + '".')
	sys.exit()

QEMU_ARCH = QemuArchParams(linux_arch='riscv',
			   kconfig=\'\'\'
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y\'\'\',
			   qemu_arch='riscv64',
			   kernel_path='arch/riscv/boot/Image',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=[
					   '-machine', 'virt',
					   '-cpu', 'rv64',
					   '-bios', OPENSBI_PATH])
'''
S390 = '''from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='s390',
			   kconfig=\'\'\'
CONFIG_EXPERT=y
CONFIG_MODULES=y\'\'\',
			   qemu_arch='s390x',
			   kernel_path='arch/s390/boot/bzImage',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=[
					   '-machine s390-ccw-virtio',
					   '-cpu qemu',])
'''
X86_64 = '''from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig=\'\'\'
CONFIG_SERIAL_8250=y\'\'\',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-bios', 'qboot.rom'])
'''

SMAP = 'scoped_uaccess.scoped_uaccess_test_smap'
KERNEL_CASES = ('scoped_uaccess.scoped_uaccess_test_fault_kernel_read',
		'scoped_uaccess.scoped_uaccess_test_fault_kernel_write',
		'scoped_uaccess.scoped_uaccess_test_pointer_unchanged',
		'usercopy.usercopy_test_invalid')


def ktap_run(smap: str) -> ktap.Run:
	"""A scoped_uaccess run of two cases whose SMAP case reported smap."""
	return ktap.parse(f'''KTAP version 1
1..1
    KTAP version 1
    # Subtest: scoped_uaccess
    1..2
    {smap}
    ok 2 scoped_uaccess_test_read
ok 1 scoped_uaccess
'''.splitlines())


class QemuConfigTest(unittest.TestCase):
	def test_names_and_sums_resolve_without_running_the_file(self) -> None:
		config = parse_config('riscv', RISCV)
		self.assertEqual('qemu-system-riscv64', config.qemu_binary)
		self.assertEqual('/usr/share/qemu/opensbi-riscv64-generic-fw_dynamic.bin',
				 config.option('bios'))
		self.assertEqual(('virt', 'rv64'), (config.machine, config.cpu))
		self.assertIn('CONFIG_SERIAL_8250=y', config.kconfig)

	def test_one_word_options_are_split_as_the_shell_does(self) -> None:
		config = parse_config('s390', S390)
		self.assertEqual(('-machine', 's390-ccw-virtio', '-cpu', 'qemu'), config.qemu_args)
		self.assertEqual(('s390-ccw-virtio', 'qemu'), (config.machine, config.cpu))

	def test_no_cpu_is_qemus_default(self) -> None:
		config = parse_config('x86_64', X86_64)
		self.assertEqual(('default', 'default'), (config.machine, config.cpu))

	def test_what_cannot_be_read_is_an_error(self) -> None:
		with self.assertRaises(ValueError):
			parse_config('x', 'QEMU_ARCH = 1\n')
		with self.assertRaises(ValueError):
			parse_config('x', S390.replace("'s390x'", 'os.uname()'))

	def test_a_tree_without_the_configuration(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			with self.assertRaisesRegex(EnvironmentProblem, 'no kunit.py configuration s390'):
				kunit_qemu.read_config(Path(tmp), 's390')

	def test_every_record_names_its_packages_and_deps_has_them(self) -> None:
		self.assertEqual(['x86_64', 'i386', 'arm64', 'powerpc', 'powerpc32', 'riscv', 's390'],
				 list(kunit_qemu.KUNIT_ARCHES))
		for a in kunit_qemu.KUNIT_ARCHES.values():
			self.assertTrue(a.packages)
			for p in (a.arch.compiler_package, *a.packages):
				self.assertIn(p, deps.REQUIRED_PACKAGES)
		self.assertEqual('s390x-linux-gnu-', kunit_qemu.kunit_arch('s390').cross_compile)

	def test_missing_compiler_qemu_and_firmware_are_named_with_their_package(self) -> None:
		arch = KunitArch('riscv', Arch('riscv', 'riscv', 'no-such-', 'gcc-no-such'),
				 ('qemu-system-nosuch', 'opensbi'))
		config = parse_config('riscv', RISCV.replace("'riscv64'", "'nosuch'").replace(
			'/usr/share/qemu/', '/nonexistent/'))
		missing = kunit_qemu.missing_tools(arch, config)
		self.assertEqual(['no-such-gcc (package gcc-no-such)',
				  'qemu-system-nosuch (package qemu-system-nosuch)',
				  '/nonexistent/opensbi-riscv64-generic-fw_dynamic.bin (package opensbi)'],
				 missing)


class SkipRulesTest(unittest.TestCase):
	def test_with_smap_nothing_may_skip(self) -> None:
		platform = Platform.of('CONFIG_X86=y\nCONFIG_X86_64=y\n', smap=True)
		self.assertEqual({}, expected.expected_skips(platform))
		self.assertEqual(expected.SKIP_ALLOWLIST, expected.expected_skips(platform))

	def test_x86_without_smap_and_other_architectures(self) -> None:
		self.assertEqual([SMAP], list(expected.expected_skips(Platform.of('CONFIG_X86=y\n', False))))
		self.assertEqual([SMAP], list(expected.expected_skips(Platform.of('CONFIG_ARM64=y\n',
										  True))))

	def test_separate_user_address_space(self) -> None:
		config = 'CONFIG_S390=y\nCONFIG_ALTERNATE_USER_ADDRESS_SPACE=y\n'
		skips = expected.expected_skips(Platform.of(config, False))
		self.assertEqual({SMAP, *KERNEL_CASES}, set(skips))
		self.assertTrue(all(skips.values()))

	def test_the_smap_case_skipped_under_cpu_max_fails(self) -> None:
		"""make kunit boots with -cpu max: a SMAP case that skips there
		means the boot lost SMAP, and the run must not pass."""
		run = ktap_run('ok 1 scoped_uaccess_test_smap # SKIP no SMAP, EFLAGS.AC does not '
			       'show the user access state')
		with_smap = expected.expected_skips(Platform.of('CONFIG_X86=y\n', smap=True))
		findings = expected.check(run, Path('/nonexistent'), (), must_skip=with_smap)
		self.assertEqual([(FindingKind.SKIPPED, SMAP)], [(f.kind, f.test) for f in findings])
		self.assertEqual(findings, expected.check(run, Path('/nonexistent'), ()))

	def test_without_smap_it_must_skip_not_pass(self) -> None:
		no_smap = expected.expected_skips(Platform.of('CONFIG_X86=y\n', smap=False))
		skipped = ktap_run('ok 1 scoped_uaccess_test_smap # SKIP no SMAP')
		self.assertEqual([], expected.check(skipped, Path('/nonexistent'), (), must_skip=no_smap))
		passed = ktap_run('ok 1 scoped_uaccess_test_smap')
		self.assertEqual([(FindingKind.NOT_SKIPPED, SMAP)],
				 [(f.kind, f.test) for f in expected.check(passed, Path('/nonexistent'),
									    (), must_skip=no_smap)])

	def test_a_skip_needs_its_reason(self) -> None:
		no_smap = expected.expected_skips(Platform.of('CONFIG_X86=y\n', smap=False))
		run = ktap_run('ok 1 scoped_uaccess_test_smap # SKIP')
		findings = expected.check(run, Path('/nonexistent'), (), must_skip=no_smap)
		self.assertEqual(['no reason given'], [f.detail for f in findings])


class RowsTest(unittest.TestCase):
	def rows(self) -> list[Row]:
		return [Row('x86_64', RowStatus.PASSED, 'qemu-system-x86_64', 'default', 'default',
			    summaries=[SuiteSummary('scoped_uaccess', 25, 0, 1), SuiteSummary('usercopy', 4)],
			    skips={SMAP: 'no SMAP'}, build_seconds=123.4, boot_seconds=9.9),
			Row('s390', RowStatus.NOT_RUN, reason='missing s390x-linux-gnu-gcc '
			    '(package gcc-s390x-linux-gnu); install with `make deps`')]

	def test_a_row_that_could_not_run_is_never_a_pass(self) -> None:
		rows = self.rows()
		self.assertEqual(EXIT_USAGE, matrix.verdict(rows).exit_status)
		self.assertIn('1 not run', matrix.verdict(rows).summary)
		self.assertEqual(EXIT_OK, matrix.verdict(rows[:1]).exit_status)
		rows[0].status = RowStatus.FAILED
		self.assertEqual(EXIT_FINDINGS, matrix.verdict(rows).exit_status)

	def test_json_round_trip_and_merge_keeps_the_matrix_order(self) -> None:
		rows = self.rows()
		again = [Row.from_json(r.to_json()) for r in rows]
		self.assertEqual(rows, again)
		newer = Row('x86_64', RowStatus.FAILED, reason='x')
		merged = matrix.merge(list(reversed(rows)), [newer])
		self.assertEqual(['x86_64', 's390'], [r.arch for r in merged])
		self.assertIs(newer, merged[0])

	def test_report_has_counts_reasons_and_commands_but_no_seconds_or_paths(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			kdir = Path(tmp) / 'linux-7.3'
			kdir.mkdir()
			(kdir / 'Makefile').write_text('VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 4\nEXTRAVERSION =\n')
			text = matrix_report.render(kdir, self.rows())
		self.assertIn('| x86_64 | `qemu-system-x86_64` | `default` | `default` | 25/1/0 | 4/0/0 '
			      '| pass |', text)
		self.assertIn('| s390 |', text)
		self.assertIn('NOT RUN: missing s390x-linux-gnu-gcc', text)
		self.assertIn('no row yet): i386, arm64, powerpc, powerpc32, riscv;', text)
		self.assertIn(f'| x86_64 | `{SMAP}` | no SMAP |', text)
		self.assertIn('`converter/scoped-uaccess kunit-matrix --kdir build/linux-7.3 --arch s390`',
			      text)
		self.assertNotIn('123', text)
		self.assertNotIn(tmp, text)
		self.assertIn('2m03s', matrix_report.table(self.rows(), seconds=True))

	def test_boot_is_kunit_pys_command_without_its_accelerators(self) -> None:
		config = parse_config('s390', S390)
		argv = list(matrix.boot_command(config, Path('bzImage'), Accelerator.TCG).argv)
		self.assertEqual('qemu-system-s390x', argv[2])
		self.assertEqual(['-machine', 's390-ccw-virtio', '-cpu', 'qemu'], argv[-4:])
		self.assertNotIn('-accel', argv)
		append = argv[argv.index('-append') + 1]
		self.assertTrue(append.startswith('kunit.enable=1'))
		self.assertTrue(append.endswith('console=ttyS0'))

	def test_a_tree_without_the_configuration_is_a_row_not_run(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			request = MatrixRequest(kdir=Path(tmp), out=Path(tmp) / 'out',
						results=Path(tmp) / 'results')
			row = matrix.run_arch(quiet_runner(), request, 'powerpc32')
		self.assertIs(RowStatus.NOT_RUN, row.status)
		self.assertIn('no kunit.py configuration powerpc32', row.reason)



class CapturesTest(unittest.TestCase):
	"""Real consoles of the matrix (tests/data/kunit-matrix/)."""

	def findings(self, log: str, platform: Platform) -> list[tuple[FindingKind, str]]:
		run = ktap.parse((DATA / 'kunit-matrix' / log).read_text().splitlines())
		return [(f.kind, f.test) for f in expected.check(
			run, Path('/nonexistent'), (), must_skip=expected.expected_skips(platform))]

	def test_kunit_pys_x86_64_cpu_skips_the_smap_case_and_passes_the_rest(self) -> None:
		self.assertEqual([], self.findings('x86_64-default-cpu.log',
						   Platform.of('CONFIG_X86=y\n', smap=False)))

	def test_that_console_fails_where_smap_is_required(self) -> None:
		self.assertEqual([(FindingKind.SKIPPED, SMAP)],
				 self.findings('x86_64-default-cpu.log',
					       Platform.of('CONFIG_X86=y\n', smap=True)))

	def test_with_smap_every_case_passes_and_must(self) -> None:
		self.assertEqual([], self.findings('x86_64-cpu-max.log',
						   Platform.of('CONFIG_X86=y\n', smap=True)))
		self.assertEqual([(FindingKind.NOT_SKIPPED, SMAP)],
				 self.findings('x86_64-cpu-max.log',
					       Platform.of('CONFIG_X86=y\n', smap=False)))

	def test_a_separate_user_address_space_skips_the_kernel_address_cases(self) -> None:
		s390 = Platform.of('CONFIG_S390=y\nCONFIG_ALTERNATE_USER_ADDRESS_SPACE=y\n', False)
		self.assertEqual([], self.findings('s390.log', s390))
		arm64 = Platform.of('CONFIG_ARM64=y\n', False)
		self.assertEqual([(FindingKind.SKIPPED, c) for c in sorted(KERNEL_CASES, key=lambda c: (
			not c.startswith('usercopy'), c))], self.findings('s390.log', arm64))
