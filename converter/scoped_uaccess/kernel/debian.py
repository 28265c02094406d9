# SPDX-License-Identifier: GPL-2.0
"""Packages of another Debian suite, downloaded without touching the system's apt.

The machine's apt sources name one suite (Debian 12, bookworm); the
current kernel's source is in another (`linux-source-7.3` in
trixie-backports).  apt-get takes it with a configuration of its own
under build/apt/<suite>/: a sources.list with that suite of the same
archive, its own package lists and cache, and the archive keyring the
system trusts, so apt checks the Release signature as it always does.
Nothing is installed and nothing under /etc or /var/lib/apt changes:
`apt-get download` only fetches the .deb, which `dpkg-deb -x` unpacks
under build/debian/.
"""

import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import CommandFailed, EnvironmentProblem

APT_DIR = paths.BUILD / 'apt'
DEBS = paths.BUILD / 'debian'
KEYRING = Path('/usr/share/keyrings/debian-archive-keyring.gpg')
DEFAULT_MIRROR = 'http://deb.debian.org/debian'
SYSTEM_SOURCES = (Path('/etc/apt/sources.list'), Path('/etc/apt/sources.list.d'))


@dataclass(frozen=True)
class Fetched:
	"""A package's files unpacked under build/debian/."""
	package: str
	version: str		# Debian's version of the package, 7.3.4-1~bpo13+1
	root: Path		# where its files are: root/usr/src/...


def mirror(sources: tuple[Path, ...] = SYSTEM_SOURCES) -> str:
	"""The Debian archive the system's apt uses (its first `debian` URI
	that is not the security archive); deb.debian.org when none is found."""
	files: list[Path] = []
	for source in sources:
		if source.is_dir():
			files += sorted(p for p in source.iterdir() if p.suffix in ('.list', '.sources'))
		elif source.is_file():
			files.append(source)
	for path in files:
		try:
			text = path.read_text(errors='replace')
		except OSError:
			continue
		# one-line form `deb [opts] URI suite ...` and deb822 `URIs: URI`
		for uri in re.findall(r'^\s*(?:deb\s+(?:\[[^\]]*\]\s+)?|URIs:\s*)(\S+)', text, re.M):
			uri = uri.rstrip('/')
			if uri.endswith('/debian') and 'security' not in uri:
				return uri
	return DEFAULT_MIRROR


@dataclass(frozen=True)
class Suite:
	"""One suite of a Debian archive, with an apt configuration of its own
	under top (build/apt/<suite>/ by default)."""
	name: str			# trixie-backports
	archive: str = ''		# default: the system's archive (mirror())
	keyring: Optional[Path] = KEYRING	# None: an unsigned archive of the unit tests
	top: Optional[Path] = None	# its apt configuration (default build/apt/<name>)
	debs: Optional[Path] = None	# where packages are unpacked (default build/debian)

	@property
	def dir(self) -> Path:
		return self.top or APT_DIR / self.name

	@property
	def unpacked(self) -> Path:
		return self.debs or DEBS

	def options(self) -> tuple[str, ...]:
		"""apt-get and apt-cache options that read only this suite's
		directory: its sources.list, lists and cache, never the system's
		sources."""
		return ('-o', f'Dir::Etc::sourcelist={self.dir / "sources.list"}',
			'-o', 'Dir::Etc::sourceparts=-',
			'-o', f'Dir::State::Lists={self.dir / "lists"}',
			'-o', f'Dir::Cache={self.dir / "cache"}',
			# an empty package status: what the system has installed
			# is no candidate (apt-cache policy would offer it)
			'-o', f'Dir::State::status={self.dir / "status"}',
			'-o', 'APT::Get::List-Cleanup=0',
			# root downloads into build/debian/, which _apt may not write
			'-o', 'APT::Sandbox::User=root')

	def source_line(self) -> str:
		trust = f'signed-by={self.keyring}' if self.keyring else 'trusted=yes'
		return f'deb [{trust}] {self.archive or mirror()} {self.name} main\n'


