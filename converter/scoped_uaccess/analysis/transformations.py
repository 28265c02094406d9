# SPDX-License-Identifier: GPL-2.0
"""Where each transformation rewrites a region, and with what text.

The SmPL rules of a pass (convert_scoped_uaccess.cocci, -D <pass>) ask
hooks.py which statements or identifiers they act on; this module
answers for one region, on the file as the pass sees it, by adding the
actions of plan.py to the file's plan.
"""

import re
from typing import Optional, Union

from scoped_uaccess.analysis import pointers, scope_pass, source
from scoped_uaccess.analysis.plan import (AfterIf, BeforeIf, BeginArg, CursorDecl, CursorPointer,
					   Invert, Label, LocalBegin, LocalDecl, LocalMember, Plan,
					   Rename, RenameCast, RenameExpr, TailLabel, TailOut)
from scoped_uaccess.analysis.labels import fresh_label
from scoped_uaccess.analysis.model import Context, Region
from scoped_uaccess.analysis.facts import Pos
from scoped_uaccess.analysis.source import flat, strip_comments
from scoped_uaccess.analysis.status import Reason

# A transformation returns True when it planned its edits, else False or
# why it does not apply (the text of the skip).


def plan(ctx: Context, r: Region, at: Plan) -> None:
	"""The edits of r's first pending transformation (the pass order is
	model.TRANSFORMATIONS; a later pass sees the file again)."""
	if not r.needs:
		return
	handler = {
		'invert-begin': invert_begin,
		'local-pointer': local_pointer,
		'tail-out': tail_out,
		'cursor': cursor,
		'rederive': rederive,
		'range-check': range_check,
		'label': label,
	}.get(r.needs[0])
	done = handler(ctx, r, at) if handler is not None else False
	if done is not True:
		r.skip(Reason.UNKNOWN_SHAPE, done if isinstance(done, str) else
		       f'the {r.needs[0]} transformation does not apply here')


# ---- shared ------------------------------------------------------------------

def _if_pos(r: Region) -> Pos:
	assert r.stmt is not None
	return r.stmt[0], r.stmt[1]


def declared_type(ctx: Context, r: Region, name: str) -> Optional[str]:
	"""The type of name as its declaration in the function spells it."""
	lo, _ = r.fn_range
	assert r.stmt is not None
	text = strip_comments('\n'.join(ctx.lines[lo - 1:r.stmt[0]]))
	# the whole declaration it is part of: from `(`, `,`, `;`, `{` or a
	# line start to the name
	for m in re.finditer(r'(?:^|[(;{,])\s*(?P<decl>[A-Za-z_][\w\s]*?[\s\*]+)\b%s\b\s*(?=[=;,)\[])'
			     % re.escape(name), text, re.MULTILINE):
		decl = ' '.join(m.group('decl').split())
		start = m.start('decl')
		if text[:start].rstrip().endswith(',') and not re.search(r'\(\s*[^()]*$', text[:start]):
			# `struct x __user *a, *b;`: the base type of the first declarator
			base = re.search(r'(?:^|[;{])\s*([A-Za-z_][\w\s]*?)[\s\*]+\w+\s*(?:=[^;,]*)?,[^;]*$',
					 text[:start], re.MULTILINE)
			if base is None:
				continue
			decl = ' '.join(base.group(1).split()) + ' ' + decl.strip()
		if decl.split()[0] in ('return', 'goto', 'else', 'if'):
			continue
		return re.sub(r'\s*\*\s*', ' *', decl).replace('* *', '**').strip()
	return None


