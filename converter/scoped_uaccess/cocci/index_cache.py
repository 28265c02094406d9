# SPDX-License-Identifier: GPL-2.0
"""The header inline index of a tree, cached by the content that feeds it.

The index (inlines.py) is a text scan of every header of the tree.  It is
cached in the user's cache directory ($XDG_CACHE_HOME/scoped-uaccess, by
default ~/.cache/scoped-uaccess), never in the tool's own checkout, so a
read-only install runs and every checkout of the tool shares it.  Its key
is what the headers hold, not where they are or which commit is checked
out:

- a commit of a git tree: the blob id of each header (git ls-tree);
- a git working tree: the same from the index, with the headers changed
  since and the untracked ones hashed as git hashes blobs;
- any other directory: each header's path, size and modification time.

Each header's own scan is cached by its blob id as well, so the index of
a commit that changes one header costs one scan.  Files are written under
unique names and renamed into place (two runs may build at once), a cache
file that cannot be read is built again, the newest KEEP indexes are kept
and the scans are pruned when they outgrow the trees in use.  When the
cache directory cannot be written, the index goes to the run's scratch
directory and the run pays for the scan.
"""

import hashlib
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

from scoped_uaccess.cocci import inlines
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.core.errors import CommandFailed
from scoped_uaccess.kernel.git import git

KEEP = 16		# indexes kept; each is about 2 MB for a kernel tree
SCANS = 'scans.json'	# blob id -> {name: kind} of that header
MAX_SCANS_FACTOR = 4	# scans of more than this many trees' headers are pruned


def cache_dir() -> Optional[Path]:
	"""$XDG_CACHE_HOME/scoped-uaccess, or ~/.cache/scoped-uaccess; None when
	there is no home to put it in."""
	base = os.environ.get('XDG_CACHE_HOME')
	if not base or not os.path.isabs(base):
		try:
			base = str(Path.home() / '.cache')
		except RuntimeError:
			return None
	return Path(base) / 'scoped-uaccess'


def blob_id(data: bytes) -> str:
	"""What git names a blob of these bytes (a SHA-1 repository)."""
	return hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest()


@dataclass(frozen=True)
class Header:
	path: str		# relative to the tree's top
	oid: str		# its blob id; '' until read (a directory that is not git)
	stamp: str = ''		# size and modification time, where there is no blob id


def _relevant(path: str) -> bool:
	return path.endswith('.h') and path.split('/', 1)[0] not in inlines.SKIP_DIRS


def _split_z(text: str) -> list[str]:
	return [p for p in text.split('\0') if p]


def _git_listing(runner: Runner, kdir: Path, rev: Optional[str],
		 env: Mapping[str, str]) -> Optional[list[Header]]:
	"""The headers of rev (or of the working tree) with their blob ids; None
	when kdir is not a git work tree."""
	if rev is not None:
		run = runner.run(git(kdir, '--no-optional-locks', 'ls-tree', '-r', '-z', '--full-tree',
				     rev, env=env), Output.CAPTURE)
		found = []
		for entry in _split_z(run.output):
			meta, _, path = entry.partition('\t')
			parts = meta.split()
			if len(parts) == 3 and parts[1] == 'blob' and _relevant(path):
				found.append(Header(path, parts[2]))
		return found
	inside = runner.run(git(kdir, '--no-optional-locks', 'rev-parse', '--is-inside-work-tree'),
			    Output.CAPTURE, check=False)
	if inside.returncode != 0 or inside.output.strip() != 'true':
		return None
	staged = runner.run(git(kdir, '--no-optional-locks', 'ls-files', '-s', '-z'), Output.CAPTURE)
	changed = runner.run(git(kdir, '--no-optional-locks', 'diff-files', '--name-only', '-z',
				 '--relative'), Output.CAPTURE)
	others = runner.run(git(kdir, '--no-optional-locks', 'ls-files', '-o', '-z'), Output.CAPTURE)
	ids = {}
	for entry in _split_z(staged.output):
		meta, _, path = entry.partition('\t')
		if _relevant(path):
			ids[path] = meta.split()[1]
	for path in _split_z(changed.output) + _split_z(others.output):
		if _relevant(path):
			ids[path] = ''		# read below: its content is not the index's
	return [Header(p, oid) for p, oid in sorted(ids.items())]


def _fs_listing(kdir: Path) -> list[Header]:
	found = []
	for path in inlines.header_files(kdir):
		try:
			st = path.stat()
		except OSError:
			continue
		found.append(Header(str(path.relative_to(kdir)), '', f'{st.st_size}:{st.st_mtime_ns}'))
	return found


def _read_files(kdir: Path, headers: list[Header]) -> tuple[list[Header], dict[str, bytes]]:
	"""Headers without a blob id, read: their ids and their bytes."""
	out, data = [], {}
	for h in headers:
		if h.oid:
			out.append(h)
			continue
		try:
			content = (kdir / h.path).read_bytes()
		except OSError:
			continue	# deleted, or unreadable: it feeds nothing
		oid = blob_id(content)
		data[oid] = content
		out.append(Header(h.path, oid, h.stamp))
	return out, data


