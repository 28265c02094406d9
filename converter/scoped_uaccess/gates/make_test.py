# SPDX-License-Identifier: GPL-2.0
"""`make test`: the list of gates, in order, and the table it ends with.

Each gate calls the same step function as its own `make` target, with the
options of the test run; nothing here parses arguments.
"""

import sys
from dataclasses import dataclass
from pathlib import Path

from scoped_uaccess.cocci.convert import steps as convert_steps
from scoped_uaccess.cocci.convert.run import ConvertRequest
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Runner
from scoped_uaccess.core.outcome import Outcome, written
from scoped_uaccess.gates import bisect, checkpatch, cross, negative, sparse, validate
from scoped_uaccess.gates.runner import Gate, GateStatus, run_gates, summary_table
from scoped_uaccess.kernel import deps, kbuild, tree
from scoped_uaccess.kernel.qemu import AccelChoice
from scoped_uaccess.kernel.toolchains import toolchain
from scoped_uaccess.kunit import run as kunit_run

TEST_COMPILERS = ('gcc', 'clang-14', 'clang-19')
CORPUS_RUNNER = paths.UNIT_TESTS / 'cocci_corpus.py'
UNIT_RUNNER = paths.UNIT_TESTS / 'run.py'


@dataclass(frozen=True)
class TestOptions:
	kdir: Path = paths.DEFAULT_KDIR
	patches: Path = paths.PATCHES
	accel: AccelChoice = AccelChoice.AUTO
	force: bool = False
	jobs: int = kbuild.JOBS


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


def corpus_step(runner: Runner, kdir: Path) -> Outcome:
	"""The checker corpus testcases/cocci: the CLI and `make coccicheck`."""
	run = runner.run(Command((sys.executable, str(CORPUS_RUNNER)), env={'KDIR': str(kdir)},
				 mutates=False), check=False)
	if run.returncode != 0:
		return Outcome.findings('the checker corpus did not give the expected findings '
					'(see above)')
	return Outcome.ok('checker corpus as expected')


def gates(runner: Runner, o: TestOptions) -> list[Gate]:
	kunit = [Gate(f'kunit-{cc}', f'KUnit in QEMU failed under {cc}',
		      lambda cc=cc: kunit_run.step(runner, kunit_run.KunitRequest(
			      kdir=o.kdir, toolchain=toolchain(cc), accel=o.accel, jobs=o.jobs)),
		      needs=('tree',))
		 for cc in TEST_COMPILERS]
	conversion = ConvertRequest(tree=o.kdir, out=convert_steps.REGEN_OUT, jobs=o.jobs)
	return [
		Gate('deps', 'required Debian packages missing', lambda: deps.step(runner)),
		Gate('unittest', 'converter Python unit tests or pyflakes failed',
		     lambda: unittest_step(runner)),
		Gate('tree', 'kernel tree could not be prepared',
		     lambda: tree.step(runner, tree.TreeRequest(o.kdir, o.patches, o.force)),
		     needs=('deps',)),
		Gate('cocci', 'the checker corpus does not give the expected findings',
		     lambda: corpus_step(runner, o.kdir), needs=('deps',)),
		*kunit,
		Gate('negative', 'negative compile tests did not behave',
		     lambda: negative.step(runner, paths.kunit_build_dir('gcc')), needs=('tree',)),
		Gate('sparse', 'new sparse/objtool warnings', lambda: sparse.step(runner, o.kdir, o.jobs),
		     needs=('tree',)),
		Gate('checkpatch', 'checkpatch --strict reports an error or warning',
		     lambda: checkpatch.step(runner, o.kdir, o.patches), needs=('tree',)),
		Gate('cross', 'a cross build of the series failed or warned',
		     lambda: cross.step(runner, o.kdir, []), needs=('tree',)),
		Gate('bisect', 'a commit of the series does not build cleanly',
		     lambda: bisect.step(runner, o.kdir), needs=('tree', 'kunit-gcc')),
		Gate('convert-regen', 'regenerating the conversions does not give patches/',
		     lambda: convert_steps.regen_step(runner, conversion, o.patches),
		     needs=('tree',)),
		Gate('validate', 'a converted file builds with a new warning, or the converted '
		     'kernel behaves unlike baseline',
		     lambda: validate.step(runner, validate.ValidateRequest(
			     o.kdir, o.patches, jobs=o.jobs, accel=o.accel)),
		     needs=('tree',)),
	]


def step(runner: Runner, o: TestOptions) -> Outcome:
	"""Every gate; the table goes to stdout and build/results/test-summary.txt."""
	run = run_gates(gates(runner, o), runner.say)
	table = summary_table(run)
	written(paths.RESULTS / 'test-summary.txt', table + '\n')
	print(table, flush=True)
	failed = [r.gate.name for r in run.results if r.status is not GateStatus.PASS]
	return Outcome(run.exit_status, f'gates not passed: {", ".join(failed)}' if failed else '')

