# SPDX-License-Identifier: GPL-2.0
"""Benchmarks: statistics, console parsing, code counting, the README; no kernel runs."""

import io
import json
import shutil
import struct
import subprocess
import tempfile
import unittest
from pathlib import Path

from support import DATA, TESTCASES, quiet_runner
from test_tree import git
from scoped_uaccess.bench import code, coccicheck, common, elfobj, native, readme, benchmarks, syscall, tools
from scoped_uaccess.bench import access as access_section
from scoped_uaccess.checker import check
from scoped_uaccess.cocci import api, spatch
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import EnvironmentProblem, UsageError
from scoped_uaccess.cli import main as cli


def access_line(variant: str, op: str, cycles: list[int], iterations: int = 100) -> str:
	return (f'[    2.000000]     # uaccess_bench_run: bench access={variant} op={op} '
		f'iterations={iterations} cycles={",".join(map(str, cycles))}')


class StatisticsTest(unittest.TestCase):
	def test_spread_of_odd_sample(self) -> None:
		s = common.spread([5.0, 1.0, 3.0, 2.0, 4.0])
		self.assertEqual((3.0, 2.0, 4.0, 1.0, 5.0, 5),
				 (s['median'], s['q1'], s['q3'], s['min'], s['max'], s['n']))

	def test_spread_of_one_and_none(self) -> None:
		self.assertEqual(7.0, common.spread([7.0])['q1'])
		self.assertIsNone(common.spread([])['median'])

	def test_paired_ratios_skip_zero_and_refuse_unpaired(self) -> None:
		self.assertEqual([2.0, 0.5], common.paired_ratios([4, 1, 3], [2, 2, 0]))
		with self.assertRaises(ValueError):
			common.paired_ratios([1, 2], [1])


class AccessConsoleTest(unittest.TestCase):
	LOG = [
		'[    1.000000] Run /init as init process',
		access_section.BEGIN_MARKER,
		'[    1.500000]     # uaccess_bench_run: bench can_do_masked_user_access=1',
		access_line('none', 'read', [100, 200, 300]),
		access_line('open_coded', 'read', [1000, 2000, 3000]),
		access_line('scoped', 'read', [500, 1000, 3000]),
		'[    2.100000]     ok 1 uaccess_bench_run',
		'[    2.100000] ok 1 uaccess_bench',
		f'{access_section.END_MARKER}0',
	]

	def test_parse(self) -> None:
		console = access_section.parse_access_console(self.LOG)
		self.assertEqual((True, True, 0, 100), (console.masked, console.passed,
							  console.exit_status, console.iterations))
		self.assertEqual([500, 1000, 3000], console.cycles['scoped', 'read'])

	def test_failed_case(self) -> None:
		log = [line.replace('    ok 1 uaccess_bench_run', '    not ok 1 uaccess_bench_run')
		       for line in self.LOG]
		self.assertIs(False, access_section.parse_access_console(log).passed)

	def test_figures_are_per_access_net_and_paired(self) -> None:
		figures = access_section.access_figures(access_section.parse_access_console(self.LOG))
		scoped = figures['scoped']['read']
		self.assertEqual(10.0, scoped['cycles_median'])		# 1000 / 100
		self.assertEqual(8.0, scoped['net_cycles_median'])	# (1000 - 200) / 100
		# Ratios per round: 0.5, 0.5, 1.0.
		self.assertEqual(0.5, scoped['ratio_to_open_coded'])
		self.assertEqual(1.0, scoped['ratio']['max'])
		self.assertNotIn('ratio', figures['none']['read'])
		self.assertNotIn('write', figures['scoped'])


