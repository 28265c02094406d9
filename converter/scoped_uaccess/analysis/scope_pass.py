# SPDX-License-Identifier: GPL-2.0
"""The scope pass: what replaces a region that needs no transformation any more.

SmPL of spatch 1.1.1 cannot wrap existing statements into a new block
without reprinting them (a statement list metavariable only matches a
whole block, and moved statements lose the comments before them).  So
the scope rule of convert_scoped_uaccess.cocci removes the statements of
the region by position and puts `ITERATOR(args) BLOCK;` in place of its
end, where BLOCK is the source text of the body, re-indented, given to
spatch as an identifier; tidy.cocci then drops the `;` after the block.
Everything else the pass does (ends removed, labels merged) is SmPL on
positions computed here.
"""

import re
from dataclasses import dataclass, field
from typing import Optional

from scoped_uaccess.cocci import api
from scoped_uaccess.analysis import model, source
from scoped_uaccess.analysis.model import Context, Region
from scoped_uaccess.analysis.facts import Pos, Span
from scoped_uaccess.analysis.source import LABEL_LINE, END_STMT, flat, indent

MAX_COLUMNS = 100


@dataclass
class Scope:
	"""The edits of one converted region."""
	region: Region
	iterator: str
	args: str			# the iterator's arguments, wrapped like the source
	block: str			# the body, without its last `;`
	anchor: Span			# the statement the scope replaces
	remove: set[Pos] = field(default_factory=set)	# statements removed, by start
	ends: set[Pos] = field(default_factory=set)	# end calls removed elsewhere
	merged: dict[str, str] = field(default_factory=dict)	# label -> the label it merges into


def scope_of(ctx: Context, r: Region, merged_in_file: dict[tuple[str, str], str]) -> Optional[Scope]:
	"""The edits for a converted region with nothing left to transform."""
	if not r.converted or r.needs:
		return None
	merged = {label: target for (function, label), target in merged_in_file.items()
		  if function == r.function}
	assert r.stmt is not None and r.end is not None
	lines = ctx.lines
	iterator = api.SCOPE_FOR_MODE[r.mode]
	explicit = not model.plain_scope_size(r.size, r.pointer)
	if explicit:
		iterator += '_size'
	ifline = lines[r.stmt[0] - 1]
	label = merged.get(r.label, r.label)
	args = head_args(ifline, iterator, [r.pointer] + ([r.size] if explicit else []) + [label])
	body = [lines[i - 1] for i in r.body_lines()]
	first = r.body_lines().start
	body = drop_inner_ends(body, [i - first for i in r.inner_ends])
	body = [rename_labels(line, merged) for line in body]
	while body and not body[0].strip():
		body.pop(0)
	while body and not body[-1].strip():
		body.pop()
	body = blank_after_declarations(body)
	body = kernel_style(body, ctx.file)
	base = indent(ifline)
	inner = '\t' * (base + 1)
	out = [piece for line in reindent(body, base + 1) for piece in wrap_long(line)]
	# The rule writes `block;`: a body that ends in a statement gives its
	# own `;`; after a comment, #endif or a block the `;` stands on a
	# line of its own, which the tidy pass removes.
	last = out[-1].rstrip() if out else ''
	if last.endswith(';') and not last.lstrip().startswith(('/*', '*', '//')):
		block = '\n'.join(out)[:-1].lstrip('\t')
	else:
		block = '\n'.join(out).lstrip('\t') + '\n' + inner
	s = Scope(r, iterator, args, block, anchor=r.end)
	s.remove = {(r.stmt[0], r.stmt[1])} | {(b[0], b[1]) for b in r.body}
	end_text = text_of_end(lines, r.end)
	if LABEL_LINE.match(lines[r.end[0] - 1]) or re.match(r'^\s*[A-Za-z_]\w*:', lines[r.end[0] - 1]):
		# A labelled end stays where it is, its end call removed: the
		# label must stay outside of the scope.
		s.anchor = r.body[-1] if r.body else r.stmt
		s.remove.discard((s.anchor[0], s.anchor[1]))
		s.ends = set(r.ends)
	else:
		s.ends = {e for e in r.ends if e != (r.end[2], source.end_col(lines, r.end))}
	assert END_STMT.match(end_text) or end_text
	return s


def text_of_end(lines: list[str], end: Span) -> str:
	return flat(source.text_of(lines, end))