def declaration_line(ctx: Context, r: Region) -> Optional[int]:
	"""The line of the last declaration opening the function body."""
	lo, hi = r.fn_range
	lines = ctx.lines
	start = next((i for i in range(lo, hi + 1) if lines[i - 1].startswith('{')), None)
	if start is None:
		return None
	decl = re.compile(r'^\s+(?:const\s+|static\s+|struct\s+|unsigned\s+|union\s+)*[A-Za-z_]\w*'
			  r'(?:\s+__user|\s+const)*[\s\*]+(?:const\s+)?[A-Za-z_]\w*\s*(?:\[[^\]]*\])?'
			  r'\s*(?:[=,;]|$)')
	last, i = None, start + 1
	comment = False
	while i <= hi:
		line = lines[i - 1]
		code = line.strip()
		if comment or code.startswith('/*') or not code or code.startswith('#'):
			if code.startswith('/*') or comment:
				comment = '*/' not in code
			i += 1
			continue
		if not decl.match(line) or code.startswith(('return', 'goto')):
			break
		last = i
		while not strip_comments(lines[i - 1]).rstrip().endswith(';') and i < hi:
			i += 1
		i += 1
	return last


def _occurrences(ctx: Context, r: Region, name: str, lines_range: range) -> list[Pos]:
	"""Positions of name used as an identifier in the given lines."""
	found = []
	for i in lines_range:
		code = _code(ctx.lines[i - 1])
		for m in re.finditer(r'(?<![\w.>])%s\b' % re.escape(name), code):
			found.append((i, m.start()))
	return found


def _code(line: str) -> str:
	"""The line with comments and strings blanked, columns kept."""
	out = re.sub(r'/\*.*?\*/', lambda m: ' ' * len(m.group(0)), line)
	out = re.sub(r'//.*$', lambda m: ' ' * len(m.group(0)), out)
	return re.sub(r'"(?:\\.|[^"\\])*"', lambda m: ' ' * len(m.group(0)), out)


def fresh_name(ctx: Context, r: Region, want: str) -> str:
	"""want, or want with underscores appended, unused as an identifier in
	the function (member names do not count)."""
	lo, hi = r.fn_range
	text = strip_comments('\n'.join(ctx.lines[lo - 1:hi]))
	name = want
	while re.search(r'(?<![\w.>])%s\b' % re.escape(name), text):
		name += '_'
	return name


# ---- the transformations ---------------------------------------------------------

def range_check(ctx: Context, r: Region, at: Plan) -> Union[bool, str]:
	"""access_ok() of the whole range in front of the region: masking checks
	no size, and the region's result depended on the range check."""
	assert r.stmt is not None
	ifline = ctx.lines[r.stmt[0] - 1]
	tabs = '\t' * (source.indent(ifline) + 1)
	action = r.action[:-1] if r.action.endswith(';') else r.action
	args = scope_pass.head_args(ifline, 'if (!access_ok', [r.pointer, r.size])
	at.add(_if_pos(r), BeforeIf(f'if (!access_ok({args}))\n{tabs}{action}'))
	return True


def label(ctx: Context, r: Region, at: Plan) -> Union[bool, str]:
	"""A label after the function's last statement that does what the
	begin failure did, for the scope to jump to."""
	m = re.match(r'^return(?:\s+(.*))?;$', r.action)
	if m is None:
		return False
	lo, hi = r.fn_range
	last = _last_statement(ctx, r)
	if last is None:
		return False
	at.add(last, Label(r.label, m.group(1) or ''))
	return True


def tail_out(ctx: Context, r: Region, at: Plan) -> Union[bool, str]:
	"""if (c) { end(); f(); return x; } inside the region becomes
	if (c) goto L; and L: end(); f(); return x; follows the function's
	last statement: the scope pass then sees a fault label, and f() runs
	after the scope ended user access."""
	last = _last_statement(ctx, r)
	if last is None or at.has(TailLabel, last):
		return False
	lo, hi = r.fn_range
	taken = set(source.all_labels(ctx.lines, lo, hi))
	name = next((n for n in ('failed', 'fail', 'exit_failed') if n not in taken), None)
	if name is None:
		return False
	line, ret = min(r.tails.items())
	cond = ctx.lines[_block_open(ctx, line) - 1]
	col = cond.index('if (') + len('if (')
	at.add((_block_open(ctx, line), col), TailOut(name))
	text = [ctx.lines[i - 1].strip() for i in range(line, ret + 1) if ctx.lines[i - 1].strip()]
	at.add(last, TailLabel(name, '\n\t'.join(text).rstrip(';')))
	return True


def _block_open(ctx: Context, line: int) -> int:
	"""The line of the `if (...) {` that opens the block holding line."""
	i = line - 1
	while not flat(ctx.lines[i - 1]):
		i -= 1
	return i


