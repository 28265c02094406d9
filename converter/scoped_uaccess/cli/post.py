# SPDX-License-Identifier: GPL-2.0
"""Command of the posting stage: post."""

import argparse
from pathlib import Path
from typing import Callable

from scoped_uaccess.core import paths
from scoped_uaccess.core.command import Runner
from scoped_uaccess.core.outcome import Outcome, relative
from scoped_uaccess.post import series


def cmd_post(args: argparse.Namespace, runner: Runner) -> Outcome:
	out = args.out or paths.of_tree(paths.RESULTS / 'post', args.kdir)
	posted = series.write(runner, series.PostRequest(
		args.kdir, out, args.sender or '', maintainers=not args.no_maintainers,
		checkpatch=not args.no_checkpatch))
	if runner.dry_run:
		return Outcome.ok('dry run')
	for p in posted:
		runner.say(f'post: {relative(p.folder)}/: {len(p.patches) - 1} patch(es) for '
			   f'{p.planned.section or p.planned.name}; send with `git send-email '
			   f'{relative(p.folder)}/*.patch`')
	return Outcome.ok(f'{len(posted)} series in {relative(out)}')


def add_commands(add: Callable[..., argparse.ArgumentParser]) -> None:
	p = add('post', cmd_post, "the tree's series as one series per maintainer tree, in the "
		"sender's name, ready for git send-email")
	p.add_argument('--out', type=Path, help='where the series go (default: build/results/post, '
		       'post-<x.y> for another tree); replaced whole')
	p.add_argument('--from', dest='sender', metavar='"NAME <EMAIL>"',
		       help='the sender and author (default: git config user.name and user.email)')
	p.add_argument('--no-maintainers', action='store_true',
		       help='no To: and Cc: from scripts/get_maintainer.pl')
	p.add_argument('--no-checkpatch', action='store_true',
		       help='do not count what checkpatch --strict says of each series')
