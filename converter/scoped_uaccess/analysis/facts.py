# SPDX-License-Identifier: GPL-2.0
"""What the conversion rules' SmPL matches found in a file, kept for the analysis.

The facts rules of cocci/convert_scoped_uaccess.cocci call the record_*()
functions from their script rules; spatch matches all files of one run together, so the facts are
kept per file.  Positions are (line, column) with Coccinelle's 0-based
columns; a statement span is (line, col, end line, end col).
"""

from dataclasses import dataclass, field
from typing import Optional

Pos = tuple[int, int]
Span = tuple[int, int, int, int]


@dataclass(frozen=True)
class Begin:
	pos: Pos
	function: str
	name: str


@dataclass(frozen=True)
class IfShape:
	"""How a begin is tested."""
	kind: str			# plain, masked, inner, positive
	pointer: str = ''
	size: str = ''
	masked_at: Optional[Pos] = None	# the masked begin of a prologue (for `inner`)
	has_else: bool = False		# positive: an else branch


@dataclass(frozen=True)
class Accessor:
	function: str
	name: str
	args: str		# every argument before the label, as spatch prints them
	label: str
	pos: Pos


@dataclass
class Facts:
	"""Everything matched in one file."""
	begins: dict[Pos, Begin] = field(default_factory=dict)
	ifs: dict[Pos, IfShape] = field(default_factory=dict)
	stmts: dict[str, set[Span]] = field(default_factory=dict)	# function -> spans
	ends: set[Pos] = field(default_factory=set)
	calls: list[tuple[str, str, Pos]] = field(default_factory=list)	# function, name
	accessors: list[Accessor] = field(default_factory=list)
	gotos: list[tuple[str, str, Pos]] = field(default_factory=list)	# function, label
	assigns: list[tuple[str, str, Pos]] = field(default_factory=list)	# function, variable
	functions: dict[str, str] = field(default_factory=dict)	# name -> always, inline, noinline, plain

	def functions_with_begins(self) -> set[str]:
		return {b.function for b in self.begins.values()}


FILES: dict[str, Facts] = {}


def reset() -> None:
	FILES.clear()


def of(file: str) -> Facts:
	return FILES.setdefault(file, Facts())


def _pos(p) -> Pos:
	return int(p.line), int(p.column)


def _span(p) -> Span:
	return int(p.line), int(p.column), int(p.line_end), int(p.column_end)


# ---- called from facts.cocci: p is a Coccinelle position ------------------

def record_begin(p, name: str) -> None:
	of(p.file).begins[_pos(p)] = Begin(_pos(p), p.current_element, name)


def record_if(p, kind: str, pointer: str = '', size: str = '', masked=None,
	      has_else: bool = False) -> None:
	facts = of(p.file)
	shape = IfShape(kind, pointer, size, _pos(masked) if masked is not None else None, has_else)
	# A plain test and a positive one never match the same begin; a masked
	# prologue's inner begin is recorded as inner, whatever else matched.
	if kind in ('masked', 'inner') or _pos(p) not in facts.ifs:
		facts.ifs[_pos(p)] = shape


def record_stmt(p) -> None:
	facts = of(p.file)
	if p.current_element in facts.functions_with_begins():
		facts.stmts.setdefault(p.current_element, set()).add(_span(p))


def record_end(p) -> None:
	of(p.file).ends.add(_pos(p))


def record_call(p, name: str) -> None:
	of(p.file).calls.append((p.current_element, name, _pos(p)))


def record_accessor(p, name: str, args: str, label: str) -> None:
	of(p.file).accessors.append(Accessor(p.current_element, name, args, label, _pos(p)))


def record_goto(p, label: str) -> None:
	of(p.file).gotos.append((p.current_element, label, _pos(p)))


def record_assign(p, variable: str) -> None:
	of(p.file).assigns.append((p.current_element, variable, _pos(p)))


def record_function(name: str, kind: str, file: str) -> None:
	functions = of(file).functions
	# Declared once noinline, or once __always_inline: that wins.
	if functions.get(name) not in ('always', 'noinline'):
		functions[name] = kind