def _last_statement(ctx: Context, r: Region) -> Optional[Pos]:
	"""The last statement of the function, directly in its body."""
	stmts = ctx.facts.stmts.get(r.function, set())
	top = [s for s in stmts if source.parent_of(stmts, s) is None]
	if not top:
		return None
	last = max(top)
	return last[0], last[1]


def cursor(ctx: Context, r: Region, at: Plan) -> Union[bool, str]:
	"""The begin's pointer is advanced in the region, but the scope's is
	const: a cursor set from the scope's (masked) pointer walks instead."""
	ptr = r.pointer
	body = r.body_lines()
	seed = pointers.reseed_source(ctx, r, ptr)
	if seed:
		# ptr is a local copy of seed: the scope opens on seed and ptr,
		# set from it first thing in the scope, stays the cursor.
		begin = r.key
		args_at = _begin_arg(ctx, begin)
		if args_at is None:
			return False
		at.add(args_at, BeginArg(seed))
		at.add(_if_pos(r), AfterIf(f'{ptr} = {seed}'))
		return True
	if r.cursor_after:
		return False
	ctype = declared_type(ctx, r, ptr)
	decl_at = declaration_line(ctx, r)
	if decl_at is None:
		return f'cursor: no local declaration in {r.function}() to declare the cursor after'
	if ctype is None:
		return f'cursor: the type of {ptr} is not spelled out in {r.function}()'
	name = fresh_name(ctx, r, f'{ptr}_cur' if len(ptr) > 1 else f'{ptr}cur')
	for p in _occurrences(ctx, r, ptr, body):
		at.add(p, Rename(name))
	# Declared with the other locals, set first thing in the region: in
	# the scope, from its masked pointer.
	line = ctx.lines[decl_at - 1]
	at.add((decl_at, len(line) - len(line.lstrip())), CursorDecl(name, ptr))
	at.add(r.key, CursorPointer(ptr))
	at.add(_if_pos(r), AfterIf(f'{name} = {ptr}'))
	return True


def _begin_arg(ctx: Context, begin: Pos) -> Optional[Pos]:
	"""The position of the begin's first argument."""
	line = ctx.lines[begin[0] - 1]
	i = line.find('(', begin[1])
	if i < 0:
		return None
	j = i + 1
	while j < len(line) and line[j] in ' \t':
		j += 1
	return begin[0], j


def rederive(ctx: Context, r: Region, at: Plan) -> Union[bool, str]:
	"""A pointer the accessors use was computed from the begin's pointer
	before the region: computed again first thing in it, from the scope's
	pointer, so that the mask covers it."""
	texts, guarded = [], []
	stmts = ctx.facts.stmts.get(r.function, set())
	tabs = '\t' * (source.indent(ctx.lines[r.stmt[0] - 1]) if r.stmt else 1)
	for name, line in sorted(r.foreign.items(), key=lambda kv: kv[1]):
		span = min((s for s in stmts if s[0] == line), default=None)
		if span is None:
			return False
		text = flat(source.text_of(ctx.lines, span)).rstrip(';')
		text = re.sub(r'\( ', '(', re.sub(r' \)', ')', text))
		m = re.match(r'^%s = \((?:const )?void __user \*\) ?(\w+) - (.+)$' % re.escape(r.pointer), text)
		if m:
			text = f'{name} = (void __user *){r.pointer} + {m.group(2)}'
		elif not text.startswith(name):
			return False
		else:
			# the statement again as it is written, its line breaks kept
			text = strip_comments(source.text_of(ctx.lines, span)).rstrip().rstrip(';')
			text = '\n'.join(line.rstrip() for line in text.split('\n'))
		if text.count('(') != text.count(')'):
			return False
		guard = source.enclosing_conditional(ctx.lines, line, r.fn_range[0])
		if guard is None:
			return False
		if guard:
			# computed under #ifdef (tm_mctx of powerpc's signal_32.c):
			# again under the same condition, before the others
			guarded.append(f'{guard}\n{tabs}{text};\n#endif\n{tabs}')
		else:
			texts.append(text)
	if not texts:
		# the statement the rule adds ends with `;`: a guarded one alone
		# would leave it after the #endif
		return False
	at.add(_if_pos(r), AfterIf(''.join(guarded) + f';\n{tabs}'.join(texts)))
	return True


