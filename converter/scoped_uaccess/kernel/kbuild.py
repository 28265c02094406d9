# SPDX-License-Identifier: GPL-2.0
"""kbuild: configure an out-of-tree build, build objects, collect diagnostics.

Every gate that builds (sparse, cross, bisect, validate, the KUnit and
userspace kernels) goes through configure() and build(); the warnings of
a build are Diagnostics, compared as multisets so that a warning moved by
a few lines is still the same warning.
"""

import collections
import hashlib
import os
import re
import shlex
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional, Union

from scoped_uaccess.core.command import Command, CommandResult, Output, Runner
from scoped_uaccess.core.errors import EnvironmentProblem
from scoped_uaccess.kernel.architectures import ARCHES, Arch

# One job per CPU: builds run one at a time (make's .NOTPARALLEL), niced.
JOBS = os.cpu_count() or 1
# What no build reads: scripts/coccinelle/ is coccicheck's, so a patch to
# it (the series' checker patch, which changes with every checker change)
# is no reason to build again (gates/recorded.py, gates/bisect.py).
NOT_BUILT = 'scripts/coccinelle/'
PROGRESS_SECONDS = 20.0


@dataclass(frozen=True)
class Build:
	"""One out-of-tree build directory of one source tree."""
	srctree: Path
	out: Path
	arch: Arch = ARCHES['x86_64']
	make_options: tuple[str, ...] = ('CC=gcc',)	# the toolchain's

	def make(self, *args: str, jobs: Optional[int] = None, nice: bool = False) -> Command:
		"""make -C srctree O=out ARCH=... args."""
		jobs_arg = (f'--jobs={jobs}',) if jobs else ()
		return Command(('make', '-C', str(self.srctree.resolve()), f'O={self.out.resolve()}',
				*self.arch.make_vars(), *self.make_options, *jobs_arg, *args), nice=nice)


def config_value(config: str, symbol: str) -> str:
	"""'y', 'm' or 'n' for CONFIG_<symbol> in a .config text."""
	m = re.search(rf'^CONFIG_{symbol}=(\S+)$', config, re.MULTILINE)
	return m.group(1) if m else 'n'


def configure(runner: Runner, build: Build, base: Union[str, Path],
	      enable: Iterable[str] = (), disable: Iterable[str] = ()) -> bool:
	"""Configures build.out: base is a defconfig target or a .config file to
	start from; then the options to enable and disable, then olddefconfig.
	Skipped when the directory was configured so before (kbuild then
	rebuilds only what changed); returns whether it ran."""
	enable, disable = tuple(enable), tuple(disable)
	stamp = build.out / '.scoped-uaccess-config'
	if isinstance(base, Path):
		digest = hashlib.sha1(base.read_bytes()).hexdigest() if base.is_file() else 'missing'
		what = f'{base.name}:{digest}'
	else:
		what = base
	want = (f'{build.srctree.resolve()} {build.arch.name} {" ".join(build.make_options)} '
		f'{what} +{" +".join(enable)} -{" -".join(disable)}\n')
	if (build.out / '.config').is_file() and stamp.is_file() and stamp.read_text() == want:
		return False
	if not runner.dry_run:
		build.out.mkdir(parents=True, exist_ok=True)
		stamp.unlink(missing_ok=True)
	if isinstance(base, Path):
		runner.say(f'$ cp {base} {build.out}/.config')
		if not runner.dry_run:
			shutil.copyfile(base, build.out / '.config')
	else:
		runner.run(build.make('-s', base), Output.CAPTURE,
			   fix=f'install {build.arch.compiler_package} with `make deps`')
	changes = [w for s in enable for w in ('--enable', s)]
	changes += [w for s in disable for w in ('--disable', s)]
	if changes:
		runner.run(Command((str(build.srctree.resolve() / 'scripts/config'), '--file',
				    str((build.out / '.config').resolve()), *changes)))
	runner.run(build.make('-s', 'olddefconfig'), Output.CAPTURE)
	if not runner.dry_run:
		stamp.write_text(want)
	return True


