# SPDX-License-Identifier: GPL-2.0
"""What the analysis knows about a file and its regions (Context, Region),
and the names of the transformations and shapes."""

import re
from dataclasses import dataclass, field
from typing import Optional

from scoped_uaccess.cocci import api
from scoped_uaccess.analysis.facts import Facts, Pos, Span
from scoped_uaccess.analysis.source import flat
from scoped_uaccess.analysis.status import Reason, Tag

# The transformations, in the order of their passes.
TRANSFORMATIONS = ('invert-begin', 'local-pointer', 'tail-out', 'cursor', 'rederive',
		   'range-check', 'label')
SHAPES = ('fault-label', 'two-level', 'shared-exit', 'masked', 'no-fault')
# Regions a careful maintainer keeps open-coded: (function, why).
KEEP = {
	'record_steal_time': 'interleaved regions around a TLB flush and a tracepoint',
	'strncpy_from_user': 'hand-tuned word-at-a-time loop; the branches pass different limits',
	'strnlen_user': 'hand-tuned word-at-a-time loop; the branches pass different limits',
	'fault_in_writeable': 'the advanced pointer is the return value: the range check is the contract',
	'fault_in_readable': 'the advanced pointer is the return value: the range check is the contract',
}


@dataclass
class Context:
	"""A file as a pass sees it."""
	file: str
	lines: list[str]
	facts: Facts
	header_inlines: dict[str, str] = field(default_factory=dict)
	masked: bool = True		# compiled where can_do_masked_user_access() may be true


@dataclass
class Region:
	key: Pos
	function: str
	name: str			# the begin
	shape: str = ''			# the shape it converts with, once the analysis proves one
	reason: Optional[Reason] = Reason.UNKNOWN_SHAPE	# None: converted
	text: str = 'not a recognised region'
	needs: list[str] = field(default_factory=list)	# transformations still to do
	kept_calls: dict[str, str] = field(default_factory=dict)	# call -> calls.KEPT_TEXT key
	# The region as it is now (filled as far as the analysis got).
	stmt: Optional[Span] = None	# the if statement of the begin
	body: list[Span] = field(default_factory=list)
	end: Optional[Span] = None	# the statement that ends it
	pointer: str = ''
	size: str = ''
	action: str = ''		# what the begin failure does: `return X;`, `goto L;`
	mode: str = ''
	label: str = ''			# the scope's label
	fault_labels: set[str] = field(default_factory=set)
	ends: set[Pos] = field(default_factory=set)	# end calls the scope makes redundant
	inner_ends: list[int] = field(default_factory=list)	# lines, inside the body
	tails: dict[int, int] = field(default_factory=dict)	# inner end line -> its return's line
	fn_range: tuple[int, int] = (0, 0)
	# Transformation data.
	foreign: dict[str, int] = field(default_factory=dict)	# pointer -> line assigned from the begin's
	cursor_after: bool = False	# the begin pointer is read after the region
	# The early exit that makes the range check matter under masking
	# (ranges.early_exit()): the changelog names it.
	range_exit: str = ''
	# A run-time size that masking no longer checks and no early exit makes
	# matter: the changelog says what changes at the top of user space.
	unchecked_size: str = ''
	# the line of an access_ok() (or a copy) of the same range that every
	# path to the begin passes first (ranges.earlier_check()); 0: none
	checked_before: int = 0

	def skip(self, reason: Reason, text: str) -> 'Region':
		self.reason, self.text = reason, text
		return self

	def convert(self, shape: str) -> None:
		self.shape, self.reason = shape, None

	@property
	def converted(self) -> bool:
		return self.reason is None

	@property
	def tag(self) -> Tag:
		"""The census tag: the shape and the transformations still to do,
		or the reason."""
		return Tag(self.shape, tuple(self.needs)) if self.converted else Tag(reason=self.reason)

	@property
	def lo(self) -> Pos:
		assert self.stmt is not None
		return self.stmt[2], self.stmt[3]

	@property
	def hi(self) -> Pos:
		assert self.end is not None
		return self.end[0], self.end[1]

	def inside(self, at: Pos) -> bool:
		return self.stmt is not None and self.end is not None and self.lo < at < self.hi

	def body_lines(self) -> range:
		assert self.stmt is not None and self.end is not None
		return range(self.stmt[2] + 1, self.end[0])


def masked_file(file: str, masking_arches: tuple[str, ...] = ('x86',)) -> bool:
	"""Whether the file is built for an architecture with masked user access
	(generic code is built for all of them; x86 masks on 64-bit only)."""
	name = file[2:] if file.startswith('./') else file
	m = re.match(r'arch/([^/]+)/', name)
	if m is None:
		return True
	return m.group(1) in masking_arches and not re.match(api.X86_32_ONLY, name)


def constant_size(size: str, pointer: str) -> bool:
	"""sizeof() of something: the compiler knows it, and the checked begin
	of x86 checks only the pointer for such a size."""
	s = flat(size).replace(' ', '')
	if re.fullmatch(r'[^?]+\?sizeof\([^()]*\):sizeof\([^()]*\)', s):
		return True
	return s.startswith('sizeof(') and s.endswith(')') and s.count('sizeof') == 1


def plain_scope_size(size: str, pointer: str) -> bool:
	return flat(size).replace(' ', '') in (f'sizeof(*{pointer})', f'sizeof(*({pointer}))')


def local_pointer_ok(ptr: str) -> bool:
	"""A pointer expression a local can stand for: members, casts, address-of."""
	return re.fullmatch(r'(\([\w\s\*]+\)\s*)?&?[A-Za-z_]\w*((->|\.)[A-Za-z_]\w*)*', ptr) is not None
