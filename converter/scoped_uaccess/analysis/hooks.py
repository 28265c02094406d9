# SPDX-License-Identifier: GPL-2.0
"""The glue convert_scoped_uaccess.cocci calls: one analysis per file, then
the positions and texts each pass's SmPL rules ask for.

spatch imports this module (PYTHONPATH=converter, set by the driver).
The rules record facts while matching; the first question of a pass about
a file analyses it (census.py) and computes the edits of every region
(scope_pass.py, transformations.py); the rules then rewrite at those positions.
The environment gives what spatch's command line cannot: the header
inline index (SCOPED_UACCESS_INLINES), the architectures with masked
user access (SCOPED_UACCESS_MASKING, default x86) and regions the driver
excludes (SCOPED_UACCESS_EXCLUDE: file:function:index, comma separated).
"""

import os
import re
from dataclasses import dataclass, field
from typing import Optional

from scoped_uaccess.cocci import inlines
from scoped_uaccess.analysis import calls, census, facts, model, plan, scope_pass, transformations
from scoped_uaccess.analysis.model import Context, Region
from scoped_uaccess.analysis.facts import Pos
from scoped_uaccess.analysis.plan import Plan
from scoped_uaccess.analysis.status import Reason

SCOPE_ITERATORS = ('scoped_user_read_access', 'scoped_user_read_access_size',
		   'scoped_user_write_access', 'scoped_user_write_access_size',
		   'scoped_user_rw_access', 'scoped_user_rw_access_size')


@dataclass
class FileEdits:
	ctx: Context
	regions: dict[Pos, Region]
	# what the rules do to the statements and expressions of the file
	plan: Plan = field(default_factory=Plan)


STATE: dict[str, FileEdits] = {}
REPORT = False		# -D report: print the region lines at the end
HEADER_INLINES: dict[str, str] = {}
LINES: dict[str, list[str]] = {}


def start() -> None:
	HEADER_INLINES.clear()
	HEADER_INLINES.update(inlines.load())
	reset()


def reset() -> None:
	global REPORT
	REPORT = False
	SMALL.clear()
	facts.reset()
	STATE.clear()
	LINES.clear()


def _lines(file: str) -> list[str]:
	if file not in LINES:
		with open(file, errors='replace') as f:
			LINES[file] = f.read().split('\n')
	return LINES[file]


def excluded() -> set[tuple[str, str, int]]:
	found = set()
	for item in os.environ.get('SCOPED_UACCESS_EXCLUDE', '').split(','):
		parts = item.strip().rsplit(':', 2)
		if len(parts) == 3 and parts[2].isdigit():
			found.add((parts[0], parts[1], int(parts[2])))
	return found


def region_index(regions: dict[Pos, Region], r: Region) -> int:
	"""The region's number among the begins of its function: stable across
	the passes, which move lines."""
	mine = sorted(k for k, o in regions.items() if o.function == r.function)
	return mine.index(r.key)


def original(file: str) -> str:
	"""The file the facts are about.  After a rule has changed the file,
	spatch hands the later rules positions in a reparsed copy
	(/tmp/cocci_small_output-N-X-name.c); the driver gives spatch one file
	at a time, and the rules that follow a change within a pass do not
	move lines, so the positions still hold."""
	if file in facts.FILES:
		return file
	base = re.sub(r'^cocci_small_output-\d+-[0-9a-f]+-', '', os.path.basename(file))
	for known in facts.FILES:
		if os.path.basename(known) == base:
			return known
	return file


def analyse(file: str) -> FileEdits:
	file = original(file)
	if file in STATE:
		return STATE[file]
	arches = tuple(os.environ.get('SCOPED_UACCESS_MASKING', 'x86').split(','))
	ctx = Context(file, _lines(file), facts.of(file), HEADER_INLINES,
		      model.masked_file(file, arches))
	regions = census.analyse_file(ctx)
	skip = excluded()
	for r in regions.values():
		name = file[2:] if file.startswith('./') else file
		if (name, r.function, region_index(regions, r)) in skip and r.converted:
			r.skip(Reason.EXCLUDED, r.text.replace('region becomes', 'would become') +
			       '; the result did not check out, see the conversion log')
	edits = FileEdits(ctx, regions)
	todo = [r for r in regions.values() if r.converted]
	for r in todo:
		transformations.plan(ctx, r, edits.plan)
	ready = [r for r in todo if not r.needs]
	merged = scope_pass.merged_labels(ctx, ready)
	for r in ready:
		s = scope_pass.scope_of(ctx, r, merged)
		if s is None:
			continue
		edits.plan.add(s.anchor[:2], plan.Scope(s.iterator, s.args, s.block))
		for p in s.remove:
			edits.plan.add(p, plan.Remove())
		for p in s.ends:
			edits.plan.add(p, plan.End())
	for (function, label), target in merged.items():
		for r in ready:
			if r.function != function:
				continue
			i = _label_line(ctx, r, label)
			if i is not None:
				edits.plan.add((i, ctx.lines[i - 1].index(label)), plan.Remove())
				end = _end_after(ctx, i)
				if end is not None:
					edits.plan.drop(plan.End, end)
	STATE[file] = edits
	return edits


def _label_line(ctx: Context, r: Region, label: str) -> Optional[int]:
	from scoped_uaccess.analysis import source
	return source.label_line(ctx.lines, *r.fn_range, label)


def _end_after(ctx: Context, i: int) -> Optional[Pos]:
	for (line, col) in ctx.facts.ends:
		if line == i or line == i + 1:
			return line, col
	return None


# ---- questions the rules ask ---------------------------------------------------

SMALL: dict[str, int] = {}