def local_pointer(ctx: Context, r: Region, at: Plan) -> Union[bool, str]:
	"""A pointer expression (member, cast, address of a member) gets a local
	for the scope to open on, declared with the other locals."""
	decl_at = declaration_line(ctx, r)
	if decl_at is None:
		return f'local-pointer: no local declaration in {r.function}() to declare the local after'
	expr = r.pointer
	m = re.fullmatch(r'\((?P<type>[\w\s\*]+)\)\s*(?P<base>[A-Za-z_]\w*)', expr)
	if m:
		how = 'cast'
		name = fresh_name(ctx, r, 'u' + m.group('base'))
	else:
		mm = re.fullmatch(r'(&?)(\w+)(?:->|\.)(\w+)', expr.replace(' ', ''))
		if mm is None:
			return False
		address, _, member = mm.groups()
		how = ('field-address' if address else 'field') if struct_member(ctx, member) else 'typeof'
		name = fresh_name(ctx, r, member.split('_')[-1] if member.startswith('uc_') else member)
		at.add(r.key, LocalMember(member))
	# Declared with the other locals, set there, unless what it is set from
	# changes before the begin: then set right before it.
	base = m.group('base') if m else mm.group(2)
	assert r.stmt is not None
	if _assigned(ctx, base, range(decl_at + 1, r.stmt[0])):
		if how != 'cast':
			return False
		how = 'cast-late'
		at.add(_if_pos(r), BeforeIf(f'{name} = {expr}'))
	line = ctx.lines[decl_at - 1]
	at.add((decl_at, len(line) - len(line.lstrip())), LocalDecl(name, how, expr))
	at.add(r.key, LocalBegin())
	assert r.stmt is not None
	text = re.escape(expr).replace('\\ ', r'\s*')
	for i in range(r.stmt[0], r.body_lines().stop):
		for found in re.finditer(text, _code(ctx.lines[i - 1])):
			at.add((i, found.start()), RenameExpr(name))
	if m:
		# The cast's operand passed on to a helper inside the region is
		# the pointer too: it passes the local (masked in the scope).
		base = m.group('base')
		btype = declared_type(ctx, r, base)
		for i in range(r.stmt[2] + 1, r.body_lines().stop):
			for found in re.finditer(r'(?<=[(,])\s*%s\s*(?=[,)])' % re.escape(base),
						 _code(ctx.lines[i - 1])):
				col = found.start() + len(found.group(0)) - len(found.group(0).lstrip())
				at.add((i, col), RenameCast(f'({btype}){name}' if btype else name))
	return True


def _assigned(ctx: Context, name: str, lines: range) -> bool:
	"""Whether name is assigned, incremented or decremented in lines."""
	n = re.escape(name)
	changed = re.compile(r'(?<![\w.>])%s\s*(?:[-+*/%%&|^]|<<|>>)?=(?!=)|(?:\+\+|--)\s*%s\b|'
			     r'(?<![\w.>])%s\s*(?:\+\+|--)' % (n, n, n))
	return any(changed.search(_code(ctx.lines[i - 1])) for i in lines)


def struct_member(ctx: Context, member: str) -> bool:
	"""Whether a struct of the file declares member (its type is then read
	off that declaration)."""
	text = strip_comments('\n'.join(ctx.lines))
	return any(re.search(r'[\s\*]%s\s*;' % re.escape(member), body.group(1))
		   for body in re.finditer(r'struct\s+\w+\s*\{([^}]*)\}', text))


def invert_begin(ctx: Context, r: Region, at: Plan) -> Union[bool, str]:
	"""if (begin) { A; end(); } else { B; } return v; becomes
	if (!begin) goto L; A; end(); return v; L: B; return v;"""
	lo, hi = r.fn_range
	at.add(r.key, Invert(fresh_label(ctx.lines, lo, hi)))
	return True
