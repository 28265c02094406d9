# SPDX-License-Identifier: GPL-2.0
"""The checker's wrapper: spatch output, parse failures, ids and formats."""

import json
import tempfile
import unittest
from pathlib import Path

import support
from scoped_uaccess.checker import check, findings
from scoped_uaccess.cocci import spatch
from scoped_uaccess.checker.findings import Finding, Severity

SARIF_SCHEMA = support.DATA / 'sarif' / 'sarif-2.1.0-subset.schema.json'

REPORT = '''\
init_defs_builtins: /usr/lib/coccinelle/standard.h
./arch/x86/kernel/sys_ia32.c:157:1-16: ERROR: [mode-mismatch] region begun with user_write_access_begin() on line 138 ended with user_access_end(), not user_write_access_end()
io_uring/net.c:308:3-18: ERROR: [range] &msg->msg_iov[0].iov_len, the address of unsafe_get_user(), is not based on sr->umsg given to user_access_begin() on line 285
lib/usercopy.c:61:10-27: WARNING: [call-in-region] call to f() inside the region begun with user_read_access_begin() on line 56: not known to be inlined
38 files match
'''

SOURCE_TEXT = '''\
/* user_write_access_begin() in a comment does not count */
#define helper(x) \\
	user_write_access_begin(x, 1)
SYSCALL_DEFINE1(swapcontext, struct ucontext __user *, ctx)
{
	if (!user_write_access_begin(ctx, sizeof(*ctx)))
		return -EFAULT;
	unsafe_put_user(0, &ctx->flags, failed);
	user_write_access_end();
	return 0;
failed:
	user_write_access_end();
	return -EFAULT;
}
'''
SOURCE = SOURCE_TEXT.splitlines()

# What spatch --verbose-parsing prints when it gives up on lines 1-14 and
# on the comment and macro alone (lines 1-3): `badcount: N`, then the N + 1
# lines, the one it blames marked.
STDERR = '''\
HANDLING: x.c
ERROR-RECOV: found sync '}' at line 14
parsing pass2: try again
semantic error function with no return type must have types in param list
 =File "x.c", line 14, column 0, charpos = 400
  around = '}',
  whole content = }
badcount: 13
''' + ''.join(f'bad: {line}\n' for line in SOURCE[:13]) + 'BAD:!!!!! }\n' + '''\
parse error
 = File "x.c", line 3, column 1, charpos = 10
badcount: 2
''' + ''.join(f'bad: {line}\n' for line in SOURCE[:2]) + f'BAD:!!!!! {SOURCE[2]}\n'


def finding(file: str = 'fs/a.c', line: int = 3, cls: str = 'range',
	    severity: Severity = Severity.ERROR, message: str = 'm on line 2') -> Finding:
	return Finding(file, line, 1, 5, severity, cls, message)


class ParseReportTest(unittest.TestCase):
	def test_findings_and_noise(self) -> None:
		found = findings.parse_report(REPORT)
		self.assertEqual(3, len(found))
		first = found[0]
		self.assertEqual(('arch/x86/kernel/sys_ia32.c', 157, 1, 16, Severity.ERROR, 'mode-mismatch'),
				 (first.file, first.line, first.col, first.col_end, first.severity, first.cls))
		self.assertTrue(first.message.startswith('region begun with'))
		self.assertEqual(Severity.WARNING, found[2].severity)

	def test_text_is_coccicheck_form(self) -> None:
		line = REPORT.splitlines()[2]
		self.assertEqual(line, findings.parse_report(line)[0].text())