def pos(p) -> Pos:
	"""The position in the file the facts are about.  A rule after a change
	of the same function is handed a position in a copy holding only that
	function (/tmp/cocci_small_output-*): shifted by where the function
	starts in the file (the rules that follow a change within a pass do
	not add lines above their positions)."""
	line, col = int(p.line), int(p.column)
	if 'cocci_small_output' not in os.path.basename(p.file):
		return line, col
	if p.file not in SMALL:
		SMALL[p.file] = _small_offset(p.file)
	return line + SMALL[p.file], col


def _small_offset(small: str) -> int:
	try:
		with open(small, errors='replace') as f:
			text = f.read().split('\n')
	except OSError:
		return 0
	first = next((i for i, line in enumerate(text) if line.strip()), None)
	if first is None:
		return 0
	lines = _lines(original(small))
	for i, line in enumerate(lines):
		if line == text[first] and lines[i + 1:i + 3] == text[first + 1:first + 3]:
			return i - first
	return 0


def wants(p, kind: type[plan.Action]) -> bool:
	"""Whether the rule for an action of kind applies at Coccinelle position p."""
	return analyse(p.file).plan.has(kind, pos(p))


def edit(p, kind: type[plan.A]) -> plan.A:
	"""The action of kind at Coccinelle position p, for the rule that
	performs it (its constraint called wants() first)."""
	action = analyse(p.file).plan.get(kind, pos(p))
	if action is None:
		raise LookupError(f'{p.file}:{p.line}: no {kind.__name__} planned here')
	return action


def scope_index(p) -> int:
	"""The index in SCOPE_ITERATORS of the scope replacing the statement at p, or -1."""
	s = analyse(p.file).plan.get(plan.Scope, pos(p))
	return SCOPE_ITERATORS.index(s.iterator) if s is not None else -1


def scope_edit(p) -> Optional[tuple[str, str]]:
	"""The scope's arguments and block for the statement at p; placeholders
	for a statement the scope pass removes; None when it keeps it."""
	s = analyse(p.file).plan.get(plan.Scope, pos(p))
	if s is not None:
		return s.args, s.block
	return ('unused', 'unused') if removed(p) else None


def removed(p) -> bool:
	edits = analyse(p.file).plan
	return edits.has(plan.Remove, pos(p)) or edits.has(plan.End, pos(p))


def report_lines() -> list[str]:
	"""One line per region begin, sorted: the interface of -D report."""
	out = []
	for file in sorted(facts.FILES):
		edits = analyse(file)
		for key in sorted(edits.regions):
			r = edits.regions[key]
			tag = r.tag
			text = r.text
			if r.converted and r.pointer:
				text += f'; on {r.pointer}'
			if r.converted and r.foreign:
				text += f'; recomputes {", ".join(sorted(r.foreign))}'
			if r.converted and 'range-check' in r.needs and r.range_exit:
				text += f'; range check for {r.range_exit}'
			if r.converted and r.checked_before:
				text += f'; range checked on line {r.checked_before}'
			if r.converted and r.unchecked_size:
				text += f'; unchecked size {r.unchecked_size}'
			if r.converted and r.kept_calls:
				text += '; keeps ' + ', '.join(f'{c}() ({calls.KEPT_TEXT[k]})'
							      for c, k in sorted(r.kept_calls.items()))
			out.append(f'{file[2:] if file.startswith("./") else file}:{key[0]}:{key[1]}: '
				   f'REGION [{tag}] {r.function}(): {text}')
	return out


# One predicate per action: spatch drops the quotes of string literals in
# script constraints, so the constraints call these without arguments.


def at_cursor_decl(p) -> bool:
	return wants(p, plan.CursorDecl)


def at_after_if(p) -> bool:
	return wants(p, plan.AfterIf)


def at_before_if(p) -> bool:
	return wants(p, plan.BeforeIf)


def at_begin_arg(p) -> bool:
	return wants(p, plan.BeginArg)


def at_label(p) -> bool:
	return wants(p, plan.Label)


def at_local_begin(p) -> bool:
	return wants(p, plan.LocalBegin)


def at_rename(p) -> bool:
	return wants(p, plan.Rename)


def at_rename_expr(p) -> bool:
	return wants(p, plan.RenameExpr)



def cursor_pointer(name: str) -> bool:
	"""Whether name is a pointer a cursor of this pass stands for (the file
	is the one file of the run)."""
	return any(c.pointer == name for e in STATE.values() for c in e.plan.of_kind(plan.CursorPointer))


def local_member(name: str) -> bool:
	"""Whether name is the struct member a local pointer of this pass is read from."""
	return any(m.member == name for e in STATE.values() for m in e.plan.of_kind(plan.LocalMember))


def at_invert(p) -> bool:
	return wants(p, plan.Invert)


def at_rename_cast(p) -> bool:
	return wants(p, plan.RenameCast)


def at_local_decl(p, how: str) -> bool:
	"""The declaration a local pointer of this kind is declared after."""
	d = analyse(p.file).plan.get(plan.LocalDecl, pos(p))
	return d is not None and d.how == how


def at_local_decl_cast(p) -> bool:
	return at_local_decl(p, 'cast')


def at_local_decl_cast_late(p) -> bool:
	return at_local_decl(p, 'cast-late')


def at_local_decl_field(p) -> bool:
	return at_local_decl(p, 'field')


def at_local_decl_address(p) -> bool:
	return at_local_decl(p, 'field-address')


def at_local_decl_typeof(p) -> bool:
	return at_local_decl(p, 'typeof')



def at_tail_out(p) -> bool:
	return wants(p, plan.TailOut)


def at_tail_label(p) -> bool:
	return wants(p, plan.TailLabel)