class SyscallTest(unittest.TestCase):
	def test_ratio_per_round(self) -> None:
		samples = {'baseline': {'waitid': [100.0, 200.0, 100.0]},
			   'converted': {'waitid': [110.0, 180.0, 100.0]}}
		e = syscall.syscall_figures(samples)['waitid']
		self.assertEqual(1.0, e['ratio_converted_over_baseline'])
		self.assertEqual((0.9, 1.1), (e['ratio']['min'], e['ratio']['max']))
		self.assertEqual(3, e['rounds'])
		self.assertEqual(1.0, e['ratio_of_fastest'])
		self.assertEqual([110.0, 180.0, 100.0], e['samples']['converted'])
		self.assertNotIn('pselect6', syscall.syscall_figures(samples))

	def test_record_names_each_kernels_checkout(self) -> None:
		# Each kernel's record, command included, is written before any
		# boot: the command names that kernel's checkout.
		with tempfile.TemporaryDirectory() as tmp:
			trees = {}
			for name in ('base', 'series'):
				trees[name] = Path(tmp) / name
				trees[name].mkdir()
				git(trees[name], 'init', '-q')
				git(trees[name], 'commit', '-q', '--allow-empty', '-m', name)
			request = common.BenchRequest(baseline_tree=trees['base'],
						      series_tree=trees['series'], rounds=0,
						      syscall_iterations=7)
			record: dict = {}
			self.assertEqual({}, syscall.run_syscalls(quiet_runner(), request, record))
		for kernel, name, tree in (('baseline', 'baseline', 'base'),
					   ('converted', 'series', 'series')):
			self.assertEqual(f'converter/scoped-uaccess userspace --kdir {trees[tree]} '
					 f'--name {name} --no-build --mode bench --iterations 7',
					 record['kernels'][kernel]['command'])


DIFF = '''diff --git a/fs/select.c b/fs/select.c
--- a/fs/select.c
+++ b/fs/select.c
@@ -779,10 +779,6 @@ static inline int get_sigset_argpack(struct sigset_argpack *to,
-	if (from) {
+	if (from)
@@ -790 +786 @@ SYSCALL_DEFINE6(pselect6, int, n, fd_set __user *, inp, fd_set __user *, outp,
-x
+y
diff --git a/lib/scoped_uaccess_kunit.c b/lib/scoped_uaccess_kunit.c
--- /dev/null
+++ b/lib/scoped_uaccess_kunit.c
@@ -0,0 +1,663 @@
'''


