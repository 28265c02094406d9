# SPDX-License-Identifier: GPL-2.0
"""Writes initramfs archives: cpio "newc", with device nodes, without root."""

import enum
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

MAGIC = b'070701'
TRAILER = 'TRAILER!!!'


class Kind(enum.Enum):
	"""What an entry is; its file type bits in the cpio mode."""
	DIR = stat.S_IFDIR
	FILE = stat.S_IFREG
	SYMLINK = stat.S_IFLNK
	CHAR = stat.S_IFCHR


@dataclass(frozen=True)
class Entry:
	"""One archive member; data is a file's contents or a symlink's target."""
	path: str			# inside the archive, without a leading '/'
	kind: Kind
	perm: int = 0o755
	data: bytes = b''
	rdev: tuple[int, int] = (0, 0)	# major, minor of a device node


def directory(path: str) -> Entry:
	return Entry(path, Kind.DIR, 0o755)


def file(path: str, source: Path, perm: int = 0o755) -> Entry:
	return Entry(path, Kind.FILE, perm, source.read_bytes())


def text_file(path: str, text: str, perm: int = 0o755) -> Entry:
	return Entry(path, Kind.FILE, perm, text.encode())


def symlink(path: str, target: str) -> Entry:
	return Entry(path, Kind.SYMLINK, 0o777, target.encode())


def char_device(path: str, major: int, minor: int, perm: int = 0o600) -> Entry:
	return Entry(path, Kind.CHAR, perm, rdev=(major, minor))


def _pad4(n: int) -> bytes:
	return b'\0' * (-n % 4)


def _member(ino: int, name: str, mode: int, data: bytes, rdev: tuple[int, int]) -> bytes:
	encoded = name.encode() + b'\0'
	fields = (ino, mode, 0, 0, 2 if stat.S_ISDIR(mode) else 1, 0, len(data), 0, 0,
		  rdev[0], rdev[1], len(encoded), 0)
	header = MAGIC + b''.join(b'%08X' % f for f in fields)
	head = header + encoded
	return head + _pad4(len(head)) + data + _pad4(len(data))


def archive(entries: Iterable[Entry]) -> bytes:
	"""The archive, byte for byte the same for the same entries: owner root,
	mtime 0, inode numbers in order. Parents must come before children."""
	out = []
	for ino, e in enumerate(entries, start=1):
		out.append(_member(ino, e.path.lstrip('/'), e.kind.value | e.perm, e.data, e.rdev))
	out.append(_member(0, TRAILER, 0, b'', (0, 0)))
	return b''.join(out)


def write(path: Path, entries: Iterable[Entry]) -> int:
	"""Writes the archive to path; returns its size in bytes."""
	data = archive(entries)
	path.write_bytes(data)
	return len(data)
