# SPDX-License-Identifier: GPL-2.0
"""The kernel trees the tools work on: Debian's linux-source packages, one record each.

A tree is had from a package: one `make deps` installs (Debian 12's own
suites), or one apt-get downloads from another suite of the same archive
(kernel/debian.py).  A record says which, which versions the tree may
have, and where its patch series is.  Which record a KDIR is comes from
its name (build/linux-7.3) or the version its Makefile declares;
build/linux is 6.12, the tree the core series is written for.
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.errors import EnvironmentProblem, UsageError
from scoped_uaccess.kernel import debian


@dataclass(frozen=True)
class Gates:
	"""What `make test` runs on a tree: kinds of gate (gates/trees.py's
	KINDS, run in the order that list has), the compilers of its KUnit
	kernels (the kind `kunit` is one gate per compiler, kunit-<cc>) and
	the gates whose verdicts are committed (gates/recorded.py), named
	without the tree's suffix (sweep, kunit-gcc)."""
	kinds: tuple[str, ...]
	compilers: tuple[str, ...] = ('gcc',)
	recorded: tuple[str, ...] = ()


@dataclass(frozen=True)
class KernelSource:
	"""A kernel source tarball as a Debian package ships it."""
	package: str			# linux-source-7.3
	series: str			# 7.3: the tree's version is 7.3 or 7.3.N
	version: Optional[str] = None	# the one version the tree must have; None: any of the series
	suite: Optional[debian.Suite] = None	# where to download it from; None: installed by make deps
	tarball: Optional[Path] = None	# an installed package's tarball (default /usr/src/<package>.tar.xz)
	topdir: str = ''		# the one directory the tarball holds (default: the package name)
	patches: Optional[Path] = None	# the directory with the tree's `series`; None: none
	directory: str = ''		# its tree under build/ (default linux-<series>)
	gates: Optional[Gates] = None	# what make test runs on it; None: nothing

	@property
	def top(self) -> str:
		return self.topdir or self.package

	@property
	def kdir(self) -> Path:
		"""Where the targets and make test keep this tree: build/linux-7.3."""
		return paths.BUILD / (self.directory or f'linux-{self.series}')

	def accepts(self, version: Optional[str]) -> bool:
		"""Whether a tree declaring version is one of this source's."""
		if version is None:
			return False
		if self.version:
			return version == self.version
		return version == self.series or version.startswith(self.series + '.')

	def describe(self) -> str:
		"""`Linux 6.12.118` or `Linux 7.3.x`, for messages."""
		return f'Linux {self.version or self.series + ".x"}'


# The tree the core series (patches/series) is written for, in build/linux:
# the series' own gates (KUnit under three compilers, the negative compile
# tests, sparse, cross builds and a build per commit) and the conversions'
# (builds of every file they touch, with sparse, for its architectures),
# then the boots.
DEBIAN_6_12 = KernelSource(
	'linux-source-6.12', '6.12', version='6.12.118', patches=paths.PATCHES,
	directory=paths.DEFAULT_KDIR.name,
	gates=Gates(('tree', 'report', 'checkpatch', 'convert-regen', 'sparse', 'cross', 'kunit',
		     'negative', 'bisect', 'validate', 'sweep', 'userspace'),
		    compilers=('gcc', 'clang-14', 'clang-19'),
		    recorded=('sparse', 'cross', 'bisect', 'kunit-clang-14', 'kunit-clang-19')))
# Debian 12's other kernel source: a long-term tree without masked access
# or scopes, which the checker's report (reports/linux-6.1.*) and the
# whole-tree coccicheck benchmark also run on.  No series.
DEBIAN_6_1 = KernelSource('linux-source-6.1', '6.1')
# The current kernel, where the scoped API is native: trixie-backports
# keeps only its newest uploads, so any 7.3.N will do.  Its series (the
# checker scripts, the KUnit suite, the conversions) is
# patches/linux-7.3/series, its fixes patches/linux-7.3/fixes/.  Its
# conversions are built on the pristine tree, and compared with mainline's
# own conversions (which need build/linux's report of ours); its boots are
# recorded.
DEBIAN_7_3 = KernelSource(
	'linux-source-7.3', '7.3', suite=debian.Suite('trixie-backports'),
	patches=paths.PATCHES / 'linux-7.3',
	gates=Gates(('tree', 'report', 'checkpatch', 'fixes', 'convert-regen', 'mainline', 'builds',
		     'kunit', 'sweep', 'userspace'),
		    recorded=('fixes', 'builds', 'kunit-gcc', 'sweep', 'userspace')))