class ParseFailureTest(unittest.TestCase):
	def test_api_use_in_unparsed_code_is_reported(self) -> None:
		failures = spatch.parse_failures(STDERR, 'x.c', SOURCE_TEXT)
		self.assertEqual(1, len(failures))
		f = failures[0]
		self.assertEqual((6, 1, 14), (f.line, f.first, f.last))
		self.assertEqual(('unsafe_put_user', 'user_write_access_begin', 'user_write_access_end'),
				 f.uses)
		self.assertIn('[parse-error]', f.text())
		self.assertTrue(f.text().startswith('x.c:6:0-0: ERROR: '))

	def test_comments_and_macros_alone_are_not(self) -> None:
		only_macro = STDERR[STDERR.index('parse error'):]
		self.assertEqual([], spatch.parse_failures(only_macro, 'x.c', SOURCE_TEXT))

	def test_an_error_in_spatchs_standard_h_does_not_place_the_block(self) -> None:
		# A macro of standard.h that does not parse (DEFINE_PER_CPU in
		# kernel/rseq.c): its line is not the file's; the block alone is
		# what spatch skipped, not everything up to the end of the file.
		source = '\n'.join(['int a;'] * 5 + ['DEFINE_PER_CPU(struct s, t);', 'int b;'] +
				   ['void f(void __user *p) { user_read_access_end(); }'] * 10) + '\n'
		stderr = ('HANDLING: x.c\nparse error \n'
			  ' = File "/usr/lib/coccinelle/standard.h", line 436, column 30, charpos = 1\n'
			  '  around = \'(\',\nbadcount: 1\nbad: int a;\n'
			  'BAD:!!!!! DEFINE_PER_CPU(struct s, t);\n')
		self.assertEqual([], spatch.parse_failures(stderr, 'x.c', source))
		# The same line in the file itself: spatch skipped up to there.
		self.assertEqual([(8, 5, 17)], [(f.line, f.first, f.last) for f in spatch.parse_failures(
			stderr.replace('/usr/lib/coccinelle/standard.h', 'x.c'), 'x.c', source)])


class IdTest(unittest.TestCase):
	def test_ids_survive_moving_code(self) -> None:
		a = findings.assign_ids([finding(line=3, message='f(): on line 2; also lines 4-5')])
		b = findings.assign_ids([finding(line=9, message='f(): on line 8; also lines 10, 12')])
		self.assertEqual(a[0].id, b[0].id)
		self.assertTrue(a[0].id.startswith('range-'))

	def test_the_function_and_the_words_make_the_id(self) -> None:
		a = findings.assign_ids([finding(message='f(): uses p')])[0].id
		self.assertNotEqual(a, findings.assign_ids([finding(message='g(): uses p')])[0].id)
		self.assertNotEqual(a, findings.assign_ids([finding(message='f(): uses q')])[0].id)
		self.assertEqual('f', findings.function_of('f(): uses p'))
		self.assertEqual('f(): as on line N', findings.stem('f(): as on line 12; also line 13'))

	def test_same_text_twice_gets_distinct_ids(self) -> None:
		found = findings.assign_ids([finding(line=3), finding(line=4)])
		self.assertEqual(2, len({f.id for f in found}))