class CodeTest(unittest.TestCase):
	def test_changed_functions_from_hunk_headers(self) -> None:
		found = code.changed_functions(DIFF)
		self.assertEqual({'get_sigset_argpack', '__do_sys_pselect6'}, found['fs/select.c'])
		self.assertEqual(set(), found['lib/scoped_uaccess_kunit.c'])

	def test_converted_files(self) -> None:
		self.assertTrue(code.converted_file('fs/select.c'))
		self.assertTrue(code.converted_file('arch/x86/include/asm/futex.h'))
		self.assertTrue(code.converted_file('kernel/futex/futex.h'))
		for path in ('lib/scoped_uaccess_kunit.c', 'include/linux/uaccess.h',
			     'arch/x86/include/asm/uaccess.h', 'arch/arm/include/asm/uaccess.h',
			     'arch/powerpc/kernel/signal_32.c', 'scripts/coccinelle/misc/x.cocci',
			     'drivers/foo/bar_test.c'):
			self.assertFalse(code.converted_file(path), path)

	def test_conversion_json_converted_regions_only(self) -> None:
		regions = [{'file': 'kernel/exit.c', 'function': 'waitid', 'status': 'converted'},
			   {'file': 'fs/readdir.c', 'function': 'filldir', 'status': 'skipped'}]
		with tempfile.TemporaryDirectory() as tmp:
			path = Path(tmp) / 'conversion.json'
			path.write_text(json.dumps({'files': 2, 'regions': regions}))
			self.assertEqual({'kernel/exit.c': {'waitid'}}, code.conversion_functions(path))

	def test_lfence_per_function_not_in_replacements(self) -> None:
		disassembly = '''
Disassembly of section .text:

0000000000000000 <f>:
   0:	0f ae e8             	lfence
   3:	c3                   	ret

0000000000000004 <g>:
   4:	90                   	nop

Disassembly of section .altinstr_replacement:

0000000000000000 <.altinstr_replacement>:
   0:	0f ae e8             	lfence
   3:	0f 01 cb             	stac
'''
		self.assertEqual({'f': 1, 'g': 0}, code.lfence_by_function(disassembly))
		self.assertEqual([0], code.lfence_addresses(disassembly.split('.altinstr_replacement:')[-1]))

	def test_alternatives_attributed_to_the_function_they_patch(self) -> None:
		# Two entries: an LFENCE (3 bytes at replacement 0) patched into f,
		# a STAC (3 bytes at 3) into g.
		data = (code.ALT_INSTR.pack(0, 0, 0, 3, 3) + code.ALT_INSTR.pack(0, 0, 0, 3, 3))
		relocs = {0: ('.text', 0x10), 4: ('.altinstr_replacement', 0),
			  14: ('.text', 0x40), 18: ('.altinstr_replacement', 3)}
		symbols = {'f': ('.text', 0, 0x20), 'g': ('.text', 0x20, 0x40)}
		self.assertEqual({'f': 1}, code.alternative_lfences(data, relocs, [0], symbols))

	def test_objdump_parsers(self) -> None:
		dump = ('Contents of section .altinstructions:\n'
			' 0000 00000000 00000000 34010000 03030000  ........4.......\n'
			' 0010 0000                                 ..\n')
		self.assertEqual(18, len(code.hex_dump_bytes(dump)))
		self.assertEqual(struct.pack('<I', 0x134), code.hex_dump_bytes(dump)[8:12])
		relocs = code.relocations('0000000000000000 R_X86_64_PC32     .text+0x0000000000000758\n'
					   '0000000000000004 R_X86_64_PC32     .altinstr_replacement\n')
		self.assertEqual({0: ('.text', 0x758), 4: ('.altinstr_replacement', 0)}, relocs)
		symbols = code.function_symbols(
			'0000000000000758 l     F .text\t0000000000000044 futex_cmpxchg_value_locked\n'
			'0000000000000000 l    d  .text\t0000000000000000 .text\n')
		self.assertEqual({'futex_cmpxchg_value_locked': ('.text', 0x758, 0x44)}, symbols)

	def test_bloat_o_meter(self) -> None:
		text = '''add/remove: 0/0 grow/shrink: 2/1 up/down: 65/-20 (45)
Function                                     old     new   delta
futex_wake_op                               1564    1638     +74
futex_cmpxchg_value_locked                    88      68     -20
Total: Before=4714, After=4759, chg +0.95%
'''
		parsed = code.parse_bloat(text)
		self.assertEqual({'futex_wake_op': 74, 'futex_cmpxchg_value_locked': -20}, parsed['symbols'])
		self.assertEqual(45, parsed['delta'])


def native_output(sequences: dict[str, list[int]], regions: int = 10) -> list[str]:
	return [f'native cpu=1 rounds=3 regions={regions} warmup=1',
		'native patched smap=36 lfence=6 runtime_const=12', 'native check ok',
		*(f'native seq={name} ticks={",".join(map(str, t))}' for name, t in sequences.items())]


NATIVE = {'empty': [20, 20, 40], 'checked_read_1': [100, 120, 110],
	  'masked_read_1': [30, 40, 30], 'checked_write_8': [210, 200, 220],
	  'masked_write_8': [50, 60, 40]}


