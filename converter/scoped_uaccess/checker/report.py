# SPDX-License-Identifier: GPL-2.0
"""The tree-wide report: the checker scripts on a kernel tree, every finding triaged."""

import collections
import enum
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from scoped_uaccess.checker import check
from scoped_uaccess.cocci import index_cache
from scoped_uaccess.kernel import sources
from scoped_uaccess.checker.check import CheckRequest, CheckResult
from scoped_uaccess.checker.findings import Finding, SarifTree, Severity, findings_from_json
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.core.outcome import Outcome, relative
from scoped_uaccess.kernel import multitool
from scoped_uaccess.kernel.git import git
from scoped_uaccess.kernel.tree import kernel_version

REPORTS = paths.REPORTS


class Verdict(enum.Enum):
	REAL_BUG = 'real-bug'
	HARMLESS = 'harmless'		# on the architectures the code builds for
	FALSE_POSITIVE = 'false-positive'
	REVIEWED = 'reviewed'		# code spatch cannot parse, read by hand


VERDICT_TEXT = {
	Verdict.REAL_BUG: 'real bug',
	Verdict.HARMLESS: 'harmless on the architectures it builds for',
	Verdict.FALSE_POSITIVE: 'false positive',
	Verdict.REVIEWED: 'not analysed by spatch, reviewed by hand',
}


@dataclass(frozen=True)
class Triage:
	verdict: Verdict
	reason: str
	at: str = ''		# file:line when triaged, for the reader only
	carried: str = ''	# the triage file of another report it comes from


@dataclass(frozen=True)
class ReportRequest:
	kdir: Path
	out: Optional[Path] = None	# default: reports/linux-<version>/
	triage: Optional[Path] = None	# default: <out>/triage.json
	scripts: tuple[Path, ...] = check.CHECKERS
	jobs: int = check.CheckRequest.jobs
	baseline: Optional[Path] = None


@dataclass
class ReportResult:
	version: str
	out: Path
	check: CheckResult
	triage: dict[str, Triage]
	untriaged: list[str] = field(default_factory=list)
	stale: list[str] = field(default_factory=list)
	error_false_positives: list[Finding] = field(default_factory=list)
	new_since_baseline: Optional[list[Finding]] = None
	seconds: float = 0.0
	validation: Optional[multitool.Validation] = None

	@property
	def complete(self) -> bool:
		return not self.untriaged and not self.error_false_positives


def load_triage(path: Path) -> dict[str, Triage]:
	"""The hand-written triage: {id: {verdict, reason, at}}."""
	if not path.exists():
		return {}
	try:
		data = json.loads(path.read_text())
	except (OSError, ValueError) as e:
		raise UsageError(f'{path}: not a readable JSON triage file ({e})') from e
	triage = {}
	for fid, entry in data.items():
		try:
			verdict = Verdict(entry['verdict'])
			reason = entry['reason'].strip()
		except (KeyError, TypeError, ValueError, AttributeError) as e:
			raise UsageError(f'{path}: entry {fid} needs a verdict out of '
					 f'{", ".join(v.value for v in Verdict)} and a reason') from e
		if not reason:
			raise UsageError(f'{path}: entry {fid} has an empty reason')
		triage[fid] = Triage(verdict, reason, entry.get('at', ''))
	return triage


def _newest_first(path: Path) -> tuple:
	"""reports/linux-7.3.4/triage.json sorts before linux-6.12.118's."""
	m = re.search(r'linux-([\d.]+)', str(path))
	return tuple(-n for n in sources.version_key(m.group(1))) if m else ()


def carried_triage(ids: list[str], own: Path, reports: Path = REPORTS) -> dict[str, Triage]:
	"""The verdicts other reports give findings that own (a triage.json)
	has no entry for: the same fingerprint is the same mistake in the same
	function of the same file, triaged once.  The newest tree's verdict
	wins; each is marked with the file it comes from."""
	wanted = set(ids)
	found: dict[str, Triage] = {}
	files = [*reports.glob('*/triage.json'), *reports.glob('*/*/triage.json')]
	for path in sorted(files, key=lambda p: (_newest_first(p), str(p))):
		if path.resolve() == own.resolve():
			continue
		for fid, t in load_triage(path).items():
			if fid in wanted and fid not in found:
				found[fid] = Triage(t.verdict, t.reason, t.at, carried=relative(path))
	return found


