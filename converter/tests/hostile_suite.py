#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The hostile-input suite, testcases/hostile: the checker's command line
on names, bytes, trees, options, signals and histories that once made it
say "clean" without checking, or "new" where nothing was new.

Every case is a directory with a `run` script and its `expected` output
(testcases/hostile/README).  A case runs with sh in a scratch copy of its
directory, with its own TMPDIR (which must be empty afterwards: no
temporary file left behind), cache directory and HOME; its exit status and
stdout must be those of `expected`.

    converter/tests/hostile_suite.py [--jobs N] [--cli PATH] [CASE...]

--cli runs the cases against another checkout's CLI (to see what an older
version did).  Not named test_*.py: it runs spatch about a hundred times
and is the `hostile` gate of make test, not a quick unit test.
"""

import argparse
import concurrent.futures
import difflib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import support

CASES = support.TESTCASES / 'hostile'
BIN = CASES / 'bin'
CLI = support.CONVERTER / 'scoped-uaccess'
# One case runs a few spatch processes; the slowest sends signals and
# waits for time limits.
CASE_TIMEOUT = 300


def cases() -> list[Path]:
	return sorted(d for d in CASES.iterdir() if (d / 'run').is_file())


def expected(case: Path) -> tuple[int, str]:
	"""`exit N` on the first line of `expected`, then the stdout."""
	first, _, rest = (case / 'expected').read_text().partition('\n')
	if not first.startswith('exit '):
		raise ValueError(f'{case / "expected"}: the first line must be `exit N`')
	return int(first.split()[1]), rest


def _writable(top: Path) -> None:
	"""Gives back what a case took away (chmod 000), so that it can be removed."""
	for dirpath, dirnames, _ in os.walk(top):
		for d in dirnames:
			os.chmod(Path(dirpath) / d, 0o755, follow_symlinks=False)


def _kill_marked(marker: str) -> None:
	"""Kills every process whose environment carries the case's marker."""
	needle = f'HOSTILE_CASE={marker}'.encode()
	for pid in os.listdir('/proc'):
		if not pid.isdigit() or int(pid) == os.getpid():
			continue
		try:
			if needle in Path(f'/proc/{pid}/environ').read_bytes():
				os.kill(int(pid), signal.SIGKILL)
		except OSError:
			continue


def run_case(case: Path, cli: Path, show: bool = False) -> tuple[bool, str, float]:
	"""Runs one case; whether it passed, what differs (with show: what it
	printed, as `expected` holds it), and its seconds."""
	want_status, want_out = expected(case) if not show else (0, '')
	scratch = Path(tempfile.mkdtemp(prefix=f'hostile-{case.name}-'))
	marker = f'{case.name}-{uuid.uuid4()}'
	try:
		# Cases run some commands as nobody: the scratch place is theirs to read.
		os.chmod(scratch, 0o755)
		work = scratch / 'case'
		shutil.copytree(case, work, symlinks=True)
		tmp, cache, home = scratch / 'tmp', scratch / 'cache', scratch / 'home'
		for d in (tmp, cache, home):
			d.mkdir()
			os.chmod(d, 0o1777)
		env = {
			'PATH': f'{BIN}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin',
			'SCOPED_UACCESS': str(cli), 'CLI': f'/usr/bin/python3 {cli}',
			'TMPDIR': str(tmp), 'XDG_CACHE_HOME': str(cache), 'HOME': str(home),
			'LANG': 'C.UTF-8', 'LC_ALL': 'C.UTF-8', 'GIT_CONFIG_NOSYSTEM': '1',
			'GIT_AUTHOR_NAME': 'A U Thor', 'GIT_AUTHOR_EMAIL': 'author@example.org',
			'GIT_COMMITTER_NAME': 'A U Thor', 'GIT_COMMITTER_EMAIL': 'author@example.org',
			'GIT_AUTHOR_DATE': '2025-01-01T00:00:00Z',
			'GIT_COMMITTER_DATE': '2025-01-01T00:00:00Z',
			'HOSTILE_CASE': marker,
		}
		start = time.monotonic()
		# A case that does not finish is killed with every process it
		# started, found by the marker in their environment (the CLI's
		# spatch runs have process groups of their own).
		proc = subprocess.Popen(['sh', 'run'], cwd=work, env=env, stdout=subprocess.PIPE,
					stderr=subprocess.PIPE, text=True, errors='backslashreplace',
					stdin=subprocess.DEVNULL, start_new_session=True)
		try:
			stdout, stderr = proc.communicate(timeout=CASE_TIMEOUT)
		except subprocess.TimeoutExpired:
			_kill_marked(marker)
			proc.communicate()
			return False, f'did not finish in {CASE_TIMEOUT} s', time.monotonic() - start
		run = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
		seconds = time.monotonic() - start
		if show:
			return True, f'exit {run.returncode}\n{run.stdout}', seconds
		problems = []
		if run.returncode != want_status:
			problems.append(f'exit {run.returncode}, expected {want_status}')
		if run.stdout != want_out:
			problems.append('stdout differs:\n' + ''.join(difflib.unified_diff(
				want_out.splitlines(True), run.stdout.splitlines(True),
				'expected', 'got')))
		left = sorted(str(p.relative_to(tmp)) for p in tmp.iterdir())
		if left:
			problems.append(f'left in TMPDIR: {", ".join(left)}')
		if problems and run.stderr.strip():
			problems.append('stderr:\n' + run.stderr.rstrip()[-3000:])
		return not problems, '\n'.join(problems), seconds
	finally:
		_writable(scratch)
		shutil.rmtree(scratch, ignore_errors=True)


def main() -> int:
	parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
	parser.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
	parser.add_argument('--cli', type=Path, default=CLI)
	parser.add_argument('--show', action='store_true',
			    help='print what each case gives instead of comparing it')
	parser.add_argument('--write', action='store_true',
			    help='write what each case gives into its expected file (read the diff)')
	parser.add_argument('names', nargs='*', metavar='CASE')
	args = parser.parse_args()
	todo = [c for c in cases() if not args.names or c.name in args.names]
	unknown = set(args.names) - {c.name for c in todo}
	if unknown:
		print(f'hostile: no such case: {", ".join(sorted(unknown))}', file=sys.stderr)
		return 2
	failed = []
	with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
		futures = {pool.submit(run_case, c, args.cli.resolve(), args.show or args.write): c
			   for c in todo}
		for future in concurrent.futures.as_completed(futures):
			case = futures[future]
			ok, why, seconds = future.result()
			if args.write and ok:
				(case / 'expected').write_text(why)
				print(f'wrote {case.name}/expected ({seconds:.0f} s)', flush=True)
				continue
			if args.show or args.write:
				print(f'== {case.name} ({seconds:.0f} s): {why}', flush=True)
				continue
			print(f'{"PASS" if ok else "FAIL"} {case.name} ({seconds:.0f} s)'
			      + ('' if ok else '\n' + why), flush=True)
			if not ok:
				failed.append(case.name)
	print(f'{len(todo) - len(failed)} passed, {len(failed)} failed'
	      + (f': {", ".join(sorted(failed))}' if failed else ''))
	return 1 if failed else 0


if __name__ == '__main__':
	sys.exit(main())