def read_blobs(runner: Runner, kdir: Path, oids: list[str],
		env: Mapping[str, str]) -> dict[str, bytes]:
	"""Blobs by id, with git cat-file --batch (one process for all)."""
	if not oids:
		return {}
	command = git(kdir, 'cat-file', '--batch', env=env)
	runner.say(f'$ {command.shell_line()}  # {len(oids)} header blobs')
	proc = subprocess.Popen(command.full_argv(), cwd=kdir, env=dict(os.environ, **env),
				stdin=subprocess.PIPE, stdout=subprocess.PIPE)
	assert proc.stdin is not None and proc.stdout is not None
	found = {}
	try:
		# Write and read in turns, one blob at a time: no pipe fills up.
		for oid in oids:
			proc.stdin.write(oid.encode() + b'\n')
			proc.stdin.flush()
			head = proc.stdout.readline().split()
			if len(head) == 3 and head[1] == b'blob':
				found[oid] = proc.stdout.read(int(head[2]))
				proc.stdout.read(1)
	finally:
		proc.stdin.close()
		proc.stdout.close()
		proc.wait()
	if proc.returncode != 0:
		raise CommandFailed(command.shell_line(), proc.returncode)
	return found


def _load(path: Path) -> Optional[dict]:
	"""A JSON object from the cache, or None when it is missing or unreadable."""
	try:
		data = json.loads(path.read_text())
	except (OSError, ValueError):
		return None
	return data if isinstance(data, dict) else None


def _write(path: Path, data: dict) -> bool:
	"""Writes under a unique name, then renames into place; False when the
	directory cannot be written."""
	try:
		path.parent.mkdir(parents=True, exist_ok=True)
		fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f'.{path.name}.', suffix='.tmp')
	except OSError:
		return False
	try:
		with os.fdopen(fd, 'w') as f:
			json.dump(data, f, sort_keys=True, separators=(',', ':'))
			f.write('\n')
		os.replace(tmp, path)
		return True
	except OSError:
		try:
			os.unlink(tmp)
		except OSError:
			pass
		return False


def _prune(directory: Path) -> None:
	"""The newest KEEP indexes stay (a use touches one)."""
	try:
		found = sorted(directory.glob('inlines-*.json'), key=lambda p: p.stat().st_mtime,
			       reverse=True)
		for old in found[KEEP:]:
			old.unlink()
	except OSError:
		pass


def index(runner: Runner, kdir: Path, rev: Optional[str] = None,
	  env: Optional[Mapping[str, str]] = None, scratch: Optional[Path] = None) -> Path:
	"""The index of kdir's headers (of commit rev, or as the directory holds
	them now) as a JSON file, built when the cache has none for them.  env:
	for the git commands (an object directory of a review); scratch: where it
	goes when the cache directory cannot be written."""
	env = dict(env or {})
	kdir = kdir.resolve()
	headers = _git_listing(runner, kdir, rev, env)
	data: dict[str, bytes] = {}
	if headers is None:
		headers = _fs_listing(kdir)
		key_text = ''.join(f'{h.path}\0{h.stamp}\n' for h in headers)
	else:
		headers, data = _read_files(kdir, headers)
		key_text = ''.join(f'{h.path}\0{h.oid}\n' for h in headers)
	key = hashlib.sha1(key_text.encode(errors='surrogateescape')).hexdigest()[:20]
	directory = cache_dir()
	target = directory / f'inlines-{key}.json' if directory else None
	if target and _load(target) is not None:
		try:
			os.utime(target)
		except OSError:
			pass
		return target
	runner.say(f'inlines: indexing the static inline functions of {len(headers)} headers '
		   f'of {kdir}' + (f' at {rev}' if rev else ''))
	if not all(h.oid for h in headers):	# a directory that is not git: read it all
		headers, data = _read_files(kdir, headers)
	scans = (_load(directory / SCANS) if directory else None) or {}
	missing = sorted({h.oid for h in headers} - set(scans) - set(data))
	data.update(read_blobs(runner, kdir, missing, env))
	for oid, content in data.items():
		if oid not in scans:
			scans[oid] = inlines.scan_text(content.decode('utf-8', errors='replace'))
	flat: dict[str, str] = {}
	for h in headers:
		for name, kind in scans.get(h.oid, {}).items():
			if flat.get(name) != inlines.ALWAYS:
				flat[name] = kind
	if directory:
		if len(scans) > MAX_SCANS_FACTOR * max(1, len(headers)):
			scans = {h.oid: scans[h.oid] for h in headers if h.oid in scans}
		_write(directory / SCANS, scans)
		if _write(target, flat):
			_prune(directory)
			return target
	# No cache to write to: this run's own copy.
	fallback = Path(tempfile.mkdtemp(prefix='scoped-uaccess-inlines-', dir=scratch))
	path = fallback / f'inlines-{key}.json'
	path.write_text(json.dumps(flat, sort_keys=True) + '\n')
	return path
