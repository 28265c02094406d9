# SPDX-License-Identifier: GPL-2.0
"""A tree's series as one `git format-patch --cover-letter --base` series per maintainer tree.

The committed series (patches/linux-<x.y>/series and fixes/series) is
what `make tree` applies, in the project's name.  To send it, `post`
splits it by who takes each patch (groups.py): the checker, the KUnit
suite, the conversions per MAINTAINERS section (the core files together)
and the fixes, each a series of its own on the pristine tree.  Each
patch is applied in the sender's name (From: and Signed-off-by:, from
`--from` or git config; never the project's placeholder), formatted with
`--cover-letter --base`, To: and Cc: from get_maintainer.pl, and the
cover letter is written from the facts it states (cover.py).  The
output is a folder per series, ready for `git send-email DIR/*.patch`.
"""

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem, UsageError
from scoped_uaccess.kernel import series as series_mod, sources, tree, worktree
from scoped_uaccess.kernel.checkpatch import PatchResult, check_patch
from scoped_uaccess.kernel.git import git
from scoped_uaccess.post import cover, groups

PLACEHOLDER = re.compile(r'maintainers@users\.noreply\.a-seed-[0-9a-f]+\.example')
_IDENTITY = re.compile(r'^[^<>@\n]+ <[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+>$')


@dataclass(frozen=True)
class PostRequest:
	kdir: Path
	out: Path
	sender: str = ''		# `Name <email>`; '' for git config
	maintainers: bool = True	# To: and Cc: from get_maintainer.pl
	checkpatch: bool = True		# count what checkpatch --strict says of each series


@dataclass
class PlannedSeries:
	"""One series to send: its folder, its kind and its patch files."""
	name: str			# checker, kunit, powerpc, x86, drm-i915, io_uring, core, fixes
	kind: str			# checker, kunit, conversions, fixes
	patches: list[Path]
	section: str = ''		# the MAINTAINERS section that takes it
	who: groups.Maintainers = field(default_factory=groups.Maintainers)	# all of them
	each: list[groups.Maintainers] = field(default_factory=list)		# per patch


@dataclass
class PostedSeries:
	planned: PlannedSeries
	folder: Path
	patches: list[Path] = field(default_factory=list)	# the files written, cover letter first
	checkpatch: tuple[int, int, int] = (0, 0, 0)		# errors, warnings, checks
	checkpatch_kinds: list[str] = field(default_factory=list)	# their types, one per issue


def sender_identity(runner: Runner, given: str) -> str:
	"""`Name <email>` of whoever runs the command: --from, else git config;
	the project's placeholder is never one."""
	if given:
		identity = ' '.join(given.split())
	else:
		values = []
		for key in ('user.name', 'user.email'):
			run = runner.run(git(Path.cwd(), 'config', '--get', key), Output.CAPTURE, check=False)
			values.append(run.output.strip())
		identity = f'{values[0]} <{values[1]}>' if all(values) else ''
	if not identity:
		raise UsageError('no sender identity: the series would be signed by nobody',
				 'set `git config --global user.name "Your Name"` and `git config '
				 '--global user.email you@example.org`, or give --from "Name <email>"')
	if not _IDENTITY.match(identity) or PLACEHOLDER.search(identity):
		raise UsageError(f'{identity!r} is not a sender identity one can sign with',
				 'give --from "Your Name <you@example.org>" (your own, real address)')
	return identity


def plan(runner: Runner, kdir: Path, say: Callable[[str], None]) -> list[PlannedSeries]:
	"""The series of kdir's committed patches, by who takes them."""
	patches = sources.patches_for(kdir)
	parts = series_mod.series_parts(patches)
	planned: list[PlannedSeries] = []
	for name in parts.core:
		files = _files(patches / name)
		kind = 'checker' if all(f.startswith('scripts/coccinelle/') for f in files) else 'kunit'
		planned.append(PlannedSeries(kind, kind, [patches / name]))
	by_section: dict[str, PlannedSeries] = {}
	for name in parts.conversions:
		path = patches / name
		who = groups.maintainers(runner, kdir, path)
		section = who.section
		subject = _subject(path)
		folder = groups.slug(section, subject)
		s = by_section.setdefault(folder, PlannedSeries(folder, 'conversions', [], section))
		s.patches.append(path)
		s.each.append(who)
		_merge(s.who, who)
		say(f'post: {name}: {section or "no section of its own"} -> {folder}')
	planned += by_section.values()
	fixes = series_mod.read_series(patches / 'fixes')
	if fixes:
		planned.append(PlannedSeries('fixes', 'fixes', fixes))
	for s in planned:
		if s.kind != 'conversions':
			for path in s.patches:
				s.each.append(groups.maintainers(runner, kdir, path))
				_merge(s.who, s.each[-1])
			s.section = s.who.section
	return planned


def _merge(into: groups.Maintainers, more: groups.Maintainers) -> None:
	for name in ('people', 'lists', 'trees', 'sections'):
		have = getattr(into, name)
		have += [x for x in getattr(more, name) if x not in have]


def _files(patch: Path) -> list[str]:
	return re.findall(r'^\+\+\+ b/(\S+)', patch.read_text(errors='replace'), re.M)


