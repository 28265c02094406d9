# SPDX-License-Identifier: GPL-2.0
"""Python for .cocci scripts: how a finding is recorded and printed, C expressions.

A script that declares a `# BEGIN API TABLES: FINDINGS ...` block in its
@initialize:python@ carries these functions, written there by
`converter/scoped-uaccess api-tables --write` from this module
(api.TABLES['FINDINGS']); the kernel checker scripts carry none: they
stand alone (docs/checker.md).  The converter's analysis imports the
expression functions (census.py).

One finding per mistake: accesses or calls that share the function, the
class and the subject (the pointer an access goes through, the function
called) are one finding, reported at the first of them, the others
listed by line.

The C expressions of accessor addresses and begin pointers are read by
the same few functions for every class that needs them (range,
accessors): a token scan and the access path of a pointer expression,
['p', '->a', '[]', '.b'], with its offsets.  SmPL matches one shape at a
time; comparing two paths, or measuring how far an address lies from a
pointer, needs them as data.
"""

import re

FINDINGS = {}


def key(p):
	return (p.file, p.line, p.column)


def where(p):
	return 'line %s' % p.line


def finding(p, severity, cls, msg, subject=None):
	"""Records a finding at position p.  With a subject, one finding per
	function, class and subject: a later position of the same mistake is
	added to it.  Without one, one per position and class.  The first rule
	to see a position words its message."""
	func = p.current_element
	k = (p.file, func, cls, subject) if subject is not None else \
	    (p.file, func, cls, None, int(p.line), int(p.column))
	at = (int(p.line), int(p.column))
	FINDINGS.setdefault(k, {}).setdefault(at, (p, '%s: [%s] %s(): %s' % (
		severity, cls, func, msg)))


def has_finding(p):
	"""Whether a finding covers position p (context mode stars it)."""
	at = (int(p.line), int(p.column))
	return any(k[0] == p.file and at in places for k, places in FINDINGS.items())


def line_ranges(lines):
	"""Sorted line numbers as text, runs joined: [3, 4, 5, 9] -> '3-5, 9'."""
	out, run = [], []
	for n in sorted(set(lines)):
		if run and n == run[-1] + 1:
			run.append(n)
			continue
		if run:
			out.append('%d-%d' % (run[0], run[-1]) if len(run) > 1 else '%d' % run[0])
		run = [n]
	if run:
		out.append('%d-%d' % (run[0], run[-1]) if len(run) > 1 else '%d' % run[0])
	return ', '.join(out)


def emit(printer):
	"""Prints every finding at its first position, sorted by file, line and
	column; the lines of its other positions follow its message."""
	first = []
	for places in FINDINGS.values():
		at = min(places)
		p, msg = places[at]
		rest = [line for line, _ in places if line != at[0]]
		if rest:
			msg += '; also line%s %s' % ('s' if len(set(rest)) > 1 else '',
						      line_ranges(rest))
		first.append(((p.file, at), p, msg))
	for _, p, msg in sorted(first, key=lambda f: (f[0], f[2])):
		printer(p, msg)

# ---- C expressions -----------------------------------------------------------

TOKEN = re.compile(r'\s*(->|\+\+|--|[A-Za-z_]\w*|0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|.)')
TYPE_WORDS = frozenset('struct union enum const volatile unsigned signed char short int long '
		       'void __user __force u8 u16 u32 u64 s8 s16 s32 s64 __u8 __u16 __u32 '
		       '__u64 compat_uptr_t size_t'.split())


def tokens(text):
	return [t for t in TOKEN.findall(text) if t.strip()]


def matching(toks, i):
	"""Index of the bracket closing toks[i], None if there is none."""
	depth = 0
	for j in range(i, len(toks)):
		depth += (toks[j] in ('(', '[')) - (toks[j] in (')', ']'))
		if depth == 0 and toks[j] in (')', ']'):
			return j
	return None


def is_cast(toks, j):
	"""Whether toks[0..j], in parentheses, is a cast before an operand."""
	inner = toks[1:j]
	if not inner or j + 1 >= len(toks):
		return False
	if inner[0] in ('typeof', '__typeof__') and inner[1:2] == ['(']:
		# (typeof(x)) or (typeof(x) *): a type, whatever x is
		k = matching(inner, 1)
		return k is not None and all(t in ('*', '__user', 'const') for t in inner[k + 1:])
	return inner[-1] == '*' or (any(t in TYPE_WORDS for t in inner) and all(
		t in TYPE_WORDS or t == '*' or re.match(r'[A-Za-z_]\w*_t$', t) for t in inner))


def access_path(text):
	"""The access path of a pointer expression, ['p', '->a', '.b', '[]'],
	and the offsets applied to it; None if it is not one."""
	toks = tokens(text)
	while toks and toks[0] in ('(', '&', '*'):
		j = matching(toks, 0) if toks[0] == '(' else 0
		if j is None:
			return None
		if toks[0] != '(' or j == len(toks) - 1:
			toks = toks[1:-1] if toks[0] == '(' else toks[1:]
		elif is_cast(toks, j):
			toks = toks[j + 1:]
		else:	# (expr) op ...: the parenthesised operand
			inner = access_path(' '.join(toks[1:j]))
			return inner and extend_path(*inner, toks[j + 1:])
	if not toks or not re.match(r'[A-Za-z_]\w*$', toks[0]):
		return None
	if re.match(r'[A-Z][A-Z0-9_]*$', toks[0]) and toks[1:2] == ['(']:
		# An ALL_CAPS macro around the pointer, like CMSG_USER_DATA(cm):
		# an offset from its first argument.
		j = matching(toks, 1)
		if j is None:
			return None
		depth, k = 0, 2
		while k < j and not (depth == 0 and toks[k] == ','):
			depth += (toks[k] in ('(', '[')) - (toks[k] in (')', ']'))
			k += 1
		inner = access_path(' '.join(toks[2:k]))
		return inner and extend_path(inner[0], inner[1] + ['?'], toks[j + 1:])
	return extend_path([toks[0]], [], toks[1:])


def extend_path(path, offs, rest):
	"""path and offs, followed by the members, indices and offset in rest."""
	i = 0
	while i < len(rest):
		t = rest[i]
		if t in ('->', '.') and i + 1 < len(rest):
			path, i = path + [t + rest[i + 1]], i + 2
		elif t == '[':
			j = matching(rest, i)
			if j is None:
				return None
			path, offs, i = path + ['[]'], offs + [' '.join(rest[i + 1:j])], j + 1
		elif t in ('++', '--'):
			i += 1
		elif t in ('+', '-'):
			return path, offs + [' '.join(rest[i + 1:])]
		else:
			return None
	return path, offs


def strip_index(path):
	return [c for c in path if c != '[]']


def chain(text):
	"""The access path of a pointer expression without its indices,
	['p', '->a', '.b']; None if it is not one."""
	found = access_path(text)
	return found and strip_index(found[0])


def pretty(text):
	"""An expression as printed by Coccinelle, spaced as in the kernel."""
	out, operand, glue = '', False, True
	for t in tokens(text):
		word = re.match(r'\w', t) is not None
		if t in ('->', '.', '[', ']', ')', '++', '--', ',') or glue or \
		   (t == '(' and operand):
			out += t
		else:
			out += ' ' + t
		# what the next token sticks to
		glue = t in ('->', '.', '[', '(') or \
		       (t in ('&', '*', '!', '~', '-', '+') and not operand)
		operand = word or t in (')', ']', '++', '--')
	return out.strip()