class NativeTest(unittest.TestCase):
	def test_parse(self) -> None:
		parsed = native.parse_native_output(native_output(NATIVE))
		self.assertEqual((1, 3, 10, 1, True), (parsed.cpu, parsed.rounds, parsed.regions,
						      parsed.warmup, parsed.checked))
		self.assertEqual({'smap': 36, 'lfence': 6, 'runtime_const': 12}, parsed.patched)
		self.assertEqual([30, 40, 30], parsed.ticks['masked_read_1'])
		self.assertEqual(10, native.tsc_step(parsed))

	def test_figures_per_region_ratio_and_saved(self) -> None:
		figures = native.native_figures({'baseline': native.parse_native_output(native_output(NATIVE))})
		self.assertEqual((10.0, 11.0), (figures['checked_read_1']['cycles_min'],
						figures['checked_read_1']['cycles_median']))
		self.assertEqual(9.0, figures['checked_read_1']['net_cycles_median'])	# 11 - 2
		self.assertEqual({'median': round(3 / 11, 3), 'min': 0.3},
				 figures['ratio_masked_over_checked']['read_1'])
		self.assertEqual({'median': 16.0, 'min': 16.0},
				 figures['saved_cycles_per_region']['write_8'])
		self.assertNotIn('read_2', figures['ratio_masked_over_checked'])

	def test_scoped_from_the_series_run(self) -> None:
		series = dict(NATIVE, scoped_read_1=[30, 30, 30])
		figures = native.native_figures({
			'baseline': native.parse_native_output(native_output(NATIVE)),
			'series': native.parse_native_output(native_output(series))})
		self.assertEqual(3.0, figures['scoped_read_1']['cycles_median'])
		self.assertEqual(1.0, figures['ratio_scoped_over_masked']['read_1']['median'])

	def test_estimate_is_entries_times_saved_and_checked_against_code(self) -> None:
		figures = native.native_figures({'baseline': native.parse_native_output(native_output(NATIVE))})
		code_data = {'functions': {'kernel/exit.o:__do_sys_waitid': {
			'function': '__do_sys_waitid', 'lfence_before': 1, 'lfence_after': 0}}}
		rows = native.estimates(figures, code_data)
		self.assertEqual(16.0, rows['waitid']['saved_cycles_median'])
		self.assertEqual((1, 0), (rows['waitid']['lfence_before'], rows['waitid']['lfence_after']))
		self.assertIsNone(rows['readdir (old, one entry per call)']['lfence_before'])
		code_data['tree'] = {'lfence_functions': {'lib/iov_iter.o:copy_iovec_from_user': {
			'function': 'copy_iovec_from_user', 'lfence_before': 1, 'lfence_after': 0}}}
		figures['saved_cycles_per_region']['read_2'] = {'median': 1.0, 'min': 1.0}
		rows = native.estimates(figures, code_data)
		self.assertEqual((1, 0), (rows['readv, writev']['lfence_before'],
					  rows['readv, writev']['lfence_after']))
		self.assertNotIn('futex(FUTEX_WAKE_OP)', rows)		# write_1 not measured here

	def test_same_code_compares_instructions_not_addresses(self) -> None:
		def fn(name: str, addr: int, cmp: str) -> str:
			return (f'{addr:016x} <region_{name}>:\n'
				f' {addr:x}:\tmovabs $0x123456789abcdef,%rax\n'
				f' {addr + 10:x}:\t{cmp}\n'
				f' {addr + 13:x}:\tja     {addr + 20:x} <region_{name}+0x14>\n'
				f' {addr + 15:x}:\tret\n'
				f' {addr + 16:x}:\tnopl   0x0(%rax)\n\n')
		series = native.region_code(fn('masked_read_1', 0x100, 'cmp    %rax,%rdi')
					    + fn('scoped_read_1', 0x200, 'cmp    %rax,%rdi')
					    + fn('checked_read_1', 0x300, 'cmp    %rdi,%rax'))
		self.assertEqual(['movabs $0x123456789abcdef,%rax', 'cmp    %rax,%rdi', 'ja     <+0x14>',
				  'ret'], series['masked_read_1'])
		baseline = native.region_code(fn('masked_read_1', 0x900, 'cmp    %rax,%rdi')
					      + fn('checked_read_1', 0x990, 'cmp    %rax,%rdi'))
		same = native.same_code(baseline, series)
		self.assertEqual({'read_1': True}, same['scoped_as_masked'])
		self.assertEqual({'checked_read_1': False, 'masked_read_1': True}, same['series_as_baseline'])
		self.assertIn('(not: checked_read_1)', readme._same_code_text(
			same['scoped_as_masked'], same['series_as_baseline'], 'objdump'))

	def test_cpu_facts(self) -> None:
		facts = native.cpu_facts('processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\n'
					 'model\t\t: 2\nmodel name\t: AMD EPYC\nstepping\t: 1\n'
					 'flags\t\t: fpu tsc hypervisor constant_tsc\n\nprocessor\t: 1\n'
					 'model name\t: other\n')
		self.assertEqual('AMD EPYC', facts['model_name'])
		self.assertEqual(['constant_tsc', 'hypervisor'], facts['flags'])
		self.assertEqual('AMD EPYC (family 26, model 2, stepping 1)', native._cpu_text(facts))

	def test_compiler_text(self) -> None:
		self.assertEqual('gcc (Debian 12.2.0-14+deb12u1) 12.2.0', native.compiler_text(
			'CONFIG_CC_VERSION_TEXT="gcc (Debian 12.2.0-14+deb12u1) 12.2.0"\nCONFIG_CC_IS_GCC=y\n'))

	@unittest.skipUnless(shutil.which('gcc'), 'gcc is not installed')
	def test_program_compiles_patches_and_runs(self) -> None:
		"""native_bench.c with the stand-in for the kernel object: the
		alternatives and the runtime constant patched, the checks passed,
		every sequence timed; a tiny round count, no speed asserted."""
		with tempfile.TemporaryDirectory() as tmp:
			program = Path(tmp) / 'native_bench'
			link = native.link_command(DATA / 'native' / 'stub_regions.c', program)
			subprocess.run(link.full_argv(), check=True)
			out = subprocess.run([str(program), '-r', '3', '-n', '2', '-w', '1', '-c', '0'],
					     check=True, capture_output=True, text=True).stdout
		parsed = native.parse_native_output(out.splitlines())
		self.assertTrue(parsed.checked)
		self.assertEqual({'smap': 24, 'lfence': 6, 'runtime_const': parsed.patched['runtime_const']},
				 parsed.patched)
		self.assertGreater(parsed.patched['runtime_const'], 0)
		self.assertEqual(13, len(parsed.ticks))
		self.assertTrue(all(len(t) == 3 for t in parsed.ticks.values()))
		figures = native.native_figures({'baseline': parsed})
		self.assertEqual(6, len(figures['ratio_masked_over_checked']))


