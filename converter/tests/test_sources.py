# SPDX-License-Identifier: GPL-2.0
"""Kernel sources: which tree a KDIR is, and a package of another suite fetched
by the real apt-get from a small local archive."""

import email.utils
import hashlib
import subprocess
import tempfile
import unittest
from pathlib import Path

from support import quiet_runner
from test_tree import make_tarball
from scoped_uaccess.core import paths
from scoped_uaccess.core.errors import EnvironmentProblem, UsageError
from scoped_uaccess.kernel import debian, sources, tree, treefacts
from scoped_uaccess.kernel.sources import KernelSource
from scoped_uaccess.kernel.tree import TreeRequest


def make_archive(where: Path, suite: str, packages: dict[str, tuple[str, Path]]) -> str:
	"""A Debian archive of one suite under where, unsigned: for each package
	name a (version, tarball) whose .deb installs /usr/src/<name>.tar.xz.
	Returns its file: URI."""
	pool = where / 'pool'
	pool.mkdir(parents=True)
	stanzas = []
	for name, (version, tarball) in packages.items():
		root = where / 'build' / name
		(root / 'DEBIAN').mkdir(parents=True)
		(root / 'usr' / 'src').mkdir(parents=True)
		(root / 'usr' / 'src' / f'{name}.tar.xz').write_bytes(tarball.read_bytes())
		(root / 'DEBIAN' / 'control').write_text(
			f'Package: {name}\nVersion: {version}\nArchitecture: all\n'
			'Maintainer: Test <test@example.org>\nDescription: test kernel source\n')
		deb = pool / f'{name}_{version}_all.deb'
		subprocess.run(('dpkg-deb', '--root-owner-group', '--build', str(root), str(deb)),
			       check=True, capture_output=True)
		data = deb.read_bytes()
		stanzas.append(f'Package: {name}\nVersion: {version}\nArchitecture: all\n'
			       f'Maintainer: Test <test@example.org>\nDescription: test kernel source\n'
			       f'Filename: pool/{deb.name}\nSize: {len(data)}\n'
			       f'SHA256: {hashlib.sha256(data).hexdigest()}\n')
	dist = where / 'dists' / suite
	listing = dist / 'main' / 'binary-amd64' / 'Packages'
	listing.parent.mkdir(parents=True)
	listing.write_text('\n'.join(stanzas))
	text = listing.read_bytes()
	(dist / 'Release').write_text(
		f'Suite: {suite}\nCodename: {suite}\nArchitectures: amd64 all\nComponents: main\n'
		f'Date: {email.utils.formatdate(usegmt=True)}\nSHA256:\n'
		f' {hashlib.sha256(text).hexdigest()} {len(text)} main/binary-amd64/Packages\n')
	return where.as_uri()


