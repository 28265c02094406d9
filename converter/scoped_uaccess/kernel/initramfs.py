# SPDX-License-Identifier: GPL-2.0
"""The initramfs of a test boot: its skeleton, busybox as its shell, and a busybox /init.

Every boot of the pipeline (the userspace tests, the fault sweep, the
access benchmark, the fixes' boots) gives the kernel an initramfs with
/dev, /proc and /sys and a /dev/console, which the kernel opens before
/init runs; most hold busybox as /bin/sh and an /init script that
mounts proc, sysfs and devtmpfs before it runs its programs.  Each
caller adds its programs and its /init to the skeleton.
"""

from pathlib import Path
from typing import Optional

from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.kernel import cpio

# Debian's busybox-static: it runs without a C library in the archive.
BUSYBOX = Path('/bin/busybox')


def require_busybox(busybox: Path = BUSYBOX) -> None:
	"""Raises EnvironmentProblem when busybox is not installed."""
	if not busybox.is_file():
		raise EnvironmentProblem(f'{busybox} is missing', 'run `make deps` (busybox-static)')


def skeleton(*, busybox: Optional[Path] = None, tmp: bool = False,
	     null: bool = False) -> list[cpio.Entry]:
	"""The entries every test initramfs starts with: the directories, then
	the device nodes, then busybox as /bin/sh when busybox is given; the
	caller's programs and /init follow.  tmp adds /tmp, null /dev/null."""
	dirs = ['bin'] if busybox else []
	dirs += ['dev', 'proc', 'sys'] + (['tmp'] if tmp else [])
	entries = [cpio.directory(d) for d in dirs]
	entries.append(cpio.char_device('dev/console', 5, 1))
	if null:
		entries.append(cpio.char_device('dev/null', 1, 3, 0o666))
	if busybox:
		entries += [cpio.file('bin/busybox', busybox), cpio.symlink('bin/sh', 'busybox')]
	return entries


def busybox_init(comment: str, body: str, *, tmp: bool = False) -> str:
	"""An /init run by busybox sh: comment (whole '# ' lines saying whose
	/init it is), then proc, sysfs and devtmpfs mounted (tmp: a tmpfs on
	/tmp too), then body, which calls busybox as $bb."""
	return ('#!/bin/busybox sh\n' + comment +
		'bb=/bin/busybox\n'
		'$bb mount -t proc proc /proc\n'
		'$bb mount -t sysfs sysfs /sys\n'
		'$bb mount -t devtmpfs devtmpfs /dev\n' +
		('$bb mount -t tmpfs tmpfs /tmp\n' if tmp else '') + body)
