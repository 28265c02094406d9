# SPDX-License-Identifier: GPL-2.0
"""`make test`: the list of gates, in order, and the table it ends with.

Each gate calls the same step function as its own `make` target, with the
options of the test run; nothing here parses arguments.
"""

import sys
from dataclasses import dataclass
from pathlib import Path

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Runner
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.core.outcome import Outcome, written
from scoped_uaccess.gates import trees
from scoped_uaccess.gates.runner import Background, Gate, GateStatus, run_gates, summary_table
from scoped_uaccess.gates.warmup import Warmup
from scoped_uaccess.kernel import deps, kbuild, sources
from scoped_uaccess.kernel.qemu import AccelChoice

CORPUS_RUNNER = paths.UNIT_TESTS / 'cocci_corpus.py'
UNIT_RUNNER = paths.UNIT_TESTS / 'run.py'
HOSTILE_RUNNER = paths.UNIT_TESTS / 'hostile_suite.py'


@dataclass(frozen=True)
class TestOptions:
	kdir: Path = paths.DEFAULT_KDIR
	patches: Path = paths.PATCHES
	accel: AccelChoice = AccelChoice.AUTO
	force: bool = False
	jobs: int = kbuild.JOBS
	# Run these recorded gates (gates/recorded.py, names of
	# recorded_gates()) and what they need only, building for real, and
	# commit their verdicts under reports/gates/.
	record: tuple[str, ...] = ()


def unittest_step(runner: Runner) -> Outcome:
	"""The Python unit tests and pyflakes over the package."""
	run = runner.run(Command((sys.executable, str(UNIT_RUNNER)), mutates=False), check=False)
	if run.returncode != 0:
		return Outcome.findings('unit tests failed (see above)')
	flakes = runner.run(Command((sys.executable, '-m', 'pyflakes', 'scoped_uaccess', 'tests',
				     'scoped-uaccess'), cwd=paths.REPO / 'converter', mutates=False),
			    check=False)
	if flakes.returncode != 0:
		return Outcome.findings('pyflakes reports problems (see above)')
	return Outcome.ok('unit tests passed, pyflakes clean')


def hostile_step(runner: Runner) -> Outcome:
	"""The hostile-input suite testcases/hostile: the check command on bad
	names, bytes, trees, options, signals and histories."""
	run = runner.run(Command((sys.executable, str(HOSTILE_RUNNER)), mutates=False), check=False)
	if run.returncode != 0:
		return Outcome.findings('a hostile-input case did not give its expected status and '
					'output (see above)')
	return Outcome.ok('every hostile-input case as expected')


def corpus_step(runner: Runner, kdir: Path) -> Outcome:
	"""The checker corpus testcases/cocci: the CLI and `make coccicheck`."""
	run = runner.run(Command((sys.executable, str(CORPUS_RUNNER)), env={'KDIR': str(kdir)},
				 mutates=False), check=False)
	if run.returncode != 0:
		return Outcome.findings('the checker corpus did not give the expected findings '
					'(see above)')
	return Outcome.ok('checker corpus as expected')


def tested_trees(runner: Runner, o: TestOptions, warm: Warmup) -> list[trees.TreeTest]:
	"""The trees make test tests (kernel/sources.py, TESTED), the default
	one in o.kdir."""
	return [trees.TreeTest(s, o.kdir if s is sources.DEFAULT else s.kdir, runner, warm,
				jobs=o.jobs, accel=o.accel, force=o.force, record=o.record, ours=o.kdir,
				series_dir=o.patches if s is sources.DEFAULT else None)
		for s in sources.TESTED]


def recorded_gates() -> tuple[str, ...]:
	"""Every recorded gate of every tree: what `test --record` records."""
	return tuple(g for t in tested_trees(Runner(dry_run=True), TestOptions(), Warmup())
		     for g in t.recorded())


def gates(runner: Runner, o: TestOptions, warm: Warmup) -> list[Gate]:
	"""deps; the first tree's tree gate (the warm-up builds beside what
	follows); the project's own tests; each tree's checks; each tree's
	boots (their kernels are warmed up in that order)."""
	tested = tested_trees(runner, o, warm)
	first, rest = tested[0], tested[1:]
	return [
		Gate('deps', 'required Debian packages missing', lambda: deps.step(runner)),
		*trees.gates(first, trees.Stage.TREE),
		Gate('unittest', 'converter Python unit tests or pyflakes failed',
		     lambda: unittest_step(runner)),
		Gate('hostile', 'the check command does not give the expected status and output '
		     'on a case of testcases/hostile', lambda: hostile_step(runner), needs=('deps',)),
		Gate('cocci', 'the checker corpus does not give the expected findings',
		     lambda: corpus_step(runner, o.kdir), needs=('deps',)),
		*trees.gates(first, trees.Stage.CHECKS),
		*(g for t in rest for stage in (trees.Stage.TREE, trees.Stage.CHECKS)
		  for g in trees.gates(t, stage)),
		*(g for t in tested for g in trees.gates(t, trees.Stage.BOOTS)),
	]


def selected(all_gates: list[Gate], record: tuple[str, ...]) -> list[Gate]:
	"""Every gate; with record, those recorded gates and what they need."""
	if not record:
		return all_gates
	known = recorded_gates()
	unknown = [name for name in record if name not in known]
	if unknown:
		raise UsageError(f'not a recorded gate: {", ".join(unknown)}',
				 f'name one of {", ".join(known)}, or none for all')
	by_name = {g.name: g for g in all_gates}
	wanted, todo = set(), list(record)
	while todo:
		name = todo.pop()
		if name not in wanted:
			wanted.add(name)
			todo.extend(by_name[name].needs)
	return [g for g in all_gates if g.name in wanted]


def step(runner: Runner, o: TestOptions) -> Outcome:
	"""Every gate; the table goes to stdout and build/results/test-summary.txt."""
	warm = Warmup()
	chosen = selected(gates(runner, o, warm), o.record)
	if o.record:
		# No kernel of a gate that does not run.
		warm.only = frozenset(g.name for g in chosen)
	try:
		run = run_gates(chosen, runner.say, warm.cpu_total)
	finally:
		warm.stop()
	table = summary_table(run, Background(tuple(warm.cpu.items())))
	written(paths.RESULTS / 'test-summary.txt', table + '\n')
	print(table, flush=True)
	failed = [r.gate.name for r in run.results if r.status is not GateStatus.PASS]
	return Outcome(run.exit_status, f'gates not passed: {", ".join(failed)}' if failed else '')

