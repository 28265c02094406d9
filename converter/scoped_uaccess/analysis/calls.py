# SPDX-License-Identifier: GPL-2.0
"""What a call inside a region is: one that the scope may keep, or not.

A scope covers exactly the statements the open-coded region covered, so a
call that the region made stays a call made with user access enabled; the
conversion keeps it when the call is known not to leave the window open
across something that may fault or sleep: a header static inline, a
function of the file that is inlined, memset() of kernel memory, an
assembly routine objtool allows in a region, a file-local __unsafe_*()
helper (meant to run inside its caller's region).  Anything else is an
out-of-line call: the region is left alone.
"""

import re
from typing import Optional

from scoped_uaccess.cocci import api

# How each kind is named in the commit message.
# No parentheses in the texts: the report line `keeps f() (text), ...`
# is parsed back by regions.Entry.kept_calls.
KEPT_TEXT = {
	'header-inline': 'a static inline function of a header',
	'file-inline': 'an inline function of the file',
	'memset': 'of kernel memory',
	'objtool': 'an assembly routine objtool allows in a region',
	'usercopy': 'an x86-32 __copy_user routine, written to run in a region',
	'asm': 'an asm macro with its own exception table',
	'unsafe-helper': 'a file-local __unsafe_ helper that runs in its caller\'s region',
}


def classify(name: str, file: str, file_functions: dict[str, str],
	     header_inlines: dict[str, str]) -> Optional[str]:
	"""None when the call is an accessor, an end, a builtin or a macro
	(nothing to say); a KEPT_TEXT key when the scope keeps it;
	'out-of-line' otherwise."""
	if name in api.OBJTOOL_UACCESS_SAFE:
		return 'objtool'
	if name in api.USERCOPY_ROUTINES:
		return 'usercopy'
	if name in api.ASM_ACCESSORS:
		return 'asm'
	if name in api.ENDS or name in api.SAFE_CALLS or re.match(r'^[A-Z][A-Z0-9_]*$', name) \
	   or name.startswith('__builtin_') or name in ('asm', '__asm__'):
		return None
	prefix = api.SAFE_IN.get(name)
	if prefix is not None and (file.startswith(prefix) or f'/{prefix}' in file):
		return None
	if name == 'memset':
		return 'memset'
	kind = file_functions.get(name)
	if name.startswith('__unsafe_') and kind is not None:
		return 'unsafe-helper'
	if kind in ('always', 'inline'):
		return 'file-inline'
	if kind is None and name in header_inlines:
		return 'header-inline'
	if name in api.UNSAFE_CALLS:
		return 'out-of-line'
	return 'out-of-line'


def hides_accesses(kind: Optional[str]) -> bool:
	"""Whether a kept call may access user memory itself: then the mode
	of the scope cannot be read off its accessors."""
	return kind in ('objtool', 'usercopy', 'asm', 'unsafe-helper', 'file-inline',
			'header-inline')