class SourcesTest(unittest.TestCase):
	def test_a_kdir_is_named_for_its_series_or_read_from_its_makefile(self) -> None:
		self.assertIs(sources.DEBIAN_7_3, sources.for_kdir(Path('build/linux-7.3')))
		self.assertIs(sources.DEBIAN_6_1, sources.for_kdir(Path('/x/linux-6.1')))
		self.assertIs(sources.DEBIAN_6_12, sources.for_kdir(Path('build/linux')))
		with self.assertRaises(UsageError) as cm:
			sources.for_kdir(Path('build/linux-9.9'))
		self.assertIn('build/linux-7.3', cm.exception.fix)
		with tempfile.TemporaryDirectory() as tmp:
			(Path(tmp) / 'Makefile').write_text(
				'VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 9\nEXTRAVERSION =\n')
			self.assertIs(sources.DEBIAN_7_3, sources.for_kdir(Path(tmp)))

	def test_a_series_accepts_any_of_its_versions_a_pinned_one_only_its_own(self) -> None:
		self.assertTrue(sources.DEBIAN_7_3.accepts('7.3.4'))
		self.assertTrue(sources.DEBIAN_7_3.accepts('7.3.11'))
		self.assertFalse(sources.DEBIAN_7_3.accepts('7.30.1'))
		self.assertFalse(sources.DEBIAN_7_3.accepts('7.2.13'))
		self.assertFalse(sources.DEBIAN_7_3.accepts(None))
		self.assertTrue(sources.DEBIAN_6_12.accepts('6.12.118'))
		self.assertFalse(sources.DEBIAN_6_12.accepts('6.12.119'))

	def test_every_record_names_the_directory_of_its_tree(self) -> None:
		for source in sources.SOURCES.values():
			self.assertIs(source, sources.for_kdir(source.kdir), source.kdir)
		self.assertEqual(paths.DEFAULT_KDIR, sources.DEBIAN_6_12.kdir)
		self.assertEqual(paths.BUILD / 'linux-7.2', sources.DEBIAN_7_2.kdir)

	def test_the_patches_of_a_tree(self) -> None:
		self.assertEqual(sources.DEBIAN_6_12.patches, sources.patches_for(Path('build/linux')))
		self.assertEqual('linux-7.3', sources.patches_for(Path('build/linux-7.3')).name)

	def test_mirror_is_the_systems_debian_archive(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			d = Path(tmp)
			(d / 'a.list').write_text('deb https://packages.example.com/apt stable main\n'
						  'deb http://security.debian.org/debian-security x main\n')
			(d / 'b.sources').write_text('Types: deb\nURIs: http://mirror.example.org/debian/\n'
						     'Suites: bookworm\nComponents: main\n')
			self.assertEqual('http://mirror.example.org/debian', debian.mirror((d,)))
			self.assertEqual(debian.DEFAULT_MIRROR, debian.mirror((d / 'none',)))


class TreeFactsTest(unittest.TestCase):
	def test_masking_and_scopes_are_read_from_the_headers(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			k = Path(tmp)
			for arch, text in (('x86', '#define masked_user_access_begin(x) x\n'),
					   ('powerpc', '# define masked_user_access_begin(p) p\n'),
					   ('arm64', '/* no masking */\n')):
				(k / 'arch' / arch / 'include' / 'asm').mkdir(parents=True)
				(k / 'arch' / arch / 'include' / 'asm' / 'uaccess.h').write_text(text)
			(k / 'include' / 'linux').mkdir(parents=True)
			(k / 'include' / 'linux' / 'uaccess.h').write_text(
				'#define scoped_user_read_access(u, e) \\\n\tfoo\n'
				'#define scoped_user_rw_access_size(u, s, e) bar\n')
			facts = treefacts.read(k)
			self.assertEqual(('powerpc', 'x86'), facts.masking)
			self.assertEqual(('scoped_user_read_access', 'scoped_user_rw_access_size'),
					 facts.scopes)
			self.assertTrue(facts.native_scopes)
			(k / 'include' / 'linux' / 'uaccess.h').write_text('/* 6.12 */\n')
			self.assertFalse(treefacts.read(k).native_scopes)
			# x86 masks where its 64-bit header says so, powerpc at both widths
			(k / 'arch' / 'x86' / 'include' / 'asm' / 'uaccess.h').rename(
				k / 'arch' / 'x86' / 'include' / 'asm' / 'uaccess_64.h')
			self.assertEqual((('powerpc', None), ('x86', 64)), treefacts.masking_variants(k))


class FetchTest(unittest.TestCase):
	"""The real apt-get and dpkg-deb against an archive on the disk."""

	@classmethod
	def setUpClass(cls) -> None:
		cls.tmp = tempfile.TemporaryDirectory()
		root = Path(cls.tmp.name)
		tarball = make_tarball(root, sublevel=0)
		cls.archive = make_archive(root / 'archive', 'test-backports',
					   {'linux-source-6.12': ('6.12.0-1~bpo1', tarball)})

	@classmethod
	def tearDownClass(cls) -> None:
		cls.tmp.cleanup()

	def setUp(self) -> None:
		self.work = tempfile.TemporaryDirectory()
		self.debs = Path(self.work.name) / 'debs'
		self.suite = debian.Suite('test-backports', archive=self.archive, keyring=None,
					  top=Path(self.work.name) / 'apt', debs=self.debs)

	def tearDown(self) -> None:
		self.work.cleanup()

	def test_fetch_unpacks_the_candidate_once(self) -> None:
		runner = quiet_runner()
		got = debian.fetch(runner, 'linux-source-6.12', self.suite)
		self.assertEqual('6.12.0-1~bpo1', got.version)
		self.assertTrue((got.root / 'usr' / 'src' / 'linux-source-6.12.tar.xz').is_file())
		again = quiet_runner()
		debian.fetch(again, 'linux-source-6.12', self.suite)
		self.assertNotIn('download', again.echo.getvalue())

	def test_a_package_no_longer_served_names_what_is(self) -> None:
		with self.assertRaises(EnvironmentProblem) as cm:
			debian.fetch(quiet_runner(), 'linux-source-6.13', self.suite)
		self.assertIn('no longer serves linux-source-6.13', cm.exception.problem)
		self.assertIn('linux-source-6.12', cm.exception.fix)
		self.assertFalse(self.debs.exists() and any(self.debs.iterdir()))

	def test_a_tree_of_any_version_of_the_series(self) -> None:
		"""A tree whose version is not fixed: the fetched 6.12.0 is taken,
		and the baseline commit names the package version."""
		source = KernelSource('linux-source-6.12', '6.12', suite=self.suite)
		kdir = Path(self.work.name) / 'linux'
		tree.prepare(quiet_runner(), TreeRequest(kdir, Path(self.work.name) / 'none',
							 source=source))
		self.assertEqual('6.12.0', tree.makefile_version(kdir))
		log = subprocess.run(('git', 'log', '-1', '--format=%s', 'baseline'), cwd=kdir,
				     capture_output=True, text=True, check=True).stdout
		self.assertEqual('Linux 6.12.0 (Debian linux-source-6.12 6.12.0-1~bpo1)\n', log)


if __name__ == '__main__':
	unittest.main()
