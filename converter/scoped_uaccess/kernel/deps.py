# SPDX-License-Identifier: GPL-2.0
"""Checks for, and installs, the Debian packages the pipeline needs."""

import os
from dataclasses import dataclass, field

from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem

# Everything the targets run, in one place. Beyond the brief's list: libc6-dev
# and perl (kernel builds, checkpatch), xz-utils (the tarball), pkg-config
# (objtool's libelf flags), qemu-system-data (qboot.rom), python3-ply and
# python3-git (checkpatch's SPDX check, scripts/spdxcheck.py).
REQUIRED_PACKAGES = (
	'linux-source-6.12', 'git', 'make', 'gcc', 'libc6-dev', 'perl', 'xz-utils',
	'bc', 'bison', 'flex', 'libelf-dev', 'libssl-dev', 'pkg-config', 'dwarves',
	'cpio', 'kmod', 'rsync',
	'clang-14', 'lld-14', 'llvm-14', 'clang-19', 'lld-19', 'llvm-19',
	'gcc-arm-linux-gnueabihf', 'gcc-aarch64-linux-gnu',
	'gcc-powerpc64le-linux-gnu', 'gcc-riscv64-linux-gnu',
	'qemu-system-x86', 'qemu-system-data', 'busybox-static',
	'sparse', 'coccinelle', 'python3', 'python3-jsonschema', 'python3-ply', 'python3-git',
)


@dataclass
class DepsResult:
	missing: list[str] = field(default_factory=list)
	installed: list[str] = field(default_factory=list)


def missing_packages(runner: Runner, packages: tuple[str, ...] = REQUIRED_PACKAGES) -> list[str]:
	"""The packages dpkg does not list as installed (one dpkg-query call)."""
	query = runner.run(Command(('dpkg-query', '-W', '-f=${Package} ${db:Status-Status}\\n',
				    *packages), mutates=False), Output.CAPTURE, check=False)
	installed = set()
	for line in query.output.splitlines():
		name, _, status = line.partition(' ')
		if status.strip() == 'installed':
			installed.add(name.split(':')[0])
	return [p for p in packages if p not in installed]


def ensure(runner: Runner, packages: tuple[str, ...] = REQUIRED_PACKAGES) -> DepsResult:
	"""Installs whatever is missing; needs root only if something is."""
	result = DepsResult(missing=missing_packages(runner, packages))
	if not result.missing:
		runner.say(f'deps: all {len(packages)} packages installed')
		return result
	runner.say(f'deps: missing {" ".join(result.missing)}')
	if os.geteuid() != 0 and not runner.dry_run:
		raise EnvironmentProblem(f'installing {len(result.missing)} missing package(s) needs root',
					 'rerun `make deps` as root (sudo make deps)')
	env = {'DEBIAN_FRONTEND': 'noninteractive'}
	runner.run(Command(('apt-get', 'update'), env=env))
	runner.run(Command(('apt-get', 'install', '-y',
			    *result.missing), env=env))
	if not runner.dry_run:
		still = missing_packages(runner, tuple(result.missing))
		if still:
			raise EnvironmentProblem(f'apt-get did not install {" ".join(still)}',
						 'check the apt sources (Debian 12 bookworm main)')
	result.installed = result.missing
	return result