class FormatTest(unittest.TestCase):
	def result(self) -> check.CheckResult:
		found = findings.assign_ids(findings.parse_report(REPORT))
		failure = spatch.parse_failures(STDERR, 'x.c', SOURCE_TEXT)
		return check.CheckResult(files=['x.c'], findings=found, parse_failures=failure,
					 spatch_version='1.1.1', classes=check.classes())

	def test_json_round_trip(self) -> None:
		result = self.result()
		again = findings.findings_from_json(result.to_json())
		self.assertEqual(result.findings, again)
		self.assertEqual([f.id for f in result.findings], [f.id for f in again])

	def test_sarif_validates_against_the_schema(self) -> None:
		import jsonschema
		log = json.loads(self.result().to_sarif(Path('/k/linux')))
		schema = json.loads(SARIF_SCHEMA.read_text())
		jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker()).validate(log)
		run = log['runs'][0]
		rules = run['tool']['driver']['rules']
		for r in run['results']:
			# a result's ruleIndex points at its rule
			self.assertEqual(r['ruleId'], rules[r['ruleIndex']]['id'])
		first = run['results'][0]['locations'][0]['physicalLocation']
		self.assertEqual({'startLine': 157, 'startColumn': 2, 'endColumn': 17}, first['region'])
		# no path of this machine unless asked for
		self.assertNotIn('uri', run['originalUriBaseIds']['SRCROOT'])
		self.assertNotIn('versionControlProvenance', run)
		local = json.loads(self.result().to_sarif(Path('/k/linux'), findings.SarifTree(
			'6.1.192', 'the pristine `baseline`', 'file:///k/linux/', 'abc123')))['runs'][0]
		self.assertEqual('file:///k/linux/', local['originalUriBaseIds']['SRCROOT']['uri'])
		# Debian's source is not the stable tree's tag: no provenance claimed
		self.assertNotIn('versionControlProvenance', local)
		self.assertEqual({'tree': 'the pristine `baseline`'}, local['properties'])
		released = json.loads(self.result().to_sarif(Path('/k/linux'), findings.SarifTree(
			'6.1.192', 'released', 'file:///k/linux/', 'abc123', released=True)))['runs'][0]
		self.assertEqual({'repositoryUri': findings.KERNEL_REPOSITORY, 'revisionTag': 'v6.1.192',
				  'mappedTo': {'uriBaseId': 'SRCROOT'}, 'revisionId': 'abc123'},
				 released['versionControlProvenance'][0])
		self.assertFalse(run['invocations'][0]['executionSuccessful'])

	def test_snippets_and_context(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			Path(d, 'a.c').write_text('int f(void)\n{\n\tuser_access_end();\n}\n')
			result = check.CheckResult(files=['a.c'], findings=[findings.Finding(
				'a.c', 3, 1, 16, findings.Severity.ERROR, 'mode-mismatch', 'm', 'id')])
			loc = json.loads(result.to_sarif(Path(d)))['runs'][0]['results'][0]['locations'][0]
		region = loc['physicalLocation']['region']
		self.assertEqual({'startLine': 3, 'startColumn': 2, 'endColumn': 17,
				  'snippet': {'text': 'user_access_end'}}, region)
		context = loc['physicalLocation']['contextRegion']
		self.assertEqual((2, 4), (context['startLine'], context['endLine']))
		self.assertEqual('{\n\tuser_access_end();\n}\n', context['snippet']['text'])

	def test_rules_have_names_and_help(self) -> None:
		rules = json.loads(self.result().to_sarif(Path('/k')))['runs'][0]['tool']['driver']['rules']
		by = {r['id']: r for r in rules}
		self.assertEqual('ModeMismatch', by['mode-mismatch']['name'])
		self.assertIn('scoped_uaccess_regions.cocci', by['mode-mismatch']['help']['text'])
		self.assertIn('objtool judges the rest', by['call-in-region']['help']['text'])
		self.assertIn('False positives', by['range']['help']['text'])
		self.assertEqual('ParseError', by['parse-error']['name'])

	def test_committed_report_sarif_validates(self) -> None:
		import jsonschema
		sarif = support.REPO / 'reports' / 'linux-6.12.118' / 'findings.sarif'
		log = json.loads(sarif.read_text())
		schema = json.loads(SARIF_SCHEMA.read_text())
		jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker()).validate(log)
		findings = json.loads(sarif.with_name('findings.json').read_text())['findings']
		self.assertEqual(len(findings), len(log['runs'][0]['results']))

	def test_sarif_schema_rejects_a_bad_log(self) -> None:
		import jsonschema
		log = json.loads(self.result().to_sarif(Path('/k/linux')))
		log['runs'][0]['results'][0]['level'] = 'fatal'
		schema = json.loads(SARIF_SCHEMA.read_text())
		with self.assertRaises(jsonschema.ValidationError):
			jsonschema.validate(log, schema)


class OptionsTest(unittest.TestCase):
	def test_options_come_from_the_rule(self) -> None:
		self.assertEqual(['--no-includes', '--include-headers'], spatch.options(check.CHECKERS[0]))


class VariantsTest(unittest.TestCase):
	def test_both_sides_of_the_ifdef_at_any_depth(self) -> None:
		both = spatch.parse_variants('build/linux/arch/powerpc/kernel/signal_32.c')
		self.assertEqual(2, len(both))
		self.assertEqual(both, spatch.parse_variants('arch/powerpc/kernel/signal_32.c'))
		self.assertEqual(((),), spatch.parse_variants('xarch/powerpc/kernel/signal_32.c'))
		self.assertEqual(((),), spatch.parse_variants('fs/select.c'))


class FindFilesTest(unittest.TestCase):
	def test_directory_scan_keeps_api_users(self) -> None:
		corpus = support.TESTCASES / 'cocci'
		found = spatch.find_files(support.quiet_runner(), [corpus / 'range'])
		self.assertIn(corpus / 'range' / 'other-pointer.c', found)
		self.assertTrue(all(p.suffix == '.c' for p in found))


if __name__ == '__main__':
	unittest.main()
