# SPDX-License-Identifier: GPL-2.0
"""Checks for, and installs, the Debian packages the pipeline needs."""

import os
from dataclasses import dataclass, field

from scoped_uaccess.core.command import Command, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.core.outcome import Outcome
from scoped_uaccess.kernel import architectures, kunit_qemu, multitool, toolchains

# What the steps run besides the compilers and QEMU of the architecture
# table, of kunit.py's configurations (kunit_qemu.py: the KUnit matrix's
# cross compilers, QEMU binaries and firmware) and the toolchains: the
# kernel source, its build dependencies
# (libelf-dev and pkg-config for objtool, dwarves), perl and python3-ply
# and python3-git for checkpatch (scripts/spdxcheck.py), qemu-system-data
# for qboot.rom, busybox for the initramfs, and the tools themselves;
# linux-source-6.1, the other tree the checker's report is committed for
# (reports/linux-6.1.*); what the SARIF Multitool needs; u-boot-tools for
# the uImage of the e500 kernel the fixes boot (mkimage).
_OTHER_PACKAGES = (
	'linux-source-6.12', 'linux-source-6.1', 'git', 'make', 'perl', 'xz-utils',
	'bc', 'bison', 'flex', 'libelf-dev', 'libssl-dev', 'pkg-config', 'dwarves',
	'cpio', 'kmod', 'rsync', 'qemu-system-data', 'busybox-static',
	'sparse', 'coccinelle', 'python3', 'python3-jsonschema', 'python3-ply', 'python3-git',
	'python3-pyflakes', 'u-boot-tools', *multitool.DEBIAN_PACKAGES,
)


def required_packages() -> tuple[str, ...]:
	"""Every package the steps need, each once."""
	found: list[str] = []
	for p in (*architectures.packages(), *kunit_qemu.packages(),
		  *(p for t in toolchains.TOOLCHAINS.values() for p in t.packages),
		  *_OTHER_PACKAGES):
		if p not in found:
			found.append(p)
	return tuple(found)


REQUIRED_PACKAGES = required_packages()


@dataclass
class DepsResult:
	missing: list[str] = field(default_factory=list)
	installed: list[str] = field(default_factory=list)


def missing_packages(runner: Runner, packages: tuple[str, ...] = REQUIRED_PACKAGES) -> list[str]:
	"""The packages dpkg does not list as installed, nor as provided by an
	installed package (nodesource's nodejs provides npm): one dpkg-query call."""
	query = runner.run(Command(('dpkg-query', '-W',
				    '-f=${Package} ${db:Status-Status} ${Provides}\\n'),
				   mutates=False), Output.CAPTURE, check=False)
	return [p for p in packages if p not in installed_names(query.output)]


def installed_names(listing: str) -> set[str]:
	"""Installed packages and what they provide, from dpkg-query lines
	`name status provides` (provides as in the control file)."""
	installed = set()
	for line in listing.splitlines():
		name, _, rest = line.partition(' ')
		status, _, provides = rest.partition(' ')
		if status.strip() != 'installed':
			continue
		installed.add(name.split(':')[0])
		for item in provides.split(','):
			if item.strip():
				installed.add(item.split()[0])
	return installed


def ensure(runner: Runner, packages: tuple[str, ...] = REQUIRED_PACKAGES) -> DepsResult:
	"""Installs whatever is missing; needs root only if something is."""
	result = DepsResult(missing=missing_packages(runner, packages))
	if not result.missing:
		runner.say(f'deps: all {len(packages)} packages installed')
		if multitool.install(runner):
			result.installed.append('@microsoft/sarif-multitool (npm)')
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
	result.installed = list(result.missing)
	if multitool.install(runner):
		result.installed.append('@microsoft/sarif-multitool (npm)')
	return result


def step(runner: Runner) -> Outcome:
	result = ensure(runner)
	if result.installed:
		return Outcome.ok(f'installed {" ".join(result.installed)}')
	return Outcome.ok(f'{len(REQUIRED_PACKAGES)} packages present')
