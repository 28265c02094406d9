# SPDX-License-Identifier: GPL-2.0
"""Which maintainer tree takes each patch, as the tree's MAINTAINERS says.

scripts/get_maintainer.pl names, for a patch, the MAINTAINERS sections
of the files it touches, their maintainers, lists and git trees.  A
conversion goes to the series of its first section other than THE REST
(LINUX FOR POWERPC, X86 ARCHITECTURE, IO_URING, INTEL DRM I915 DRIVER);
one whose files have no section of their own (kernel/exit.c,
lib/iov_iter.c) goes to the core series, with the people of all of them.
The checker, the KUnit suite and the fixes are series of their own.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

from scoped_uaccess.core.command import Command, Output, Runner

GET_MAINTAINER = Path('scripts/get_maintainer.pl')
# --no-keywords: a section's K: patterns match words anywhere in the
# patch, its changelog included, and a changelog names the architectures
# that build a file: kernel/compat.c's would go to RISC-V for the word
# riscv.  Who takes a patch is what its files' F: lines say.
OPTIONS = ('--no-git', '--no-git-fallback', '--no-rolestats', '--scm', '--subsystem',
	   '--no-tree', '--no-keywords')
# Sections that say nothing of who takes a patch.
GENERIC_SECTIONS = frozenset({'THE REST'})
_EMAIL = re.compile(r'^(?:"?[^"<]*"?\s*)?<?[^@\s<>]+@[^@\s<>]+>?$')


@dataclass
class Maintainers:
	"""What get_maintainer.pl says of one patch."""
	people: list[str] = field(default_factory=list)		# maintainers and reviewers
	lists: list[str] = field(default_factory=list)		# mailing lists
	trees: list[str] = field(default_factory=list)		# git trees (T:)
	sections: list[str] = field(default_factory=list)	# MAINTAINERS sections

	@property
	def section(self) -> str:
		"""The section that takes the patch: the first that is not generic."""
		return next((s for s in self.sections if s not in GENERIC_SECTIONS), '')


def command(kdir: Path, patch: Path) -> Command:
	return Command(('perl', str(GET_MAINTAINER), *OPTIONS, str(patch.resolve())), cwd=kdir,
		       mutates=False)


def parse(output: str) -> Maintainers:
	"""get_maintainer.pl's output: addresses, then `git <url>` lines, then
	section names."""
	m = Maintainers()
	for line in (x.strip() for x in output.splitlines()):
		if not line:
			continue
		if line.startswith(('git ', 'hg ', 'quilt ')):
			m.trees.append(line.split(None, 1)[1])
		elif '@' in line and _EMAIL.match(line):
			(m.lists if _is_list(line) else m.people).append(line)
		elif m.trees or not any(c.islower() for c in line):
			m.sections.append(line)
	return m


def _is_list(address: str) -> bool:
	return not ('<' in address or ' ' in address.strip())


def trailer_people(patch: Path) -> list[str]:
	"""The Cc: trailers of a patch's changelog, but stable's: whom its
	author asked to be told beyond what MAINTAINERS says (git send-email
	adds them to that patch; the cover letter needs them too)."""
	log = patch.read_text(errors='replace').split('\n---\n', 1)[0]
	return [a.strip() for a in re.findall(r'^Cc: (.+)$', log, re.M)
		if 'stable@vger.kernel.org' not in a]


def maintainers(runner: Runner, kdir: Path, patch: Path) -> Maintainers:
	run = runner.run(command(kdir, patch), Output.CAPTURE, check=False)
	found = parse(run.output)
	found.people += [a for a in trailer_people(patch) if a not in found.people]
	return found


def slug(section: str, subject: str) -> str:
	"""A folder name for a series: the subject prefix's first part of its
	first patch (powerpc, x86, drm-i915, io_uring), `core` when it has no
	section of its own."""
	if not section:
		return 'core'
	m = re.match(r'^([\w./-]+?):', subject)
	first = m.group(1).split('/') if m else ['misc']
	return '-'.join(first[:2]) if first[0] == 'drm' else first[0]
