# SPDX-License-Identifier: GPL-2.0
"""What became of a region: converted, or skipped for one of the reasons
of one table; and the census tag that carries it from the rules to the
driver."""

import enum
import functools
from dataclasses import dataclass
from typing import Optional


class Status(enum.Enum):
	"""A region's status in conversion.json."""
	CONVERTED = 'converted'
	SKIPPED = 'skipped'


class Reason(enum.Enum):
	"""Why a region stays open-coded: the value is the name in the census
	tags, conversion.json and conversion.md; the description is the row of
	the table in docs/converter.md."""

	def __new__(cls, value: str, description: str, driver: bool = False) -> 'Reason':
		member = object.__new__(cls)
		member._value_ = value
		member.description = description
		member.driver = driver		# given by the driver, not by the rules
		return member

	KEEP = ('keep', 'a careful maintainer would keep it (the text says why: interleaved '
		'regions of `record_steal_time()`, the hand-tuned string loops, `fault_in_*()` '
		'whose return value is the advanced pointer, an unconditional masked begin with '
		'no failure path)')
	OUT_OF_LINE_CALL = ('out-of-line-call', 'a call inside the region that is not an '
			    'accessor and not a call the scope may keep (a header or file inline, '
			    'memset of kernel memory, an objtool-allowed assembly routine, a '
			    'file-local `__unsafe_*()` helper)')
	SPLIT_BRANCHES = ('split-branches', 'the region is ended in another block than its '
			  'begin (closed and reopened around a call)')
	POINTER_MODIFIED = ('pointer-modified', 'the begin pointer is assigned inside the '
			    'region and no cursor can walk for it')
	POINTER_EXPRESSION = ('pointer-expression', 'the begin pointer is an expression no '
			      'local can stand for')
	FOREIGN_POINTER = ('foreign-pointer', 'an accessor address is neither based on the '
			   'begin pointer nor derived from it')
	MASKED_RANGE = ('masked-range', 'an accessor address may lie beyond the first page and '
			'no range check can be placed')
	LOOP_CONTROL = ('loop-control', '`break`/`continue` would leave the scope instead of '
			'the loop')
	SHARED_LABEL = ('shared-label', 'a fault label is also reached from outside the '
			'converted regions')
	BEGIN_FAILURE = ('begin-failure', 'the begin failure is not one return or goto')
	POSITIVE_BEGIN = ('positive-begin', '`if (begin)` in a form invert-begin does not '
			  'handle (the text says which)')
	UNKNOWN_SHAPE = ('unknown-shape', 'anything else the analysis does not prove safe; the '
			 'text says what (a label inside the region, an unknown accessor, no '
			 'accessor, a declaration at the region\'s top level, a line spatch did '
			 'not parse)')
	MACRO = ('macro', 'the begin is in the body of a `#define` (`snd_pcm_sync_ptr_get_user()` '
		 'in 7.3): the converter rewrites functions, and a scope in a macro would be '
		 'one per expansion')
	EXCLUDED = ('excluded', 'named in `SCOPED_UACCESS_EXCLUDE` (the driver converts a '
		    'function again without the regions whose result did not check out)')
	NO_GAIN = ('no-gain', 'nothing would change at run time: no architecture that builds the '
		   'file masks user pointers in this tree (`kernel/builders.py` reads which '
		   'build it from the Makefiles and Kconfig), so the scope would begin the region '
		   'with the same check as before; a maintainer takes a patch for what it gains', True)
	NOT_REWRITTEN = ('not-rewritten', 'the census said converted, but the rewrite did not '
			 'give it: what patch mode left open-coded is not what the census skipped, '
			 'even without the regions concerned, or no patch holds it', True)
	CHECKER_ERROR = ('checker-error', 'the checker reports an ERROR, or a block spatch '
			 'cannot parse, on the rewritten file that the unconverted file does not '
			 'have', True)
	CHECKER_TIMEOUT = ('checker-timeout', 'the checker did not finish on the rewritten file '
			   'in time', True)
	CHECKPATCH = ('checkpatch', 'the generated patch is not `checkpatch.pl --strict` clean',
		      True)


CONVERTED = 'converted-'
SKIP = 'skip:'


@functools.total_ordering
@dataclass(frozen=True)
class Tag:
	"""A region's census tag, `converted-<shape>[+<transformation>...]` or
	`skip:<reason>` (cocci/README.md), as its parts."""
	shape: str = ''					# converted with this shape
	transformations: tuple[str, ...] = ()		# the passes before the scope
	reason: Optional[Reason] = None			# skipped, why

	def __lt__(self, other: 'Tag') -> bool:
		# As the tags' text sorts: converted before skipped.
		return str(self) < str(other)

	@property
	def skipped(self) -> bool:
		return self.reason is not None

	@property
	def status(self) -> Status:
		return Status.SKIPPED if self.skipped else Status.CONVERTED

	def __str__(self) -> str:
		if self.reason is not None:
			return SKIP + self.reason.value
		return CONVERTED + '+'.join((self.shape, *self.transformations))

	@classmethod
	def parse(cls, text: str) -> 'Tag':
		"""The tag of a REGION line; ValueError for a reason not in Reason."""
		if text.startswith(SKIP):
			return cls(reason=Reason(text[len(SKIP):]))
		if not text.startswith(CONVERTED):
			raise ValueError(f'census tag {text!r}: neither {CONVERTED}* nor {SKIP}*')
		shape, *transformations = text[len(CONVERTED):].split('+')
		return cls(shape, tuple(transformations))


def reasons_table() -> list[str]:
	"""The skip reasons as the Markdown table of docs/converter.md."""
	rows = [f'| `{r.value}` | {"(driver) " if r.driver else ""}{r.description} |'
		for r in Reason]
	return ['| reason | the region stays open-coded because |', '|---|---|', *rows]
