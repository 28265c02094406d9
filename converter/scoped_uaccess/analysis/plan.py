# SPDX-License-Identifier: GPL-2.0
"""The edit plan of a file: which rule of a pass acts where, with what.

transformations.py and hooks.analyse() plan; the SmPL rules of
convert_scoped_uaccess.cocci ask hooks.py, whose accessors hand them
these objects (`hooks.edit(p[0], plan.LocalDecl).expr`): one frozen
dataclass per action, its fields named, nothing joined into a string for
the rule to split again.  A plan holds at most one action of a kind at a
position; two kinds may share one (the text before and after the same
if).  Positions are (line, column) in the file the facts are about.
"""

from dataclasses import dataclass
from typing import Iterator, Optional, TypeVar

from scoped_uaccess.analysis.facts import Pos


@dataclass(frozen=True)
class Action:
	"""What one rule does at one position."""


# ---- the scope pass ----------------------------------------------------------

@dataclass(frozen=True)
class Scope(Action):
	"""The region's if becomes the scope `iterator(args) { block }`."""
	iterator: str
	args: str
	block: str


@dataclass(frozen=True)
class Remove(Action):
	"""A statement the scope makes redundant (a label, a begin's if) goes."""


@dataclass(frozen=True)
class End(Action):
	"""A user_*_access_end() call the scope makes redundant goes."""


# ---- the transformations that prepare a region -------------------------------

@dataclass(frozen=True)
class BeforeIf(Action):
	"""A statement inserted before the if of the begin."""
	text: str


@dataclass(frozen=True)
class AfterIf(Action):
	"""A statement inserted after the if of the begin, first in the region."""
	text: str


@dataclass(frozen=True)
class Label(Action):
	"""`label: return value;` appended after the function's last statement
	(value '' for a void function)."""
	label: str
	value: str


@dataclass(frozen=True)
class TailOut(Action):
	"""An if's block becomes `goto label;`."""
	label: str


@dataclass(frozen=True)
class TailLabel(Action):
	"""`label: text;` appended after the function's last statement: the
	statements and the return of the block TailOut replaced."""
	label: str
	text: str


@dataclass(frozen=True)
class BeginArg(Action):
	"""The begin's pointer argument becomes expr."""
	expr: str


@dataclass(frozen=True)
class Rename(Action):
	"""A use of the region's pointer becomes the cursor name."""
	name: str


@dataclass(frozen=True)
class CursorDecl(Action):
	"""The cursor name, of pointer's type, declared after this declaration."""
	name: str
	pointer: str


@dataclass(frozen=True)
class CursorPointer(Action):
	"""At a region's begin: the pointer its cursor stands for."""
	pointer: str


@dataclass(frozen=True)
class LocalDecl(Action):
	"""A local name for the pointer expression expr, declared after this
	declaration; how its type is found: 'cast' (the cast's; set there),
	'cast-late' (the cast's; set before the begin, BeforeIf), 'field' and
	'field-address' (the member's in a struct of the file), 'typeof'."""
	name: str
	how: str
	expr: str


@dataclass(frozen=True)
class LocalMember(Action):
	"""At a region's begin: the struct member the local pointer is read from."""
	member: str


@dataclass(frozen=True)
class LocalBegin(Action):
	"""At a region's begin: it opens on the local pointer."""


@dataclass(frozen=True)
class RenameExpr(Action):
	"""The pointer expression here becomes the local name."""
	name: str


@dataclass(frozen=True)
class RenameCast(Action):
	"""The cast's operand passed to a helper becomes text (the local, cast back)."""
	text: str


@dataclass(frozen=True)
class Invert(Action):
	"""At a region's begin: `if (begin) { A } else { B }` becomes
	`if (!begin) goto label;`, B after label."""
	label: str


A = TypeVar('A', bound=Action)


class Plan:
	"""The actions of one file, by kind and position."""

	def __init__(self) -> None:
		self._at: dict[tuple[type, Pos], Action] = {}

	def add(self, p: Pos, action: Action) -> None:
		self._at[(type(action), p)] = action

	def get(self, kind: type[A], p: Pos) -> Optional[A]:
		action = self._at.get((kind, p))
		return action if isinstance(action, kind) else None

	def has(self, kind: type[Action], p: Pos) -> bool:
		return (kind, p) in self._at

	def drop(self, kind: type[Action], p: Pos) -> None:
		self._at.pop((kind, p), None)

	def of_kind(self, kind: type[A]) -> Iterator[A]:
		for (k, _), action in self._at.items():
			if k is kind:
				yield action  # type: ignore[misc]

	def __len__(self) -> int:
		return len(self._at)