def subsystem(file: str) -> str:
	"""Top-level directory and the one below it: arch/x86, kernel/futex, fs."""
	return '/'.join(Path(file).parts[:-1][:2]) or '.'


def architecture(file: str) -> str:
	parts = Path(file).parts
	return parts[1] if len(parts) > 2 and parts[0] == 'arch' else 'all'


def verdict_text(t: Optional[Triage]) -> str:
	"""A triage as the summary shows it."""
	if t is None:
		return '**NOT TRIAGED**'
	carried = f' (carried from `{t.carried}`)' if t.carried else ''
	return f'**{VERDICT_TEXT[t.verdict]}**{carried}: {t.reason}'


def judge(result: CheckResult, triage: dict[str, Triage]) -> tuple[list[str], list[str], list[Finding]]:
	"""Untriaged ids, triage entries without a finding, ERROR false positives."""
	ids = [f.id for f in result.findings] + [p.id for p in result.parse_failures]
	untriaged = [i for i in ids if i not in triage]
	stale = sorted(set(triage) - set(ids))
	fps = [f for f in result.findings if f.severity is Severity.ERROR and
	       f.id in triage and triage[f.id].verdict is Verdict.FALSE_POSITIVE]
	return untriaged, stale, fps


def new_findings(result: CheckResult, baseline: Path) -> list[Finding]:
	"""Findings whose id is not in an earlier findings.json."""
	try:
		old = {f.id for f in findings_from_json(baseline.read_text())}
	except (OSError, ValueError, KeyError) as e:
		raise UsageError(f'{baseline}: not a findings.json of an earlier report ({e})') from e
	return [f for f in result.findings if f.id not in old]


def run_report(runner: Runner, request: ReportRequest,
	       progress: Optional[Callable[[str], None]] = None) -> ReportResult:
	start = time.monotonic()
	version = kernel_version(request.kdir)
	out = request.out or REPORTS / f'linux-{version}'
	triage_path = request.triage or out / 'triage.json'
	triage = load_triage(triage_path)
	result = check.run_check(runner, CheckRequest(paths=[request.kdir], scripts=request.scripts,
						      root=request.kdir, jobs=request.jobs,
						      inlines=index_cache.index(runner, request.kdir)),
				 progress)
	ids = [f.id for f in result.findings] + [p.id for p in result.parse_failures]
	carried = carried_triage([i for i in ids if i not in triage], triage_path)
	report = ReportResult(version, out, result, {**triage, **carried})
	report.untriaged, report.stale, report.error_false_positives = judge(result, report.triage)
	report.stale = [s for s in report.stale if s in triage]
	if request.baseline:
		report.new_since_baseline = new_findings(result, request.baseline)
	report.seconds = time.monotonic() - start
	if runner.dry_run:
		return report
	# The committed report reproduces: no path of this machine, no time,
	# no commit id.  Those go to build/results/, with a SARIF log whose
	# paths resolve on this machine.
	state = tree_state(runner, request.kdir)
	description = describe_tree(state, baseline_subject(runner, request.kdir))
	out.mkdir(parents=True, exist_ok=True)
	(out / 'report.txt').write_text(result.to_text())
	(out / 'findings.json').write_text(result.to_json())
	(out / 'findings.sarif').write_text(result.to_sarif(
		request.kdir, SarifTree(version, description)))
	(out / 'summary.md').write_text(summary(report, description, regenerate_command(request)))
	local = results_dir(out)
	local.mkdir(parents=True, exist_ok=True)
	(local / 'findings.sarif').write_text(result.to_sarif(request.kdir, SarifTree(
		version, description, request.kdir.resolve().as_uri() + '/',
		head_commit(runner, request.kdir))))
	(local / 'run.json').write_text(json.dumps({
		'kdir': str(request.kdir.resolve()), 'tree': state, 'head': head_commit(runner, request.kdir),
		'version': version, 'out': relative(out), 'jobs': request.jobs,
		'seconds': round(report.seconds, 1), 'spatch': result.spatch_version,
		'timed_out': result.timed_out}, indent=1) + '\n')
	report.validation = multitool.validate(runner, [out / 'findings.sarif',
							 local / 'findings.sarif'])
	return report


def results_dir(out: Path) -> Path:
	"""build/results/report/<name>: what a report run leaves on this machine
	(reports/linux-6.12.118/pristine -> linux-6.12.118-pristine)."""
	try:
		name = '-'.join(out.resolve().relative_to(REPORTS.resolve()).parts)
	except ValueError:
		name = out.resolve().name
	return paths.RESULTS / 'report' / name


