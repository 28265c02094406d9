# SPDX-License-Identifier: GPL-2.0
"""make test on the current kernel: Debian's 7.3 tree, the checker's
report of it, its fixes and its conversions.

The tree is fetched and made as `make tree KDIR=build/linux-7.3` makes
it (its series: the checker and KUnit patches, then the conversions), and its
patches pass checkpatch.  The checker's report of the tree, and of the
pristine tree, are written under build/results/ and must be complete:
every finding triaged, in reports/linux-<version>/triage.json or
carried from another report by its fingerprint; when Debian still
serves the version the committed reports are of, they must also have
the same findings.  The fixes and the conversions apply to the pristine
tree and build cleanly (fixes.py), and the conversions regenerate
identically.  The tree with its series boots in QEMU with the project's
KUnit suite (the series' second patch: mainline has no test of the
scopes) and the tree's usercopy suite: kunit_step(), in build/out/
kunit-gcc-7.3 from build/wt-validate-converted-7.3.  The fault sweep
(sweep_step()) and the userspace tests (userspace_step()) compare it
with the tree with the series up to its API, as validate does for
build/linux.

Debian's backports keep only the newest 7.3.x.  When the version served
is not the one the committed conversions were generated on, the tree is
made with the series up to its API only (the checker and KUnit patches),
the conversions are generated afresh
on it and those are built: the gates test the tool on the tree users
have, and their summaries say that the committed series needs a
refresh (`make convert-install KDIR=build/linux-7.3`).
"""

from pathlib import Path

from typing import Optional

from scoped_uaccess.checker import report
from scoped_uaccess.convert import mainline
from scoped_uaccess.convert import targets as convert_targets
from scoped_uaccess.convert.driver import ConvertRequest, default_worktree
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.core.outcome import Outcome, relative
from scoped_uaccess.gates import checkpatch, fixes, validate
from scoped_uaccess.sweep import run as faultsweep
from scoped_uaccess.kernel import baseline, kbuild, series, sources, tree
from scoped_uaccess.kernel.qemu import AccelChoice
from scoped_uaccess.kernel.toolchains import GCC
from scoped_uaccess.kunit import matrix as kunit_matrix, run as kunit_run
from scoped_uaccess.sweep import boot as sweep_boot

KDIR = sources.DEBIAN_7_3.kdir


def conversions_version(kdir: Path) -> Optional[str]:
	"""The version the committed conversions of kdir's series were
	generated on: that of the reports/linux-<series>.<n>/ holding a
	conversion.json (the newest, should there be several)."""
	series = sources.for_kdir(kdir).series
	found = [d.name.removeprefix('linux-') for d in report.REPORTS.glob(f'linux-{series}.*')
		 if (d / 'conversion.json').is_file()]
	return max(found, key=sources.version_key, default=None)


def drift(kdir: Path) -> str:
	"""Why the tree is made without the committed conversions ('' when
	they are of its version)."""
	made_for = conversions_version(kdir)
	version = tree.makefile_version(kdir)
	if made_for is None or version is None or made_for == version:
		return ''
	return (f'the committed conversions are of {made_for}, Debian serves {version}; '
		f'refresh them with `make convert-install KDIR={relative(kdir)}`')


def _core(patches: Path) -> list[Path]:
	return series.read_series(patches)[:len(series.series_parts(patches).core)]


def tree_step(runner: Runner, force: bool = False, kdir: Path = KDIR) -> Outcome:
	"""The tree as make tree makes it, and checkpatch over its series."""
	patches = sources.patches_for(kdir)
	source = sources.for_kdir(kdir)
	if not kdir.exists() and not runner.dry_run:
		# Extracted first: its version decides how much of the series applies.
		tree.step(runner, tree.TreeRequest(kdir, patches, force, source, upto=0))
	moved = drift(kdir)
	upto = len(_core(patches)) if moved else None
	made = tree.step(runner, tree.TreeRequest(kdir, patches, force, source, upto))
	if made.exit_status != 0 or runner.dry_run:
		return made
	checked = checkpatch.step(runner, kdir, patches, checkpatch.SERIES_IGNORE,
				  name=f'checkpatch-{kdir.name}.txt')
	summary = f'{made.summary}; checkpatch: {checked.summary}' + (f'; {moved}' if moved else '')
	return Outcome(checked.exit_status, summary)


def fixes_step(runner: Runner, kdir: Path = KDIR, jobs: int = kbuild.JOBS) -> Outcome:
	return fixes.step(runner, fixes.FixesRequest(kdir, jobs=jobs))