def build(runner: Runner, build: Build, targets: Iterable[str], jobs: int = JOBS,
	  sparse: bool = False, fresh: bool = False, log: Optional[Path] = None,
	  sink: Optional[Callable[[str], None]] = None) -> CommandResult:
	"""Builds targets (objects, bzImage, ...); never raises on a failed
	build: the caller reads returncode and output.  fresh deletes the
	objects first, so that their compiler, sparse and objtool run again."""
	targets = list(targets)
	if fresh and not runner.dry_run:
		for target in targets:
			if target.endswith('.o'):
				(build.out / target).unlink(missing_ok=True)
	check = ('C=2', 'CHECK=sparse') if sparse else ()
	command = build.make(*check, *targets, jobs=jobs, nice=True)
	if log is not None or sink is not None:
		return runner.run(command, Output.LINES, check=False, log=log,
				  sink=sink or (lambda line: None))
	result = runner.run(command, Output.CAPTURE, check=False)
	result.output += result.stderr
	return result


def build_progress(say: Callable[[str], None]) -> Callable[[str], None]:
	"""A line sink: kbuild's quiet steps become a periodic status line,
	everything else (warnings, errors) is shown as it comes."""
	step = re.compile(r'^  [A-Z][A-Z0-9_-]* +\S')
	state = {'steps': 0, 'last': '', 'start': time.monotonic(), 'shown': time.monotonic()}

	def sink(line: str) -> None:
		now = time.monotonic()
		if step.match(line):
			state['steps'] += 1
			state['last'] = line.strip()
		elif line.strip():
			say(line.rstrip())
		if now - state['shown'] >= PROGRESS_SECONDS:
			state['shown'] = now
			elapsed = int(now - state['start'])
			say(f'  build: {state["steps"]} steps in {elapsed // 60}m{elapsed % 60:02d}s, '
			    f'now {state["last"]}')
	return sink


def failure_line(output: str) -> str:
	"""The line of make output that says why a build failed."""
	for line in output.splitlines():
		if ' error: ' in line or '***' in line:
			return line.strip()
	lines = [line for line in output.splitlines() if line.strip()]
	return lines[-1].strip() if lines else 'make failed'


# ---- diagnostics ---------------------------------------------------------

DIAG = re.compile(r'\b(warning|error):')
_DIAGNOSTIC = re.compile(r'^(?P<file>[^\s:]+):(?P<line>\d+):(?:(?P<col>\d+):)? '
			 r'(?P<kind>warning|error): (?P<msg>.*)$')
_OBJTOOL = re.compile(r'^(?P<file>[^\s:]+\.o): (?P<kind>warning|error): objtool: (?P<msg>.*)$')
# sparse's info() lines carry a position and continue the previous message.
_INFO = re.compile(r'^(?P<file>[^\s:]+):(?P<line>\d+):(?:(?P<col>\d+):)?   +(?P<msg>\S.*)$')
_OFFSET = re.compile(r'\+0x[0-9a-f]+(/0x[0-9a-f]+)?')


def diagnostic_lines(output: str) -> list[str]:
	"""Every line of build output that is a warning or an error."""
	return [line.strip() for line in output.splitlines() if DIAG.search(line)]


@dataclass(frozen=True, order=True)
class Diagnostic:
	"""One diagnostic, without line and column so it survives code motion."""
	file: str
	message: str
	tool: str		# sparse-or-compiler, or objtool

	def __str__(self) -> str:
		return f'{self.file}: {self.message}' + (' [objtool]' if self.tool == 'objtool' else '')

	@property
	def uaccess(self) -> bool:
		"""An objtool warning about user access (a call with it enabled...)."""
		return self.tool == 'objtool' and 'UACCESS' in self.message


def parse_diagnostics(output: str, srctrees: Iterable[Path]) -> list[Diagnostic]:
	"""Sparse, compiler and objtool diagnostics from make output, with the
	file names relative to the source tree."""
	prefixes = sorted({str(p.resolve()).rstrip('/') + '/' for p in srctrees}, key=len, reverse=True)
	result: list[Diagnostic] = []
	last = None
	for line in output.splitlines():
		m = _OBJTOOL.match(line)
		if m:
			result.append(Diagnostic(_relative(m.group('file'), prefixes),
					      _OFFSET.sub('', m.group('msg')).strip(), 'objtool'))
			last = None
			continue
		m = _DIAGNOSTIC.match(line)
		if m:
			last = Diagnostic(_relative(m.group('file'), prefixes),
					  f'{m.group("kind")}: {m.group("msg").strip()}', 'sparse')
			result.append(last)
			continue
		m = _INFO.match(line)
		if m and last is not None:
			merged = Diagnostic(last.file, f'{last.message} | {" ".join(m.group("msg").split())}',
					    last.tool)
			result[-1] = last = merged
		else:
			last = None
	return result