def head_commit(runner: Runner, kdir: Path) -> Optional[str]:
	if not (kdir / '.git').exists():
		return None
	run = runner.run(git(kdir, '--no-optional-locks', 'rev-parse', '-q', '--verify', 'HEAD'),
			 Output.CAPTURE, check=False)
	return run.output.strip() if run.returncode == 0 else None


def baseline_subject(runner: Runner, kdir: Path) -> str:
	"""The subject of the tree's `baseline` commit: `Linux 6.1.192 (Debian
	linux-source-6.1)`; '' if it has none."""
	if not (kdir / '.git').exists():
		return ''
	run = runner.run(git(kdir, '--no-optional-locks', 'log', '-1', '--format=%s',
			     'refs/tags/baseline'), Output.CAPTURE, check=False)
	return run.output.strip() if run.returncode == 0 else ''


def regenerate_command(request: ReportRequest) -> str:
	"""The command that writes this report again."""
	if request.out is None and request.triage is None:
		if request.kdir.resolve() == paths.DEFAULT_KDIR.resolve():
			return 'make report'
		return f'make report KDIR={relative(request.kdir)}'
	words = ['converter/scoped-uaccess', 'report', '--kdir', str(request.kdir)]
	if request.out is not None:
		words += ['--out', str(request.out)]
	if request.triage is not None:
		words += ['--triage', str(request.triage)]
	return ' '.join(words)


def describe_tree(state: str, subject: str = '') -> str:
	"""What `git describe` says of a tree made by `make tree`, without its
	commit id; subject names the baseline."""
	base = f'the pristine `baseline` ({subject})' if subject else 'the pristine `baseline`'
	if state == 'baseline':
		return base
	m = re.fullmatch(r'baseline-(\d+)-g[0-9a-f]+', state)
	if m:
		return f'{base} plus {m.group(1)} patches of the series'
	if state == 'not a git tree':
		return 'a directory that is not a git tree'
	return 'not a tree made by `make tree`'


def tree_state(runner: Runner, kdir: Path) -> str:
	"""`git describe` of the tree, or why there is none."""
	if not (kdir / '.git').exists():
		return 'not a git tree'	# not the describe of a repository around it
	run = runner.run(git(kdir, '--no-optional-locks', 'describe', '--always', '--tags',
			     '--dirty'), Output.CAPTURE, check=False)
	return run.output.strip() if run.returncode == 0 else 'not a git tree'


def _table(header: tuple[str, ...], rows: list[tuple]) -> list[str]:
	lines = ['| ' + ' | '.join(header) + ' |', '|' + '---|' * len(header)]
	lines += ['| ' + ' | '.join(str(c) for c in row) + ' |' for row in rows]
	return lines