def regen_step(runner: Runner, kdir: Path = KDIR, jobs: int = kbuild.JOBS) -> Outcome:
	"""The conversions regenerated on the tree's checker commit: the
	committed series exactly, or, on another 7.3.x, a series that the
	builds gate then builds."""
	patches = sources.patches_for(kdir)
	request = ConvertRequest(tree=kdir, out=convert_targets.out_dir(kdir, regen=True),
				 worktree=default_worktree(kdir), jobs=jobs)
	moved = drift(kdir)
	if not moved:
		regenerated = convert_targets.regen_step(runner, request, patches)
		compared = mainline.comparison_step(runner, paths.DEFAULT_KDIR, kdir)
		runner.say(f'mainline-comparison: {compared.summary}')
		return Outcome(max(regenerated.exit_status, compared.exit_status),
			       f'{regenerated.summary}; {compared.summary}')
	made = convert_targets.convert_step(runner, convert_targets.ConvertStep(
		request, patches=patches, core=True))
	return Outcome(made.exit_status, f'{made.summary}; {moved}')


def kunit_step(runner: Runner, kdir: Path = KDIR, jobs: int = kbuild.JOBS,
	       accel: AccelChoice = AccelChoice.AUTO) -> Outcome:
	"""The x86_64 KUnit kernel of the tree with its series, gcc, booted in
	QEMU: the scoped_uaccess and usercopy suites must pass, every case.
	Then the same kernel booted on kunit.py's default x86_64 CPU, which
	has no SMAP: the SMAP case must skip, every other case pass (the rest
	of kunit.py's configurations: `kunit-matrix`, not part of make test)."""
	request = kunit_run.KunitRequest(kdir=kdir, toolchain=GCC, jobs=jobs, accel=accel)
	passed = kunit_run.step(runner, request)
	if passed.exit_status != 0 or runner.dry_run:
		return passed
	again = kunit_matrix.default_cpu_step(runner, kdir, request.build_dir, accel)
	return Outcome(again.exit_status, f'{passed.summary}; {again.summary}')


def sweep_step(runner: Runner, kdir: Path = KDIR, jobs: int = kbuild.JOBS,
	       accel: AccelChoice = AccelChoice.AUTO) -> Outcome:
	"""The fault sweep of the tree with its series against the tree with
	the series up to its API (the checker and KUnit patches), on x86_64
	(the KUnit kernel of kunit_step() is the converted one) and ppc64le."""
	return faultsweep.step(runner, faultsweep.request_for(runner, kdir, jobs=jobs, accel=accel))


def userspace_step(runner: Runner, kdir: Path = KDIR, jobs: int = kbuild.JOBS,
		   accel: AccelChoice = AccelChoice.AUTO) -> Outcome:
	"""The userspace tests (testcases/userspace/) booted on the x86_64
	kernel of the tree with its series and on the tree with the series up
	to its API, as validate boots build/linux's: every check and the
	common KUnit cases must agree.  The kernels are sweep_step()'s x86_64
	ones; what it built is not built again."""
	request = faultsweep.request_for(runner, kdir, targets=('x86_64',), jobs=jobs, accel=accel)
	pair = faultsweep.baseline_pair(sweep_boot.target('x86_64'), request)
	baseline.ensure(runner, request.base, [pair], jobs, paths.RESULTS, runner.say)
	result = validate.ValidateResult(base=request.base)
	validate.boot_compare(runner, request.converted_tree, True, jobs, accel, result, runner.say,
			      request.x86_names[0], tree=kdir)
	if runner.dry_run:
		return Outcome.ok('dry run')
	if result.boot or not result.boot_summary:
		return Outcome.findings('; '.join([result.boot_summary or 'no comparison',
						   *result.boot[:5]]))
	return Outcome.ok(result.boot_summary)


def builds_step(runner: Runner, kdir: Path = KDIR, jobs: int = kbuild.JOBS) -> Outcome:
	"""The conversions on the pristine tree, built for their architectures
	(those regenerated by regen_step when the committed ones are of
	another version)."""
	series: tuple[Path, ...] = ()
	if drift(kdir):
		out = convert_targets.out_dir(kdir, regen=True)
		regenerated = sorted(out.glob('*.patch'))
		if not regenerated:
			raise UsageError(f'{relative(out)} holds no conversion of {relative(kdir)}',
					 'run the convert-regen-7.3 gate (make convert-regen '
					 f'KDIR={relative(kdir)}) first')
		series = (*_core(sources.patches_for(kdir)), *regenerated)
	return fixes.step(runner, fixes.FixesRequest(kdir, jobs=jobs, kind=fixes.CONVERSIONS,
						     series=series))