def _relative(path: str, prefixes: list[str]) -> str:
	for prefix in prefixes:
		if path.startswith(prefix):
			return path[len(prefix):]
	return path.removeprefix('./')


def new_diagnostics(baseline: list[Diagnostic], patched: list[Diagnostic]) -> list[Diagnostic]:
	"""Diagnostics in patched beyond those in baseline, counted as a multiset."""
	extra = collections.Counter(patched) - collections.Counter(baseline)
	return sorted(extra.elements())


# ---- kbuild's saved command lines ----------------------------------------

@dataclass(frozen=True)
class KbuildCommand:
	"""The compiler command kbuild saved in a .cmd file, split into words."""
	argv: tuple[str, ...]
	source: str
	output: str
	depfile: Optional[str]


def cmd_file(build_dir: Path, obj: str) -> Path:
	"""Where kbuild keeps the command line of obj (lib/x.o -> lib/.x.o.cmd)."""
	o = Path(obj)
	return build_dir / o.parent / f'.{o.name}.cmd'


def object_inputs(build_dir: Path, srctree: Path, obj: str) -> Optional[set[str]]:
	"""The files of srctree that obj was built from, as make sees them: its
	source and every header of the deps_ list in its .cmd file, relative to
	srctree; None when obj has no .cmd file (never built, or it failed)."""
	cmd = cmd_file(build_dir, obj)
	if not cmd.is_file():
		return None
	prefix = f'{srctree.resolve()}/'
	return {w[len(prefix):] for w in cmd.read_text(errors='replace').split()
		if w.startswith(prefix)}


def parse_cmd_file(text: str, obj: str) -> KbuildCommand:
	"""The compiler invocation recorded as savedcmd_<obj> in a .cmd file."""
	values = {}
	for line in text.splitlines():
		key, sep, value = line.partition(' := ')
		if sep:
			values[key.strip()] = value.replace('$$', '$')
	saved = values.get(f'savedcmd_{obj}')
	if saved is None:
		raise EnvironmentProblem(f'no savedcmd_{obj} in its .cmd file',
					 'rebuild the kunit kernel with `make kunit CC=gcc`')
	# kbuild may chain objtool after `;`: keep only the compiler command.
	lexer = shlex.shlex(saved, posix=True, punctuation_chars=';&|')
	lexer.whitespace_split = True
	words = []
	for word in lexer:
		if word in (';', '&&', '||', '|'):
			break
		words.append(word)
	if '-o' not in words or words.index('-o') + 1 >= len(words):
		raise EnvironmentProblem(f'savedcmd_{obj} has no -o', 'rebuild the kunit kernel')
	output = words[words.index('-o') + 1]
	source = values.get(f'source_{obj}', '').strip()
	if not source:
		source = next((w for w in reversed(words) if w.endswith(('.c', '.S'))), '')
	if source not in words:
		raise EnvironmentProblem(f'cannot find the source file of {obj} in its command',
					 'rebuild the kunit kernel')
	depfile = next((w.split(',', 2)[2] for w in words
			if w.startswith(('-Wp,-MMD,', '-Wp,-MD,'))), None)
	return KbuildCommand(tuple(words), source, output, depfile)


def substitute(cmd: KbuildCommand, source: Path, output: Path, depfile: Path) -> list[str]:
	"""cmd with our source, object and dependency file in place of kbuild's."""
	argv = []
	for i, word in enumerate(cmd.argv):
		if word == cmd.source:
			word = str(source)
		elif i > 0 and cmd.argv[i - 1] == '-o' and word == cmd.output:
			word = str(output)
		elif cmd.depfile and word.startswith('-Wp,') and word.endswith(',' + cmd.depfile):
			word = word[:-len(cmd.depfile)] + str(depfile)
		argv.append(word)
	return argv