def _subject(patch: Path) -> str:
	head = patch.read_text(errors='replace').split('\n\n', 1)[0]
	m = re.search(r'^Subject: (?:\[PATCH[^\]]*\] )?(.*(?:\n .*)*)', head, re.M)
	return ' '.join(m.group(1).split()) if m else ''


def in_the_name_of(text: str, sender: str) -> str:
	"""A patch file with the placeholder's From: and Signed-off-by: lines
	the sender's."""
	name, email = sender[:sender.rindex(' <')], sender[sender.rindex('<') + 1:-1]
	text = re.sub(r'^From: [^\n]*(?:\n [^\n]*)*', f'From: {name} <{email}>', text, count=1,
		      flags=re.M)
	return re.sub(r'^Signed-off-by: [^\n]*' + PLACEHOLDER.pattern + r'[^\n]*$',
		      f'Signed-off-by: {name} <{email}>', text, flags=re.M)


def write(runner: Runner, request: PostRequest, say: Optional[Callable[[str], None]] = None) \
		-> list[PostedSeries]:
	"""Every series of the tree, into request.out/<series>/; the output
	folder is replaced only when all of them were written."""
	say = say or runner.say
	sender = sender_identity(runner, request.sender)
	kdir = request.kdir
	tree.require_baseline(runner, kdir)
	planned = plan(runner, kdir, say)
	version = tree.kernel_version(kdir)
	wt = paths.of_tree(paths.BUILD / 'wt-post', kdir)
	request.out.parent.mkdir(parents=True, exist_ok=True)
	staging = Path(tempfile.mkdtemp(prefix='.post-', dir=request.out.parent))
	posted = []
	try:
		for s in planned:
			worktree.worktree(runner, kdir, wt, tree.BASELINE_TAG, scratch=True)
			posted.append(_one(runner, request, wt, s, sender, staging / s.name, say))
		facts = cover.TreeFacts.read(kdir, version or '')
		for p in posted:
			cover.fill(p.folder / series_mod.COVER_LETTER, p, posted, facts, sender)
		if request.out.exists():
			shutil.rmtree(request.out)
		staging.rename(request.out)
	finally:
		shutil.rmtree(staging, ignore_errors=True)
	for p in posted:
		p.folder = request.out / p.planned.name
		p.patches = [p.folder / x.name for x in p.patches]
	return posted


def _one(runner: Runner, request: PostRequest, wt: Path, s: PlannedSeries, sender: str,
	 folder: Path, say: Callable[[str], None]) -> PostedSeries:
	name, email = sender[:sender.rindex(' <')], sender[sender.rindex('<') + 1:-1]
	env = {'GIT_COMMITTER_NAME': name, 'GIT_COMMITTER_EMAIL': email}
	with tempfile.TemporaryDirectory(prefix='post-') as tmp:
		for path in s.patches:
			mine = Path(tmp) / path.name
			mine.write_text(in_the_name_of(path.read_text(errors='replace'), sender))
			am = runner.run(git(wt, '-c', 'commit.gpgsign=false', 'am', '-q', '--keep-cr',
					    str(mine), env=env, mutates=True), Output.CAPTURE, check=False)
			if am.returncode != 0:
				runner.run(git(wt, 'am', '--abort', mutates=True), check=False)
				raise EnvironmentProblem(f'{path.name} does not apply to the pristine tree '
							 f'({(am.stderr or am.output).strip().splitlines()[-1:]})',
							 f'regenerate the series of {request.kdir}')
	addresses = []
	if request.maintainers:
		# To: the first maintainer of each patch (a series of fixes goes to
		# several), Cc: the others and the lists
		firsts = list(dict.fromkeys(who.people[0] for who in s.each if who.people))
		addresses += [f'--to={x}' for x in firsts]
		addresses += [f'--cc={x}' for x in s.who.people if x not in firsts]
		addresses += [f'--cc={x}' for x in s.who.lists]
	folder.mkdir(parents=True)
	base = runner.run(git(wt, 'rev-parse', tree.BASELINE_TAG), Output.CAPTURE).output.strip()
	runner.run(git(wt, 'format-patch', '-q', f'-U{tree.EXPORT_CONTEXT}', '--cover-letter',
		       f'--base={base}', '--thread=shallow', *addresses, '-o', str(folder),
		       f'{tree.BASELINE_TAG}..HEAD', env=env, mutates=True), Output.CAPTURE)
	written = sorted(folder.glob('*.patch'))
	counts = [0, 0, 0]
	kinds: list[str] = []
	if request.checkpatch:
		for p in written[1:]:
			result: PatchResult = check_patch(runner, wt, p)
			counts = [counts[0] + result.errors, counts[1] + result.warnings,
				  counts[2] + result.checks]
			kinds += re.findall(r'(?:ERROR|WARNING|CHECK):(\w+):', '\n'.join(result.issues))
	say(f'post: {s.name}: {len(written) - 1} patch(es) in {folder.name}/, checkpatch --strict '
	    f'{counts[0]} errors, {counts[1]} warnings, {counts[2]} checks')
	return PostedSeries(s, folder, written, (counts[0], counts[1], counts[2]), kinds)