def configure(runner: Runner, suite: Suite) -> None:
	"""The suite's sources.list, lists and cache directories."""
	if suite.keyring and not suite.keyring.is_file():
		raise EnvironmentProblem(f'{suite.keyring} is missing: apt cannot check the archive',
					 'apt-get install debian-archive-keyring')
	if runner.dry_run:
		runner.say(f'debian: would write {suite.dir / "sources.list"}: '
			   f'{suite.source_line().strip()}')
		return
	for sub in ('lists/partial', 'cache/archives/partial'):
		(suite.dir / sub).mkdir(parents=True, exist_ok=True)
	(suite.dir / 'sources.list').write_text(suite.source_line())
	(suite.dir / 'status').touch()


def update(runner: Runner, suite: Suite) -> None:
	"""apt-get update of the suite's own lists."""
	try:
		runner.run(Command(('apt-get', *suite.options(), 'update'), mutates=True),
			   Output.CAPTURE)
	except CommandFailed as e:
		raise EnvironmentProblem(f'apt-get update of Debian {suite.name} failed ({e.problem})',
					 'check the network and the archive in '
					 f'{suite.dir / "sources.list"}') from e


def candidate(runner: Runner, suite: Suite, package: str) -> Optional[str]:
	"""The version of package that the suite serves now, None if none."""
	run = runner.run(Command(('apt-cache', *suite.options(), 'policy', package),
				 mutates=False), Output.CAPTURE, check=False)
	m = re.search(r'^\s*Candidate:\s*(\S+)', run.output, re.M)
	return m.group(1) if m and m.group(1) != '(none)' else None


def served(runner: Runner, suite: Suite, prefix: str) -> list[str]:
	"""The packages of the suite named prefix and a version (linux-source-7.3,
	linux-source-7.4): what to suggest when one is gone."""
	run = runner.run(Command(('apt-cache', *suite.options(), 'pkgnames', prefix),
				 mutates=False), Output.CAPTURE, check=False)
	names = [n for n in run.output.split() if re.fullmatch(re.escape(prefix) + r'[\d.]+', n)]
	return sorted(names, key=lambda n: [int(x) for x in n[len(prefix):].split('.') if x])


def fetch(runner: Runner, package: str, suite: Suite) -> Fetched:
	"""package as Debian's suite serves it now, unpacked under build/debian/.

	Refreshes the suite's lists, then downloads and unpacks the candidate
	version unless that version is unpacked already.  A package the suite
	no longer serves is an EnvironmentProblem that names what it serves."""
	configure(runner, suite)
	update(runner, suite)
	version = candidate(runner, suite, package)
	if runner.dry_run and version is None:
		version = 'VERSION'
	if version is None:
		prefix = re.sub(r'[\d.]+$', '', package)
		others = [n for n in served(runner, suite, prefix) if n != package]
		raise EnvironmentProblem(
			f'Debian {suite.name} no longer serves {package}',
			f'use a tree it serves ({", ".join(others) or "none found"}): KDIR=build/linux-<x.y>, '
			'or add it to converter/scoped_uaccess/kernel/sources.py')
	debs = suite.unpacked
	root = debs / f'{package}_{version}'
	if root.is_dir():
		return Fetched(package, version, root)
	debs.mkdir(parents=True, exist_ok=True)
	work = Path(tempfile.mkdtemp(prefix=f'.{package}-', dir=debs))
	try:
		runner.say(f'debian: downloading {package} {version} from {suite.name} ...')
		runner.run(Command(('apt-get', *suite.options(), 'download', f'{package}={version}'),
				   cwd=work), Output.CAPTURE,
			   fix=f'check that Debian {suite.name} still serves {package} {version}')
		if runner.dry_run:
			return Fetched(package, version, root)
		found = list(work.glob('*.deb'))
		if len(found) != 1:
			raise EnvironmentProblem(f'apt-get download left {len(found)} .deb files in {work}')
		runner.run(Command(('dpkg-deb', '-x', str(found[0]), str(work / 'root'))))
		(work / 'root').rename(root)
		# Only the newest upload is kept, here as in the archive.
		for old in debs.glob(f'{package}_*'):
			if old != root:
				shutil.rmtree(old, ignore_errors=True)
	finally:
		shutil.rmtree(work, ignore_errors=True)
	return Fetched(package, version, root)