def width(line: str) -> int:
	"""The columns of a line's leading whitespace (a tab to the next eighth)."""
	col = 0
	for ch in line:
		if ch == '\t':
			col = (col // 8 + 1) * 8
		elif ch == ' ':
			col += 1
		else:
			break
	return col


def reindent(body: list[str], level: int) -> list[str]:
	"""The body one level deeper than it was, its least indented lines at
	level tabs; leading whitespace written as tabs, then spaces for
	alignment.  Preprocessor lines stay in column 0, and the lines
	continuing a string literal (after a backslash) are left as they are:
	their whitespace is part of the string."""
	code = [b for i, b in enumerate(body) if b.strip() and not b.lstrip().startswith('#')
		and not (i and body[i - 1].rstrip().endswith('\\') and not body[i - 1].lstrip().startswith('#'))]
	shift = 8 * level - min((width(b) for b in code), default=8 * level)
	out = []
	for i, b in enumerate(body):
		if not b.strip() or b.lstrip().startswith('#') or \
		   (i and body[i - 1].rstrip().endswith('\\')):
			out.append(b.rstrip())
			continue
		w = max(0, width(b) + shift)
		out.append('\t' * (w // 8) + ' ' * (w % 8) + b.lstrip(' \t').rstrip())
	return out


def visual(line: str) -> int:
	"""The columns a line takes, tabs to the next eighth."""
	col = 0
	for ch in line:
		col = (col // 8 + 1) * 8 if ch == '\t' else col + 1
	return col


def wrap_long(line: str) -> list[str]:
	"""A call statement the deeper indentation pushed past MAX_COLUMNS,
	broken after the last argument that still fits, the rest aligned with
	the open parenthesis; other lines as they are."""
	if visual(line) <= MAX_COLUMNS or '"' in line or not line.rstrip().endswith(');'):
		return [line]
	lead = line[:len(line) - len(line.lstrip())]
	text = line.lstrip()
	open_at = text.find('(')
	if open_at < 0:
		return [line]
	depth, cut = 0, None
	for i, ch in enumerate(text):
		depth += ch in '(['
		depth -= ch in ')]'
		if ch == ',' and depth == 1 and visual(lead + text[:i + 1]) <= MAX_COLUMNS:
			cut = i
	if cut is None:
		return [line]
	col = visual(lead) + open_at + 1
	pad = '\t' * (col // 8) + ' ' * (col % 8)
	rest = pad + text[cut + 1:].lstrip()
	if visual(rest) > MAX_COLUMNS:
		return [line]
	return [lead + text[:cut + 1], rest]


def head_args(ifline: str, iterator: str, args: list[str]) -> str:
	"""The arguments of the scope, wrapped and aligned with the open
	parenthesis when the line would pass MAX_COLUMNS."""
	tabs = indent(ifline)
	text = ', '.join(flat(a) for a in args)
	if 8 * tabs + len(iterator) + len(text) + 4 <= MAX_COLUMNS:
		return text
	col = 8 * tabs + len(iterator) + 1
	q, rem = divmod(col, 8)
	pad = '\t' * q + ' ' * rem
	# an argument keeps the line breaks it had in the source
	return (',\n' + pad).join(('\n' + pad).join(part.strip() for part in a.strip().split('\n'))
				  for a in args)


def drop_inner_ends(body: list[str], inner: list[int]) -> list[str]:
	"""The body lines without the end calls at indexes inner; an if block
	left with one statement loses its braces, as in kernel style."""
	out = list(body)
	for i in sorted(inner, reverse=True):
		if 0 < i < len(out) - 2 and re.match(r'^\s*(?:\} else )?if \(.*\) \{$', out[i - 1]) and \
		   out[i + 2].strip() == '}' and \
		   (i + 3 >= len(out) or not out[i + 3].lstrip().startswith('else')) and \
		   out[i + 1].rstrip().endswith(';') and \
		   indent(out[i - 1]) == indent(out[i + 2]) and \
		   (i < 2 or not out[i - 2].rstrip().endswith('}')) and \
		   not out[i - 1].lstrip().startswith('}'):
			out[i - 1] = out[i - 1].rstrip()[:-2]
			del out[i + 2]
		del out[i]
	return out


def rename_labels(line: str, merged: dict[str, str]) -> str:
	for old, new in merged.items():
		line = re.sub(r'(^\s*|,\s*|goto\s+)%s\b(?=\s*[;),]|\s*$)' % re.escape(old),
			      lambda m: m.group(1) + new, line)
	return line


def kernel_style(body: list[str], file: str) -> list[str]:
	"""The re-indented lines are new lines of the patch: block comments in
	an old style are rewritten in the kernel's (outside of net/, whose
	style is `/* text` on the first line), and a declaration inside the
	body gets the blank line after it that checkpatch asks for."""
	out: list[str] = []
	i = 0
	net = re.match(r'(\./)?(net|drivers/net)/', file) is not None
	while i < len(body):
		line = body[i]
		m = re.match(r'^(\s*)/\*(.*)$', line)
		if m and not net and '*/' not in m.group(2):
			end = next((j for j in range(i + 1, len(body)) if '*/' in body[j]), None)
			if end is not None:
				out += _block_comment(m.group(1), body[i:end + 1])
				i = end + 1
				continue
		out.append(line)
		if _DECLARATION.match(line) and i + 1 < len(body) and body[i + 1].strip() \
		   and not _DECLARATION.match(body[i + 1]) and not body[i + 1].strip().startswith('}') \
		   and indent(body[i + 1]) == indent(line):
			out.append('')
		i += 1
	return out


def _block_comment(lead: str, lines: list[str]) -> list[str]:
	"""A block comment as /*, one ` * text` line per line of text, */."""
	text = [lines[0].split('/*', 1)[1]] + lines[1:]
	text[-1] = text[-1].rsplit('*/', 1)[0]
	words = [re.sub(r'^\s*\*?\s?', '', x).rstrip() for x in text]
	while words and not words[0]:
		words.pop(0)
	while words and not words[-1]:
		words.pop()
	if lines[0].strip() == '/*' and all(x.lstrip().startswith('*') for x in lines[1:]):
		return lines		# already kernel style
	return [f'{lead}/*'] + [f'{lead} * {w}' if w else f'{lead} *' for w in words] + [f'{lead} */']


_DECLARATION = re.compile(r'^\s*(?!(?:return|goto|else|case|do)\b)'
			  r'(?:const\s+|struct\s+|unsigned\s+|signed\s+)*[A-Za-z_]\w*'
			  r'(?:\s+__user)?[\s\*]+[A-Za-z_]\w*(?:\s*=\s*[^;,]+)?'
			  r'(?:\s*,\s*\**\s*[A-Za-z_]\w*(?:\s*=\s*[^;,]+)?)*;\s*$')


def blank_after_declarations(body: list[str]) -> list[str]:
	"""Declarations opening the block are followed by a blank line."""
	i = 0
	while i < len(body) and _DECLARATION.match(body[i]) and not body[i].lstrip().startswith(
			('return', 'goto')):
		i += 1
	if 0 < i < len(body) and body[i].strip():
		return body[:i] + [''] + body[i:]
	return body


def merged_labels(ctx: Context, regions: list[Region]) -> dict[tuple[str, str], str]:
	"""Labels that only held an end the scopes remove and fall into another
	label: their jumps go to that label and they go (efault_end: into
	efault:, as mainline's put_cmsg conversion did)."""
	lines = ctx.lines
	merged: dict[tuple[str, str], str] = {}	# (function, label) -> target
	removed = {line for r in regions for line, _ in r.ends}
	for r in regions:
		fnlo, fnhi = r.fn_range
		for label in r.fault_labels:
			i = source.label_line(lines, fnlo, fnhi, label)
			if i is None:
				continue
			after = [(ln, t) for ln, t in source.code_after(lines, i, fnhi)]
			if len(after) >= 2 and after[0][0] in removed and END_STMT.match(after[0][1]) \
			   and after[1][1].startswith('LABEL '):
				target = after[1][1].split()[1]
				if not outside_refs(ctx, regions, label, r.function):
					merged[(r.function, label)] = target
	return merged


def outside_refs(ctx: Context, regions: list[Region], label: str, function: str) -> bool:
	"""Whether label is jumped to from outside the converted regions."""
	refs = [at for (f, lb, at) in ctx.facts.gotos if f == function and lb == label] + \
	       [a.pos for a in ctx.facts.accessors if a.function == function and a.label == label]
	return any(not any(r.function == function and r.inside(at) for r in regions) for at in refs)