class TreeWideTest(unittest.TestCase):
	"""The tree-wide count of the code section, on the native stand-in object
	(its alternatives are encoded as the kernel's; SMAP is feature 100 there)."""

	def test_cpu_feature_from_the_header(self) -> None:
		header = ('#define X86_FEATURE_SMAP\t\t( 9*32+20) /* "smap" */\n'
			  '#define X86_FEATURE_LFENCE_RDTSC\t(20*32+ 2) /* x */\n')
		self.assertEqual(308, elfobj.cpu_feature(header, 'SMAP'))
		self.assertEqual(642, elfobj.cpu_feature(header, 'LFENCE_RDTSC'))
		with self.assertRaises(ValueError):
			elfobj.cpu_feature(header, 'SMEP')

	def test_compiled_objects_skip_composites_and_non_kernel_code(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			build = Path(tmp)
			for rel, cmd in (('kernel/exit.o', 'gcc -Wp,-MMD -c -o kernel/exit.o'),
					 ('fs/ext4/ext4.o', 'ld -m elf_x86_64 -r -o fs/ext4/ext4.o'),
					 ('vmlinux.o', 'ld -r -o vmlinux.o'),
					 ('arch/x86/boot/a20.o', 'gcc -m16 -c -o a20.o')):
				obj = build / rel
				obj.parent.mkdir(parents=True, exist_ok=True)
				obj.write_bytes(b'')
				(obj.parent / f'.{obj.name}.cmd').write_text(f'savedcmd_{rel} := {cmd}\n')
			self.assertEqual(['kernel/exit.o'], code.compiled_objects(build))

	@unittest.skipUnless(shutil.which('gcc') and shutil.which('objdump'), 'needs gcc, objdump')
	def test_regions_and_lfences_of_an_object(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			obj = Path(tmp) / 'stub_regions.o'
			subprocess.run(['gcc', '-O2', '-c', '-o', str(obj),
					str(DATA / 'native' / 'stub_regions.c')], check=True)
			self.assertIsNone(elfobj.read_object(DATA / 'native' / 'stub_regions.c'))
			elf = elfobj.read_object(obj)
			alts = elf.alternatives()
			self.assertEqual(24, sum(a.feature == 100 for a in alts))	# STAC and CLAC
			self.assertEqual(6, sum(a.replacement == elfobj.LFENCE for a in alts))
			self.assertTrue(all(a.instrlen == 3 for a in alts))
			runner = Runner(echo=io.StringIO())
			found = code.region_object(runner, obj, 100)
			self.assertIsNone(code.region_object(runner, obj, 308))	# no region of that feature
		self.assertEqual(12, found.regions)
		# The checked sequences' LFENCEs, each in the function that holds it.
		self.assertEqual(6, sum(found.lfence.values()))
		self.assertTrue(all(name.startswith('native_checked_') for name in found.lfence))
		self.assertGreater(found.text_bytes, 0)


class ToolsTest(unittest.TestCase):
	def test_floor_rule_has_the_checkers_options(self) -> None:
		rule = tools.floor_rule(check.CHECKERS[0])
		options = ' '.join(spatch.options(check.CHECKERS[0]))
		self.assertIn(f'// Options: {options}\n', rule)
		self.assertIn('virtual report', rule)

	def test_coccicheck_floor_names_every_api_word_as_a_literal_token(self) -> None:
		rule = coccicheck.floor_rule(['--no-includes', '--include-headers'])
		for text in ('// Options: --no-includes --include-headers\n',
			     'iterator name ' + ', '.join(api.SCOPES) + ';', *(f'\n{n}@p(...)' for n in api.words())):
			self.assertIn(text, rule)
		self.assertNotIn('=~', rule)	# a regex would make spatch read every file
		if shutil.which('spatch'):
			with tempfile.NamedTemporaryFile('w', suffix='.cocci') as f:
				f.write(rule), f.flush()
				parsed = subprocess.run(['spatch', '-D', 'report', '--parse-cocci', f.name],
							capture_output=True, text=True)
			self.assertEqual(0, parsed.returncode, parsed.stderr)

	def test_coccicheck_runs_commands_and_output(self) -> None:
		self.assertEqual(['floor-1', 'a', 'floor-2', 'b', 'floor-3'], coccicheck.run_order(['a', 'b']))
		self.assertEqual(['coccicheck', 'MODE=report', 'COCCI=/x.cocci', 'J=2', 'SPFLAGS=--profile'],
				 coccicheck.make_argv('/x.cocci', 2, '--profile'))
		self.assertEqual("make -C build/linux coccicheck MODE=report COCCI=s.cocci J=2 SPFLAGS='--profile'",
				 coccicheck.shown(common.paths.DEFAULT_KDIR, 's.cocci', 2, '--profile'))
		self.assertEqual((38, None), (coccicheck.files_matched('spatch -D report\n38 files match\n'),
					      coccicheck.files_matched('coccicheck failed\n')))
		self.assertEqual({'infiles': 8.164, 'outfiles': 3.9, 'total': 12.5}, coccicheck.profile_phases(
			'Main total    :  12.5 sec   1 count\nMain.infiles computation : 8.164 sec  1 count\n'
			'Main.outfiles computation  :  3.9 sec  1 count\n'))
		self.assertRaises(EnvironmentProblem, coccicheck.kernel_checkers, DATA)	# no series there

	def test_figures_sum_the_scripts_against_the_median_floor(self) -> None:
		self.assertEqual({'coccicheck_seconds': 24.0, 'coccicheck_floor_seconds': 6.0,
				  'coccicheck_over_floor': 4.0, 'coccicheck_script_over_floor': 2.0,
				  'coccicheck_scripts': {'a': 10.0, 'b': 14.0}},
				 coccicheck.figures({'a': 10.0, 'b': 14.0}, [5.0, 7.0, 6.0]))
		failed = coccicheck.figures({'a': 10.0, 'b': None}, [])	# a run failed
		self.assertEqual((None, None), (failed['coccicheck_seconds'], failed['coccicheck_over_floor']))
		self.assertEqual(({'convert_floor_seconds': 20.0, 'convert_over_floor': 3.27}, None),
				 (tools.convert_figures(65.4, 20.0), tools.convert_figures(None, 20.0)['convert_over_floor']))


class ReadmeTest(unittest.TestCase):
	def test_readme_has_every_section_and_its_command(self) -> None:
		access = access_section.access_figures(access_section.parse_access_console(AccessConsoleTest.LOG))
		data = {
			'date': '2026-12-03 07:00 UTC', 'wall_seconds': 10.0, 'converted_commit': 'b05e26bd7e0c',
			'host': {'cpus': 2, 'cpu': 'x', 'load_average': [1.0]},
			'request': {'iterations': 100, 'repetitions': 3},
			'access': access,
			'syscall': syscall.syscall_figures({'baseline': {'waitid': [1.0]},
							  'converted': {'waitid': [1.1]}}),
			'code': {'total_bytes_delta': 45, 'lfence_before': 3, 'lfence_after': 1,
				 'functions': {}, 'objects': {}},
			'tools': {'checker_seconds': 10.0, 'floor_seconds': 5.0, 'checker_over_floor': 2.0,
				  'convert_seconds': None},
			'records': {'access': {'accelerator': 'TCG', 'command': 'qemu ...'},
				    'syscall': {}, 'code': {}, 'tools': {'convert_note': 'no convert'}},
		}
		text = readme.readme(data)
		for heading in ('## 2.', '## 3.', '## 4.', '## 5.', 'Under TCG'):
			self.assertIn(heading, text)
		self.assertNotIn('## 1.', text)		# no native section in data
		for part in ('| scoped |', '+45 bytes', 'no convert'):
			self.assertIn(part, text)
		self.assertIn('scoped read x0.50 of open-coded (TCG)', readme.headline(data))
		self.assertNotIn('coccicheck', text)	# a bench.json from before these keys
		data['tools'].update(coccicheck.figures({'regions': 12.0, 'calls': 11.0}, [10.0, 12.0]),
				     convert_seconds=66.0, **tools.convert_figures(66.0, 22.0))
		data['records']['tools'].update(coccicheck_command='for s ...', coccicheck_floor_runs=[10.0, 12.0],
			coccicheck_files_matched={'floor-1': 38, 'regions': 38}, coccicheck_tree_files=59953,
			coccicheck_floor_profile={'infiles': 8.2, 'outfiles': 1.8, 'total': 10.0})
		text = readme.readme(data)
		for row in ('| `make coccicheck`, the checker\'s 2 scripts, summed | 23.0 | `for s ...` |',
			    '| coccicheck: checker / floor | 2.09 | |', '(median of 2 runs) | 11.0 |',
			    '| converter / floor | 3.00 | |', 'of its 59953 .c and .h files',
			    'regions 12.0 s (38 files)', '8.2 s choosing the files', 'that is most of a run'):
			self.assertIn(row, text)
		self.assertIn('coccicheck x2.09 of floor; converter x3.00 of floor', readme.headline(data))
		self.assertNotIn('Linux 6.1', text)
		data['tools'].update({k.replace('coccicheck_', 'coccicheck_6_1_', 1): v for k, v in
				      coccicheck.figures({'regions': 6.0, 'calls': 5.0}, [4.0]).items()})
		data['records']['tools'].update(coccicheck_6_1_tree='Linux 6.1.192 (build/linux-6.1)',
						coccicheck_6_1_command='for t ...', coccicheck_6_1_floor_runs=[4.0],
						coccicheck_6_1_floor_command='make -C build/linux-6.1 ...')
		text = readme.readme(data)
		for row in ('| `make coccicheck` over Linux 6.1.192 (build/linux-6.1), the 2 scripts, '
			    'summed | 11.0 | `for t ...` |',
			    '| the same tree, floor (median of 1 runs) | 4.0 | `make -C build/linux-6.1 ...` |',
			    '| the same tree: checker / floor | 2.75 | |'):
			self.assertIn(row, text)


	def test_native_section_and_headline(self) -> None:
		figures = native.native_figures({'baseline': native.parse_native_output(native_output(NATIVE))})
		figures['estimate'] = native.estimates(figures, None)
		data = {'date': 'd', 'wall_seconds': 1.0, 'host': {}, 'request': {'iterations': 1,
			'repetitions': 1}, 'native': figures,
			'records': {'native': {'cpu': 1, 'rounds': 3, 'regions': 10, 'warmup': 1,
					       'cpu_facts': {'model_name': 'AMD EPYC', 'flags': ['hypervisor']},
					       'trees': {'baseline': {'build_command': 'make M=x native_regions.o',
								      'link_command': 'gcc', 'run_command': 'nb -r 3',
								      'tsc_step': 21, 'asm_goto_output_broken': True,
								      'compiler': 'gcc 12'}}}}}
		text = readme.readme(data)
		self.assertIn('## 1. Region entry and exit on this CPU (native)', text)
		self.assertIn('NOPs of the same length', text)
		self.assertIn('| read | 1 | 10.00 | 11.00 | 3.00 | 3.00 | 0.273 | 0.300 | 8.00 | - |', text)
		self.assertIn('`make M=x native_regions.o`', text)
		self.assertIn('| waitid | 1 | write_8 | 16.0 | 16.0 | - |', text)
		self.assertIn('steps of 21', text)
		self.assertIn('GCC_ASM_GOTO_OUTPUT_BROKEN', text)
		self.assertIn('native masked/checked read_1 x0.27', readme.headline(data))


class CarryOverTest(unittest.TestCase):
	def test_a_section_run_keeps_the_others(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			previous = Path(tmp) / 'bench.json'
			previous.write_text(json.dumps({
				'date': 'old', 'converted_commit': 'abc', 'native': {'x': 1},
				'access': {'y': 2}, 'records': {'access': {'accelerator': 'tcg'},
								 'native': {}}}))
			data: dict = {'date': 'new', 'records': {}}
			benchmarks.carry_over(previous, data, ('native',))
			benchmarks.carry_over(Path(tmp) / 'missing.json', data, ('native',))
		self.assertNotIn('native', data)
		self.assertEqual({'y': 2}, data['access'])
		self.assertEqual({'accelerator': 'tcg', 'date': 'old', 'converted_commit': 'abc'},
				 data['records']['access'])


class RenderTest(unittest.TestCase):
	def test_render_rewrites_readme_from_json(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			data = {'date': 'd', 'wall_seconds': 1.0, 'host': {}, 'request': {'iterations': 1,
				'repetitions': 1}, 'records': {}}
			(Path(tmp) / 'bench.json').write_text(json.dumps(data))
			self.assertIn('# Benchmarks', benchmarks.render(Path(tmp)).read_text())
			(Path(tmp) / 'bench.json').write_text('{')
			with self.assertRaises(UsageError):
				benchmarks.render(Path(tmp))


class CliTest(unittest.TestCase):
	def test_bench_options(self) -> None:
		args = cli.build_parser().parse_args(['bench', '--quick', '--section', 'code'])
		self.assertTrue(args.quick)
		self.assertEqual(['code'], args.section)

	def test_native_options_and_sources(self) -> None:
		args = cli.build_parser().parse_args(['bench', '--section', 'native', '--native-rounds', '5'])
		self.assertEqual((['native'], 5), (args.section, args.native_rounds))
		for path in (native.PROGRAM, native.LINKER_SCRIPT,
			     *(native.SOURCES / f for f in native.KERNEL_FILES)):
			self.assertTrue(path.is_file(), path)

	def test_module_sources_exist(self) -> None:
		for name in (*access_section.MODULE_FILES, 'bench.config'):
			self.assertTrue((TESTCASES / 'bench' / name).is_file(), name)
		init = access_section.access_init(123, 4)
		self.assertIn('insmod /uaccess_bench.ko iterations=123 repetitions=4', init)


if __name__ == '__main__':
	unittest.main()