# The kernel of Debian's unstable suite: report only (reports/linux-7.2.*/),
# no series.  sid keeps only its newest upload, so any 7.2.N will do; once
# sid moves on, fetching it says which linux-source sid serves instead.
DEBIAN_7_2 = KernelSource('linux-source-7.2', '7.2', suite=debian.Suite('sid'))

SOURCES: dict[str, KernelSource] = {s.series: s for s in (DEBIAN_6_12, DEBIAN_6_1, DEBIAN_7_3,
							   DEBIAN_7_2)}
DEFAULT = DEBIAN_6_12
# The trees make test runs gates on, in this order.
TESTED = tuple(s for s in SOURCES.values() if s.gates)


def makefile_version(kdir: Path) -> Optional[str]:
	"""The kernel version the top-level Makefile declares, if it is one."""
	try:
		text = (kdir / 'Makefile').read_text(errors='replace')
	except OSError:
		return None
	fields = {}
	for key in ('VERSION', 'PATCHLEVEL', 'SUBLEVEL', 'EXTRAVERSION'):
		m = re.search(rf'^{key}\s*=[ \t]*(\S*)', text, re.MULTILINE)
		if m is None:
			return None
		fields[key] = m.group(1)
	return '{VERSION}.{PATCHLEVEL}.{SUBLEVEL}{EXTRAVERSION}'.format(**fields)


def version_key(version: str) -> tuple[int, ...]:
	"""A kernel version ('7.3.4') as numbers to sort by: 6.12.118 < 7.3.4."""
	return tuple(int(n) for n in version.split('.') if n.isdigit())


def series_of(version: str) -> str:
	"""6.12.118 -> 6.12."""
	return '.'.join(version.split('.')[:2])


def for_kdir(kdir: Path) -> KernelSource:
	"""The source a tree directory is made from: named by the directory
	(linux-7.3, linux-6.1), else by the version of the tree in it, else
	the default (6.12).  A name that asks for a series no record has is
	a UsageError."""
	m = re.fullmatch(r'linux-(\d+\.\d+)', kdir.name)
	if m:
		if m.group(1) not in SOURCES:
			raise UsageError(f'{kdir}: no Debian kernel source known for Linux {m.group(1)}',
					 'known: ' + ', '.join(f'build/linux-{s}' for s in SOURCES)
					 + ' (converter/scoped_uaccess/kernel/sources.py)')
		return SOURCES[m.group(1)]
	version = makefile_version(kdir)
	if version and series_of(version) in SOURCES:
		return SOURCES[series_of(version)]
	return DEFAULT


def patches_for(kdir: Path) -> Path:
	"""The series directory of the tree in kdir (patches/ for 6.12); a
	directory with no `series` when the tree has none."""
	return for_kdir(kdir).patches or paths.PATCHES / f'linux-{for_kdir(kdir).series}'


def tarball(runner: Runner, source: KernelSource) -> tuple[Path, str]:
	"""The tarball of source on this machine, downloaded first for a source
	of another suite, and the package version it comes from ('' when the
	package is the system's)."""
	if source.suite:
		fetched = debian.fetch(runner, source.package, source.suite)
		return fetched.root / 'usr' / 'src' / f'{source.package}.tar.xz', fetched.version
	path = source.tarball or Path('/usr/src') / f'{source.package}.tar.xz'
	if not path.is_file():
		raise EnvironmentProblem(f'{path} is missing', f'run `make deps` (apt-get install '
					 f'{source.package})')
	return path, ''
