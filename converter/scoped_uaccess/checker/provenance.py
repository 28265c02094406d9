# SPDX-License-Identifier: GPL-2.0
"""What a check's SARIF log may say of where its code comes from.

Its paths are relative to the top of the kernel tree when every path
checked lies in one (what code scanning resolves against a checkout), to
the working directory otherwise; the log says which.  It names the stable
tree's release tag only for a git tree that is clean and sits on the tag
v<version> its Makefile declares; any other tree is `modified` (a git tree
with changes or commits of its own) or `unknown` (not a git tree).
"""

from pathlib import Path
from typing import Optional

from scoped_uaccess.checker.findings import TREE_TOP, SarifTree
from scoped_uaccess.core.command import Output, Runner
from scoped_uaccess.kernel.git import git
from scoped_uaccess.kernel.sources import makefile_version

WORKING_DIRECTORY = 'the working directory the checker ran in'


def kernel_tree(targets: list[Path]) -> Optional[Path]:
	"""The top of the kernel tree every target lies in, if there is one."""
	tops = set()
	for target in targets:
		try:
			here = Path(target).resolve()
		except (OSError, RuntimeError):
			return None
		top = next((d for d in (here, *here.parents)
			    if (d / 'include' / 'linux').is_dir() and makefile_version(d)), None)
		if top is None:
			return None
		tops.add(top)
	return tops.pop() if len(tops) == 1 else None


def describe(runner: Runner, root: Path, kernel: bool) -> SarifTree:
	"""The SarifTree of a check whose paths are relative to root.  The log
	names no path of this machine: the same check gives the same log
	wherever it runs."""
	version = makefile_version(root) if kernel else None
	base = TREE_TOP if kernel else WORKING_DIRECTORY
	uri = None
	top = runner.run(git(root, '--no-optional-locks', 'rev-parse', '--show-toplevel'),
			 Output.CAPTURE, check=False)
	if top.returncode != 0:
		return SarifTree(version, 'unknown: not a git tree', uri, None, base)
	head = runner.run(git(root, '--no-optional-locks', 'rev-parse', '-q', '--verify', 'HEAD'),
			  Output.CAPTURE, check=False).output.strip() or None
	if Path(top.output.strip()).resolve() != root.resolve() or head is None:
		return SarifTree(version, 'unknown: not the top of a git tree', uri, None, base)
	dirty = runner.run(git(root, '--no-optional-locks', 'status', '--porcelain'),
			   Output.CAPTURE, check=False).output.strip()
	tags = runner.run(git(root, '--no-optional-locks', 'tag', '--points-at', 'HEAD'),
			  Output.CAPTURE, check=False).output.split()
	if version and f'v{version}' in tags and not dirty:
		return SarifTree(version, f'released: the git tag v{version}, unmodified', uri, head,
				 base, released=True)
	why = 'local changes' if dirty else f'a commit that is not the tag v{version}' if version \
		else 'a git tree'
	return SarifTree(version, f'modified: {why}', uri, None, base)
