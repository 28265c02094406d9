# SPDX-License-Identifier: GPL-2.0
"""The targets `make convert`, `convert-install` and `convert-regen`: the driver
on the core series' commit, then install or compare."""

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

from scoped_uaccess.convert import claims, install
from scoped_uaccess.kernel import letter
from scoped_uaccess.convert.driver import ConvertRequest, run_convert
from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.core.outcome import Outcome, relative
from scoped_uaccess.kernel import builders, series, tree

CONVERT_OUT = paths.RESULTS / 'convert'
REGEN_OUT = paths.RESULTS / 'convert-regen'


def out_dir(kdir: Path, regen: bool = False) -> Path:
	"""build/results/convert[-regen] for build/linux, ...-7.3 for
	build/linux-7.3 (paths.of_tree())."""
	base = REGEN_OUT if regen else CONVERT_OUT
	return paths.of_tree(base, kdir)


def reports_dir(kdir: Path) -> Path:
	"""reports/linux-<version>/ of the tree."""
	return paths.REPO / 'reports' / f'linux-{tree.kernel_version(kdir)}'


@dataclass(frozen=True)
class ConvertStep:
	request: ConvertRequest
	patches: Path = paths.PATCHES
	core: bool = False			# convert baseline + the core part of patches/series
	install: bool = False			# ... and put the result into patches/ and reports/
	install_from: Optional[Path] = None	# install an earlier --core output only


def core_request(runner: Runner, request: ConvertRequest, patches: Path) -> ConvertRequest:
	"""The request for the commit that is baseline + the core series, with
	the first conversion numbered after it."""
	parts = series.series_parts(patches)
	return replace(request, rev=series.core_commit(runner, request.tree, patches),
		       start_number=len(parts.core) + 1)


def convert_step(runner: Runner, step: ConvertStep) -> Outcome:
	request = step.request
	if step.install_from:
		install.install(step.install_from, step.patches, reports_dir(request.tree), runner.say)
		return Outcome.ok(f'installed {step.install_from}')
	if step.core or step.install:
		if request.rev != 'HEAD':
			raise UsageError('--rev and --core/--install together', 'give one of them')
		request = core_request(runner, request, step.patches)
	result = run_convert(runner, request)
	if runner.dry_run:
		return Outcome.ok('dry run')
	if step.install:
		install.install(request.out, step.patches, reports_dir(request.tree), runner.say)
	converted = result.converted
	out = relative(request.out)
	runner.say(f'convert: series: {out}/*.patch; table: {out}/conversion.json, {out}/summary.md')
	return Outcome.ok(f'{converted} of {len(result.entries)} regions converted, '
			  f'{len(result.patches)} patch(es) in {out}')


def regen_step(runner: Runner, request: ConvertRequest, patches: Path) -> Outcome:
	"""Regenerates the conversions on baseline + core series and compares
	them, and conversion.json, with those committed."""
	parts = series.series_parts(patches)
	if not parts.conversions:
		raise UsageError(f'{patches}/series has no conversions part',
				 'generate it with `make convert-install`')
	request = core_request(runner, request, patches)
	result = run_convert(runner, request)
	if runner.dry_run:
		return Outcome.ok('dry run')
	want = install.read_series_texts(patches, parts.conversions)
	have = install.read_series_texts(request.out, [p.name for p in result.patches])
	problems = install.compare_series(want, have)
	committed = reports_dir(request.tree) / 'conversion.json'
	if committed.is_file() and committed.read_text() != (request.out / 'conversion.json').read_text():
		problems.append(f'{relative(committed)} differs from the regenerated '
				f'{relative(request.out)}/conversion.json')
	contradictions = claims_of(request.tree, [patches / n for n in parts.conversions])
	contradictions += letter.stale(patches, reports_dir(request.tree))
	for p in problems + contradictions:
		runner.say(f'convert-regen: {p}')
	summary = (f'{len(have)} regenerated patch(es) against {len(want)} in patches/'
		   f'{"; " + str(len(problems)) + " difference(s)" if problems else ", identical"}; '
		   f'{len(contradictions)} changelog claim(s) the diffs or the tree contradict')
	problems += contradictions
	runner.say(f'convert-regen: {summary}')
	return Outcome.findings(summary) if problems else Outcome.ok(summary)


def claims_of(kdir: Path, patches: list[Path]) -> list[str]:
	"""What the committed conversions' changelogs say that their diffs or
	the tree (the architectures that build each file) contradict."""
	arches = builders.Tree(kdir)
	files = {f for p in patches for f in claims.read_patch(p).files}
	return claims.check_series(patches, {f: builders.builders(kdir, f, arches) for f in files})