def summary(report: ReportResult, description: str,
	    regenerate: str = 'make report') -> str:
	"""summary.md: counts by class, subsystem and architecture, then every
	finding with its triage."""
	result, triage = report.check, report.triage
	findings = result.findings
	lines = [f'# The scoped_uaccess checker on Linux {report.version}', '',
		 f'Tree: {description}.  spatch {result.spatch_version}, '
		 f'{len(result.files)} files that use the API.  The wall time, the tree\'s '
		 'commit and a SARIF log with this machine\'s paths are in '
		 f'`{relative(results_dir(report.out))}/` (not committed).', '',
		 f'Regenerate with `{regenerate}`; the triage is a hand-written JSON file '
		 '(`triage.json` of the series report), keyed by the finding id of '
		 '`findings.json`.', '']
	verdicts = collections.Counter(triage[f.id].verdict for f in findings if f.id in triage)
	lines += [f'{len(findings)} findings: '
		  f'{sum(f.severity is Severity.ERROR for f in findings)} ERROR, '
		  f'{sum(f.severity is Severity.WARNING for f in findings)} WARNING; '
		  f'{verdicts[Verdict.REAL_BUG]} real bug(s), '
		  f'{verdicts[Verdict.HARMLESS]} harmless, '
		  f'{verdicts[Verdict.FALSE_POSITIVE]} false positive(s) '
		  f'({len(report.error_false_positives)} at ERROR level).  '
		  f'{len(result.parse_failures)} block(s) spatch cannot parse.', '']
	if report.untriaged:
		lines += [f'**{len(report.untriaged)} finding(s) not triaged: the report is '
			  'incomplete.**', '']

	lines += ['## By class', '']
	rows = []
	for cls in result.classes:
		of = [f for f in findings if f.cls == cls]
		v = collections.Counter(triage[f.id].verdict for f in of if f.id in triage)
		rows.append((cls, sum(f.severity is Severity.ERROR for f in of),
			     sum(f.severity is Severity.WARNING for f in of),
			     v[Verdict.REAL_BUG], v[Verdict.HARMLESS], v[Verdict.FALSE_POSITIVE]))
	lines += _table(('class', 'ERROR', 'WARNING', 'real bug', 'harmless', 'false positive'),
			rows) + ['']

	for title, key in (('subsystem', subsystem), ('architecture', architecture)):
		counts = collections.Counter(key(f.file) for f in findings)
		errors = collections.Counter(key(f.file) for f in findings
					     if f.severity is Severity.ERROR)
		lines += [f'## By {title}', '']
		lines += _table((title, 'findings', 'ERROR'),
				[(name, counts[name], errors[name]) for name in sorted(counts)]) + ['']

	lines += ['## Findings', '']
	for cls in result.classes:
		of = [f for f in findings if f.cls == cls]
		if not of:
			continue
		lines += [f'### {cls}', '']
		for f in of:
			lines.append(f'- `{f.file}:{f.line}` {f.severity.value}: {f.message}  ')
			lines.append(f'  `{f.id}` ({architecture(f.file)}) {verdict_text(triage.get(f.id))}')
		lines.append('')

	lines += ['## Code spatch cannot parse', '']
	if not result.parse_failures:
		lines += ['None.', '']
	for p in result.parse_failures:
		lines.append(f'- `{p.file}:{p.first}-{p.last}` uses {", ".join(p.uses)}  ')
		lines.append(f'  `{p.id}` {verdict_text(triage.get(p.id))}')
	lines.append('')

	real = [f for f in findings if f.id in triage and triage[f.id].verdict is Verdict.REAL_BUG]
	lines += ['## Real bugs', '']
	lines += [f'- `{f.file}:{f.line}` [{f.cls}] {triage[f.id].reason}' for f in real] or ['None.']
	lines.append('')
	if report.stale:
		lines += ['## Triage entries without a finding in this tree', '',
			  'The triage file is shared by the trees the report is run on (the pristine',
			  'baseline, the series); these ids are not found here.  An id that no tree',
			  'reports any more should be removed from triage.json.', '']
		lines += [f'- `{s}`: {triage[s].at} ({VERDICT_TEXT[triage[s].verdict]})'
			  for s in report.stale] + ['']
	return '\n'.join(lines)


def step(runner: Runner, request: ReportRequest) -> Outcome:
	"""`make report`: the report, and whether every finding is triaged."""
	runner.say(f'report: the checker over {request.kdir}')
	result = run_report(runner, request, runner.say)
	if result.new_since_baseline is not None:
		runner.say(f'report: {len(result.new_since_baseline)} finding(s) not in '
			   f'{request.baseline}')
		for f in result.new_since_baseline:
			print(f.text(), flush=True)
	counts = ', '.join(f'{cls} {n}' for cls, n in result.check.counts().items() if n)
	summary = (f'{len(result.check.findings)} finding(s) ({counts or "none"}), '
		   f'{len(result.check.parse_failures)} unparsed block(s), '
		   f'{result.seconds:.0f} s')
	runner.say(f'report: {summary}; written to {result.out}')
	if result.untriaged:
		return Outcome.findings(f'{len(result.untriaged)} finding(s) not triaged in '
					f'{request.triage or result.out / "triage.json"}: '
					f'{", ".join(result.untriaged[:5])}')
	if result.validation is not None:
		notes = collections.Counter(f'{p.rule} {p.name}' for p in result.validation.notes)
		runner.say('report: SARIF Multitool: '
			   f'{len(result.validation.problems)} error(s) or warning(s), notes: '
			   + (', '.join(f'{r} x{n}' for r, n in sorted(notes.items())) or 'none'))
		if not result.validation.ok:
			for p in result.validation.problems:
				print(p.line(), flush=True)
			return Outcome.findings(f'the SARIF Multitool reports {len(result.validation.problems)} '
						'error(s) or warning(s) in the SARIF written (see above)')
	if result.error_false_positives:
		return Outcome.findings(f'{len(result.error_false_positives)} false positive(s) '
					'at ERROR level: '
					+ ', '.join(f.id for f in result.error_false_positives))
	return Outcome.ok(summary)
