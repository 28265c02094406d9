# SPDX-License-Identifier: GPL-2.0
"""Gates whose verdict is committed with the inputs it was made from.

Which gates of a tree are recorded, its record says (kernel/sources.py,
Gates.recorded): builds (bisect, cross, sparse, fixes-7.3, builds-7.3)
and kernels no other gate needs (the clang KUnit kernels, 7.3's boots),
about half of a cold `make test`'s processor time on a 2-core machine.
Their verdict depends on nothing but what they build from: the pristine
tree (the baseline commit's git tree, which names every byte Debian
ships), the diffs of the patches they apply (the changelogs and the
checker's scripts under scripts/coccinelle/, which no build reads, left
out), the compilers' and QEMUs' versions, the configurations and programs
they build and boot, and the project code that drives them (CODE, and
the modules of the gate's own, Inputs.code).  `converter/scoped-uaccess test
--record` runs them for real and commits each verdict with the
fingerprint of those inputs under reports/gates/; `make test` then
takes a verdict whose fingerprint equals that of its inputs now, and
builds again whenever one input differs (a patch, another 7.3.x, a
compiler update, a change to the gate's code): a stale record costs
time, never a verdict.  docs/validation.md lists the recorded gates.
"""

import datetime
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.outcome import Outcome, relative, written
from scoped_uaccess.kernel import kbuild
from scoped_uaccess.kernel.git import git
from scoped_uaccess.kernel.tree import BASELINE_TAG

RECORDS = paths.REPORTS / 'gates'
# The project code every recorded verdict depends on: this module, how a
# tree is made and how kbuild is called; a gate adds its own (Inputs.code).
PACKAGE = paths.REPO / 'converter' / 'scoped_uaccess'
CODE = tuple(PACKAGE / p for p in (
	'gates/recorded.py', 'kernel/architectures.py', 'kernel/kbuild.py', 'kernel/tree.py',
	'kernel/worktree.py', 'core/command.py'))
_NOT_BUILT = re.compile('^' + re.escape(kbuild.NOT_BUILT))


def modules(*names: str) -> tuple[Path, ...]:
	"""Modules of the package, by path ('gates/sparse.py') or by
	package ('sweep/': every module in it)."""
	found: set[Path] = set()
	for name in names:
		found.update((PACKAGE / name).glob('*.py') if name.endswith('/') else {PACKAGE / name})
	return tuple(sorted(found))


@dataclass(frozen=True)
class Inputs:
	"""What a recorded gate builds from."""
	kdir: Path				# its baseline commit is the pristine tree
	patches: tuple[Path, ...]		# applied in this order
	compilers: tuple[str, ...]		# commands whose --version counts
	configs: tuple[Path, ...] = ()		# configurations and programs it builds or boots
	code: tuple[Path, ...] = ()		# its own modules, beyond CODE


def built_diff(patch_text: str) -> str:
	"""The diff sections of a patch that a build reads, without its changelog."""
	sections = re.split(r'^(?=diff --git )', patch_text, flags=re.M)[1:]
	kept = []
	for section in sections:
		header = section.split('\n', 1)[0]
		path = header.rsplit(' b/', 1)[-1]
		if not _NOT_BUILT.search(path):
			kept.append(section)
	return ''.join(kept)


def _digest(parts: list[str]) -> str:
	h = hashlib.sha256()
	for part in parts:
		h.update(part.encode())
		h.update(b'\0')
	return h.hexdigest()


def fingerprint(runner: Runner, inputs: Inputs) -> dict[str, str]:
	"""One digest per input; equal fingerprints mean the same build."""
	tree = runner.run(git(inputs.kdir, 'rev-parse', f'{BASELINE_TAG}^{{tree}}'),
			  Output.CAPTURE).output.strip()
	versions = []
	for cc in inputs.compilers:
		run = runner.run(Command((cc, '--version'), mutates=False), Output.CAPTURE, check=False)
		versions.append(f'{cc}: {(run.output.splitlines() or ["missing"])[0]}')
	return {
		'tree': tree,
		'patches': _digest([f'{p.name}\n{built_diff(p.read_text())}' for p in inputs.patches]),
		'compilers': _digest(versions),
		'configs': _digest([c.read_text() if c.is_file() else 'missing'
				    for c in inputs.configs]),
		'code': _digest([f'{relative(c)}\n{c.read_text()}'
				 for c in sorted({*CODE, *inputs.code})]),
	}


def record_path(name: str) -> Path:
	return RECORDS / f'{name}.json'


def load(name: str) -> Optional[dict]:
	"""The committed record of a gate, or None when there is none or it is unreadable."""
	try:
		record = json.loads(record_path(name).read_text())
	except (OSError, ValueError):
		return None
	return record if isinstance(record, dict) and 'inputs' in record else None


def changed(record: Optional[dict], now: dict[str, str]) -> list[str]:
	"""The inputs whose digest differs from the record's (all when no record)."""
	if record is None:
		return ['no record']
	return [k for k in now if record['inputs'].get(k) != now[k]]


def current(runner: Runner, name: str, inputs: Inputs) -> bool:
	"""Whether the gate name takes its committed verdict: a passing record
	whose inputs are those of today (step()'s test; the warm-up asks it
	before the gate runs, to build no kernel the gate will not boot)."""
	old = load(name)
	return old is not None and old.get('exit_status') == 0 and \
		not changed(old, fingerprint(runner, inputs))


def verdict_part(details: str) -> str:
	"""A results file up to its build logs (the `=== arch` sections)."""
	return details.split('\n=== ', 1)[0].rstrip() + '\n'


@dataclass(frozen=True)
class RecordedGate:
	name: str
	inputs: Callable[[], Inputs]	# evaluated when the gate runs (after the tree gates)
	run: Callable[[], Outcome]
	results_file: str		# what the gate writes under build/results/


def step(runner: Runner, gate: RecordedGate, record: bool) -> Outcome:
	"""The committed verdict when its inputs are those of today, else a build;
	with record, always a build, committed when it passes."""
	inputs = gate.inputs()
	if not record and current(runner, gate.name, inputs):
		old = load(gate.name)
		details = paths.RESULTS / gate.results_file
		written(details, old['details'])
		return Outcome.ok(f'{old["summary"]} (recorded {old["recorded"]}, inputs unchanged: '
				  f'{relative(record_path(gate.name))})')
	now = fingerprint(runner, inputs)
	stale = changed(load(gate.name), now)
	outcome = gate.run()
	if runner.dry_run:
		return outcome
	if record and outcome.exit_status == 0:
		details = (paths.RESULTS / gate.results_file).read_text()
		written(record_path(gate.name), json.dumps({
			'gate': gate.name,
			'exit_status': outcome.exit_status,
			'summary': outcome.summary,
			'recorded': datetime.date.today().isoformat(),
			'inputs': now,
			'details': verdict_part(details),
		}, indent=1) + '\n')
		return outcome
	if not record:
		why = ', '.join(stale)
		return Outcome(outcome.exit_status, f'{outcome.summary} (built: record '
			       f'{relative(record_path(gate.name))} stale: {why}; '
			       '`converter/scoped-uaccess test --record` records it)')
	return outcome
