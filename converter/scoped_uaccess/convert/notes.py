# SPDX-License-Identifier: GPL-2.0
"""What a clean-up after the spatch passes did in a function, for its changelog."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Note:
	"""A clean-up of tidy() in one function: kind `return` (text: the
	variable that is no longer needed), or a sentence for the changelog."""
	function: str
	kind: str
	text: str


Notes = list[Note]
