// SPDX-License-Identifier: GPL-2.0-only
/// Convert open-coded user access regions into scoped_user_*_access().
///
/// A region begun by if (!user_{read_,write_,}access_begin(p, n)) ... (or
/// the masked prologue if (can_do_masked_user_access()) p =
/// masked_user_access_begin(p); else if (!user_*_access_begin(p, n)) ...)
/// and ended by user_*_access_end() on every exit becomes
///
///	scoped_user_{read,write,rw}_access[_size](p, [n,] label) {
///		...
///	}
///
/// The scope ends the region on every exit, so the end calls of the
/// region, of its fault labels and before its early returns go.  The mode
/// is what the accessors do; the _size variant is used unless n is
/// sizeof(*p); label is the label the begin failure jumped to, or a fault
/// label that does what the begin failure did.
///
/// Only shapes proven safe are rewritten; every other region is left
/// exactly as it is.  MODE=report prints one line per region begin:
///   file:line:col: REGION [converted-<shape>|skip:<reason>] function(): text
/// with the shapes and reasons of cocci/README.md; MODE=patch rewrites
/// exactly the regions reported converted-*.  Both modes take the
/// decision from the same matches (the facts rules below) and the same
/// classify() function, so they cannot disagree.
///
// Confidence: High (a region is converted only if every check passes)
// Copyright: (C) 2026 Seed 856ff4c8 maintainers
// Comments:
//  SmPL of spatch 1.1.1 cannot wrap a sequence of existing statements into
//  a new block without reprinting them (a statement list metavariable only
//  matches a whole block, and moving statements one by one drops the
//  comments before them).  So the rules below match the facts (statements,
//  begins, ends, calls, accessors, gotos, assignments) with their
//  positions, classify() decides in Python, and one patch rule removes the
//  statements of the region by position and puts the scope in place of its
//  end call, with the source text of the body, re-indented, given to spatch
//  as an identifier.  The patch is one rule because spatch reparses the
//  file after every rule that changes it, and positions of the original
//  would not match any more.  Facts are kept per file, as spatch matches
//  all files of one run together.
//  Run it with the options below and --macro-file cocci/kernel-macros.h
//  (COMPAT_SYSCALL_DEFINEn()); --smpl-spacing keeps kernel spacing in the
//  scope line.  -D report prints its lines at the end of the run.
//  Deliberate exclusions (skip reasons, see cocci/README.md): the pointer
//  modified in the region, a pointer that is not an identifier, accessors
//  on another pointer, ends not in the begin's block, indexed accessors
//  (masked-range), calls that are not accessors or known inline helpers,
//  break/continue leaving the region, labels shared with code outside a
//  converted region, begins tested positively, and anything else.
//  Known false negatives (regions left alone that could be converted):
//  a region whose last statement is a block or that ends in a comment
//  (rseq, vm86), a begin failure that does
//  more than one return or goto, fault labels that do more than assign
//  a local and goto the label that ends the region.
// Options: --no-includes --include-headers --smpl-spacing

virtual patch
virtual report

@initialize:python@
@@
import re

# ---- lookup tables ------------------------------------------------------

BEGIN_MODE = {
	'user_access_begin': 'rw', 'user_rw_access_begin': 'rw',
	'user_read_access_begin': 'read', 'user_write_access_begin': 'write',
	'masked_user_access_begin': None, 'masked_user_rw_access_begin': 'rw',
	'masked_user_read_access_begin': 'read',
	'masked_user_write_access_begin': 'write',
}
ENDS = {'user_access_end', 'user_rw_access_end', 'user_read_access_end',
	'user_write_access_end'}
# Accessors: what they do and the index of the user address (None: any
# argument may be the address, for the wrapper macros).
ACCESSORS = {
	'unsafe_get_user': ('read', 1), 'unsafe_copy_from_user': ('read', 1),
	'unsafe_put_user': ('write', 1), 'unsafe_copy_to_user': ('write', 0),
	'unsafe_try_cmpxchg_user': ('rmw', 0),
	'unsafe_atomic_op1': ('rmw', 2), 'unsafe_atomic_op2': ('rmw', 2),
	'unsafe_copy_dirent_name': ('write', 0),
	'unsafe_put_sigmask': ('write', None),
	'unsafe_put_sigcontext': ('write', 0),
	'unsafe_put_sigcontext32': ('write', 0),
	'unsafe_save_altstack': ('write', 0),
	'unsafe_save_altstack32': ('write', 0),
	'unsafe_compat_save_altstack': ('write', 0),
	'unsafe_put_compat_sigset': ('write', 0),
	'unsafe_put_sigset_t': ('write', 0),
	'unsafe_get_compat_sigset': ('read', 1),
	'unsafe_get_sigset_t': ('read', 1),
	'unsafe_get_user_sigset': ('read', 1),
	'unsafe_save_general_regs': ('write', 1),
	'unsafe_save_user_regs': ('write', 1),
	'unsafe_restore_general_regs': ('read', 1),
	'unsafe_copy_fpr_to_user': ('write', 0),
	'unsafe_copy_vsx_to_user': ('write', 0),
	'unsafe_copy_fpr_from_user': ('read', 1),
	'unsafe_copy_vsx_from_user': ('read', 1),
	'unsafe_copy_ckfpr_to_user': ('write', 0),
	'unsafe_copy_ckvsx_to_user': ('write', 0),
	'unsafe_copy_ckfpr_from_user': ('read', 1),
	'unsafe_copy_ckvsx_from_user': ('read', 1),
}
# Calls that are fine in a region: builtins, macros and __always_inline
# helpers.  ALL_CAPS names are macros and fine as well.
SAFE_CALLS = {
	'likely', 'unlikely', 'sizeof', 'typeof', 'offsetof', 'barrier',
	'smp_wmb', 'smp_rmb', 'smp_mb', 'wmb', 'rmb', 'mb',
	'min', 'max', 'min_t', 'max_t', 'clamp',
	'lower_32_bits', 'upper_32_bits', 'ptr_to_compat', 'compat_ptr',
	'swab16', 'swab32', 'swab64', 'cpu_to_le16', 'cpu_to_le32',
	'cpu_to_le64', 'le16_to_cpu', 'le32_to_cpu', 'le64_to_cpu',
	'cpu_to_be16', 'cpu_to_be32', 'cpu_to_be64', 'be16_to_cpu',
	'be32_to_cpu', 'be64_to_cpu', 'get_unaligned', 'put_unaligned',
	'container_of', 'fallthrough', 'huge_encode_dev', 'new_encode_dev',
	'old_encode_dev', 'aligned_byte_mask',
	# macros or __always_inline, as the checker lists them (SAFE_IN there)
	'static_cpu_has', 'cpu_has_feature', 'to_user_ptr',
}
SCOPE = {'read': 'scoped_user_read_access', 'write': 'scoped_user_write_access',
	 'rw': 'scoped_user_rw_access'}

# ---- per-file facts (reset at the end of each file) ---------------------

class Facts:
	"""What the rules matched in one file."""
	def __init__(self):
		self.begins = {}	# key -> (function, begin name, position)
		self.stmts = {}		# function -> set of (l0, c0, l1, c1)
		self.endpos = set()	# (line, col) of every end call
		self.calls = []		# (function, name, line, col)
		self.accs = []		# (function, name, args, label, line, col)
		self.gotos = []		# (function, label, line, col)
		self.assigns = []	# (function, variable, line, col)
		self.result = None	# the result of classify(), computed once

def reset():
	global FACTS, IFS, LINES, FILE
	FACTS = {}	# file -> Facts; spatch matches all files of a run together
	IFS = {}	# begin key -> (kind, pointer, size, key of the masked begin)
	LINES = None
	FILE = None

def facts(p):
	return FACTS.setdefault(p.file, Facts())

MODE = set()
reset()

def key(p):
	return (p.file, int(p.line), int(p.column))

def source(file):
	global LINES, FILE
	if FILE != file:
		with open(file, errors='replace') as f:
			LINES = f.read().split('\n')
		FILE = file
	return LINES

# ---- classification -----------------------------------------------------

class Region:
	def __init__(self, k, fn, name):
		self.key, self.fn, self.name = k, fn, name
		self.tag, self.text = 'skip:unknown-shape', 'not a recognised region'
		self.stmt = None	# (l0, c0, l1, c1) of the if statement
		self.anchor = None	# the statement the scope replaces
		self.remove = set()	# statements of the body, by (l0, c0)
		self.ends = set()	# end calls to remove outside the body, (line, col)
		self.head = self.body = None
		self.iterator = None
		self.refs = set()	# labels whose end this region removes
		self.lo = self.hi = None

	def skip(self, reason, text):
		self.tag, self.text = 'skip:' + reason, text
		return self

def text_of(lines, s):
	l0, c0, l1, c1 = s
	if l0 == l1:
		return lines[l0 - 1][c0:c1]
	out = [lines[l0 - 1][c0:]] + lines[l0:l1 - 1] + [lines[l1 - 1][:c1]]
	return '\n'.join(out)

def contains(a, b):
	return (a[0], a[1]) <= (b[0], b[1]) and (b[2], b[3]) <= (a[2], a[3])

def containing_if(stmts, lines, line, col):
	best = None
	for s in stmts:
		if contains(s, (line, col, line, col)) and text_of(lines, s).startswith('if'):
			if best is None or contains(best, s):
				best = s
	return best

def parent_of(stmts, s):
	best = None
	for t in stmts:
		if t != s and contains(t, s):
			if best is None or contains(best, t):
				best = t
	return best

LABEL_LINE = re.compile(r'^\s*([A-Za-z_]\w*):\s*(/\*.*\*/\s*)?$')
END_STMT = re.compile(r'^(?:[A-Za-z_]\w*:\s*)*(user_(?:read_|write_|rw_)?access_end)\(\);$')

def strip_comments(text):
	text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
	return re.sub(r'/\x2f[^\n]*', ' ', text)

def flat(text):
	return ' '.join(strip_comments(text).split())

def label_line(lines, lo, hi, name):
	"""The line (1-based) of label name in the function lines lo..hi."""
	for i in range(lo, hi + 1):
		m = LABEL_LINE.match(lines[i - 1])
		if m and m.group(1) == name:
			return i
	return None

def code_after(lines, i, hi):
	"""The code lines after line i up to the next return or goto, as
	(line, text), following fall-through over labels."""
	out = []
	j = i + 1
	while j <= hi:
		raw = lines[j - 1]
		t = flat(raw)
		j += 1
		if not t or raw.lstrip().startswith('\x23'):
			continue
		if LABEL_LINE.match(raw):
			out.append((j - 1, 'LABEL ' + LABEL_LINE.match(raw).group(1)))
			continue
		out.append((j - 1, t))
		if t.startswith('return') or t.startswith('goto ') or t == '}':
			break
	return out

def is_local(lines, lo, hi, var):
	decl = re.compile(r'^\s*(?:const\s+)?(?:struct\s+)?[A-Za-z_]\w*[\s\*]+' +
			  re.escape(var) + r'\s*(?:=[^;]*)?;')
	return any(decl.match(lines[i - 1]) for i in range(lo, hi + 1))

def effective(lines, lo, hi, name, removed, depth=0):
	"""What jumping to label name does, as a list of simple statements, with
	the removed ends dropped and gotos followed; None if not simple."""
	if depth > 3:
		return None
	i = label_line(lines, lo, hi, name)
	if i is None:
		return None
	out = []
	for ln, t in code_after(lines, i, hi):
		if t.startswith('LABEL '):
			continue
		if (ln, END_COL.get(ln)) in removed:
			continue
		m = re.match(r'^goto ([A-Za-z_]\w*);$', t)
		if m:
			rest = effective(lines, lo, hi, m.group(1), removed, depth + 1)
			return None if rest is None else out + rest
		if not t.endswith(';') or t == '}':
			return None
		out.append(t)
	return out

END_COL = {}

def same_action(lines, lo, hi, action, eff):
	if eff is None:
		return False
	if eff == [action]:
		return True
	m = re.match(r'^return (.+);$', action)
	if m and len(eff) == 2:
		a = re.match(r'^([A-Za-z_]\w*) = (.+);$', eff[0])
		if a and eff[1] == 'return %s;' % a.group(1) and a.group(2) == m.group(1) \
		   and is_local(lines, lo, hi, a.group(1)):
			return True
	return False

def first_end_at(lines, lo, hi, name, depth=0):
	"""The end call (line, col) that a jump to label name reaches first,
	through simple assignments, labels and gotos; None if there is none or
	something else comes first."""
	if depth > 3:
		return None
	i = label_line(lines, lo, hi, name)
	if i is None:
		return None
	for ln, t in code_after(lines, i, hi):
		if t.startswith('LABEL '):
			continue
		if END_STMT.match(t) and ln in END_COL:
			return (ln, END_COL[ln])
		m = re.match(r'^goto ([A-Za-z_]\w*);$', t)
		if m:
			return first_end_at(lines, lo, hi, m.group(1), depth + 1)
		if not re.match(r'^[A-Za-z_][\w\.>-]* = [^;()]*;$', t):
			return None
	return None

def analyse(r, lines, stmts, fnlo, fnhi):
	"""Everything about region r that does not depend on other regions."""
	kind, ptr, size, mkey = IFS.get(r.key, (None, None, None, None))
	if kind is None:
		return r.skip('unknown-shape', 'begin is not the condition of if (!begin(...))')
	if kind == 'positive':
		return r.skip('positive-begin', 'begin tested positively, if (begin(...)) { ... }')
	if kind == 'inner':
		return None		# part of a masked prologue, reported there
	line, col = r.key[1], r.key[2]
	if kind == 'masked':
		args = call_args(lines, *begin_of(mkey))
	else:
		args = call_args(lines, line, col)
	if args is not None and len(args) == 2:
		ptr, size = flat(args[0]), args[1]
	ifs = containing_if(stmts, lines, line, col)
	if ifs is None:
		return r.skip('unknown-shape', 'no if statement around the begin')
	r.stmt = ifs
	if not re.match(r'^[A-Za-z_]\w*$', ptr):
		return r.skip('pointer-expression', 'pointer %s is not a plain identifier' % ptr)
	iftext = text_of(lines, ifs)
	# the begin failure: the then branch of the (inner) if
	m = re.search(r'\)\s*\n?\s*((?:return[^;]*|goto\s+\w+);)\s*$', iftext)
	if m is None or (kind == 'masked' and not re.search(r'else\s+if', iftext)):
		return r.skip('begin-failure', 'begin failure is not one return or goto')
	action = flat(m.group(1))
	parent = parent_of(stmts, ifs)
	sibs = sorted(s for s in stmts if s != ifs and parent_of(stmts, s) == parent
		      and (s[0], s[1]) > (ifs[2], ifs[3]))
	body, main = [], None
	for s in sibs:
		t = flat(text_of(lines, s))
		if END_STMT.match(t):
			main = s
			break
		body.append(s)
	if main is None:
		return r.skip('split-branches', 'no end in the block of the begin')
	if lines[ifs[2] - 1][ifs[3]:].strip() or lines[main[0] - 1][:main[1]].strip():
		return r.skip('unknown-shape', 'region does not start and end on line boundaries')
	lo, hi = (ifs[2], ifs[3]), (main[0], main[1])
	r.lo, r.hi = lo, hi
	inb = lambda l, c: lo < (l, c) < hi
	body_lines = list(range(ifs[2] + 1, main[0]))
	pre = re.compile(r'(\+\+|--)\s*%s\b' % re.escape(ptr))
	if any(v == ptr and inb(l, c) for (f, v, l, c) in ASSIGNS if f == r.fn) or \
	   any(pre.search(strip_comments(lines[i - 1])) for i in range(ifs[2] + 1, main[0])):
		return r.skip('pointer-modified', '%s is modified inside the region' % ptr)
	for i in body_lines:
		lm = LABEL_LINE.match(lines[i - 1])
		if lm and lm.group(1) != 'default':
			return r.skip('unknown-shape', 'label %s: inside the region' % lm.group(1))
	# break and continue must stay inside a loop or switch of the region
	for i in body_lines:
		if re.search(r'\b(break|continue)\s*;', strip_comments(lines[i - 1])):
			ind = len(lines[i - 1]) - len(lines[i - 1].lstrip('\t'))
			inside = False
			for j in range(i - 1, ifs[2], -1):
				lj = lines[j - 1]
				ij = len(lj) - len(lj.lstrip('\t'))
				if lj.strip() and ij < ind:
					if re.match(r'\s*(for|while|do|switch)\b', lj):
						inside = True
					if ij <= len(lines[ifs[0] - 1]) - len(lines[ifs[0] - 1].lstrip('\t')):
						break
					ind = ij
			if not inside:
				return r.skip('loop-control', 'break or continue would leave the scope')
	# calls
	modes = set()
	accs = [a for a in ACCS if a[0] == r.fn and inb(a[4], a[5])]
	acc_at = {(a[4], a[5]) for a in accs}
	for (f, name, l, c) in CALLS:
		if f != r.fn or not inb(l, c) or (l, c) in acc_at:
			continue
		if name in ENDS or name in SAFE_CALLS or re.match(r'^[A-Z][A-Z0-9_]*$', name):
			continue
		if name.startswith('unsafe_'):
			return r.skip('unknown-shape', 'unknown accessor %s()' % name)
		return r.skip('out-of-line-call', 'call to %s() inside the region' % name)
	labels = set()
	for (f, name, args, label, l, c) in accs:
		if name not in ACCESSORS:
			return r.skip('unknown-shape', 'unknown accessor %s()' % name)
		mode, idx = ACCESSORS[name]
		modes.add(mode)
		labels.add(label)
		argl = split_args(args)
		addr = argl[idx] if idx is not None and idx < len(argl) else args
		if not re.search(r'\b%s\b' % re.escape(ptr), addr):
			return r.skip('foreign-pointer', '%s() address %s is not based on %s' % (name, flat(addr), ptr))
		if re.search(r'\[(?!\s*\d+\s*\])', addr) or re.search(r'\b%s\b\s*[-+](?!>)' % re.escape(ptr), addr):
			return r.skip('masked-range', '%s() address %s may lie beyond the first page' % (name, flat(addr)))
	if not accs:
		return r.skip('unknown-shape', 'no accessor inside the region')
	# ends inside the body: each right before a return or goto
	inner = []
	for (l, c) in ENDPOS:
		if not inb(l, c):
			continue
		raw = lines[l - 1]
		if not END_STMT.match(flat(raw)):
			return r.skip('unknown-shape', 'end inside the region shares its line')
		prev = [lines[i - 1] for i in range(ifs[2] + 1, l) if flat(lines[i - 1])]
		nxt = [flat(lines[i - 1]) for i in range(l + 1, main[0]) if flat(lines[i - 1])]
		if not nxt or not re.match(r'^(return\b|goto )', nxt[0]) or \
		   (prev and flat(prev[-1]).endswith(')')):
			return r.skip('unknown-shape', 'end inside the region not right before a return or goto')
		inner.append(l)
	# gotos inside the body: open jumps unless they follow an inner end
	for (f, label, l, c) in GOTOS:
		if f == r.fn and inb(l, c):
			prevs = [i for i in range(ifs[2] + 1, l) if flat(lines[i - 1])]
			if not (prevs and prevs[-1] in inner):
				labels.add(label)
	# every open label reaches an end first: it goes
	for label in sorted(labels):
		e = first_end_at(lines, fnlo, fnhi, label)
		if e is None:
			return r.skip('unknown-shape', 'fault label %s does not end the region' % label)
		r.ends.add(e)
		r.refs.add(label)
	r.ends.add((main[2], end_in(lines, main)))
	# the label of the scope
	elbl = None
	gm = re.match(r'^goto ([A-Za-z_]\w*);$', action)
	if gm:
		elbl = gm.group(1)
	else:
		cands = sorted(labels) + [n for n in all_labels(lines, main[2], fnhi) if n not in labels]
		for n in cands:
			if same_action(lines, fnlo, fnhi, action, effective(lines, fnlo, fnhi, n, r.ends)):
				elbl = n
				break
	if elbl is None:
		return r.skip('begin-failure', 'no label does what the begin failure does (%s)' % action)
	mode = 'rw' if 'rmw' in modes or modes == {'read', 'write'} else modes.pop()
	explicit = flat(size).replace(' ', '') not in ('sizeof(*%s)' % ptr, 'sizeof(*(%s))' % ptr)
	r.iterator = SCOPE[mode] + ('_size' if explicit else '')
	r.head = head_args(lines[ifs[0] - 1], r.iterator, [ptr] + ([size] if explicit else []) + [elbl])
	# The scope replaces the last statement of the body, and everything
	# else goes: spatch then removes whole lines (replacing the if leaves
	# the indentation of the removed end on a line of its own).
	# A labelled end stays where it is, as the label must stay outside.
	if END_STMT.match(flat(text_of(lines, main))) and not LABEL_LINE.match(lines[main[0] - 1]) \
	   and not re.match(r'^\s*[A-Za-z_]\w*:', lines[main[0] - 1]):
		r.anchor = main
		r.ends.discard((main[2], end_in(lines, main)))
		r.remove = {(s[0], s[1]) for s in body} | {(ifs[0], ifs[1])}
	else:
		r.anchor = body[-1]
		r.remove = {(s[0], s[1]) for s in body[:-1]} | {(ifs[0], ifs[1])}
	# the body text
	out = drop_braces([lines[i - 1] for i in body_lines], [i - body_lines[0] for i in inner])
	while out and not out[0].strip():
		out.pop(0)
	while out and not out[-1].strip():
		out.pop()
	if not out:
		return r.skip('unknown-shape', 'empty region')
	last = out[-1].rstrip()
	if not last.endswith(';'):
		return r.skip('unknown-shape', 'region ends with a block or a comment')
	out[-1] = last[:-1]
	out = [('\t' + l if l.strip() and not l.startswith('\x23') else l.rstrip()) for l in out]
	r.body = '\n'.join([out[0].lstrip()] + out[1:])
	if kind == 'masked':
		shape = 'masked'
	elif gm and elbl not in labels:
		shape = 'two-level'
	elif re.match(r'^[A-Za-z_]\w*:', flat(text_of(lines, main))):
		shape = 'shared-exit'
	elif not labels:
		shape = 'no-fault'
	else:
		shape = 'fault-label'
	r.tag = 'converted-' + shape
	r.text = '%s() region becomes %s(%s)' % (r.name, r.iterator, flat(r.head))
	return r

def drop_braces(body, inner):
	"""The body lines without the end calls at indexes inner; an if block
	left with one statement loses its braces, as in kernel style."""
	out = list(body)
	for i in sorted(inner, reverse=True):
		if 0 < i < len(out) - 2 and re.match(r'^\s*if \(.*\) \{$', out[i - 1]) and \
		   out[i + 2].strip() == '}' and \
		   (i + 3 >= len(out) or not out[i + 3].lstrip().startswith('else')) and \
		   out[i + 1].rstrip().endswith(';') and \
		   indent(out[i - 1]) == indent(out[i + 2]) and \
		   (i < 2 or not out[i - 2].rstrip().endswith('}')):
			out[i - 1] = out[i - 1].rstrip()[:-2]
			del out[i + 2]
		del out[i]
	return out

def indent(line):
	return len(line) - len(line.lstrip('\t'))

def head_args(ifline, iterator, args):
	"""The arguments of the scope, wrapped and aligned with the open
	parenthesis when the line would pass 100 columns."""
	tabs = indent(ifline)
	text = ', '.join(flat(a) for a in args)
	if 8 * tabs + len(iterator) + len(text) + 4 <= 100:
		return text
	col = 8 * tabs + len(iterator) + 1
	q, rem = divmod(col, 8)
	pad = '\t' * q + ' ' * rem
	# an argument keeps the line breaks it had in the source
	return (',\n' + pad).join(('\n' + pad).join(l.strip() for l in a.strip().split('\n'))
				  for a in args)

def begin_of(k):
	return k[1], k[2]

def call_args(lines, line, col):
	"""The arguments of the call whose name starts at line, col, as the
	source spells them (whitespace collapsed)."""
	text = '\n'.join(lines[line - 1:line + 5])[col:]
	i = text.find('(')
	if i < 0:
		return None
	depth = 0
	for j in range(i, len(text)):
		if text[j] == '(':
			depth += 1
		elif text[j] == ')':
			depth -= 1
			if depth == 0:
				return [a for a in split_args(strip_comments(text[i + 1:j]))]
	return None

def end_in(lines, s):
	"""The column of the end call in statement s (which may carry labels)."""
	t = lines[s[2] - 1]
	m = re.search(r'user_(?:read_|write_|rw_)?access_end\s*\(', t)
	return m.start() if m else s[1]

def all_labels(lines, lo, hi):
	return [LABEL_LINE.match(lines[i - 1]).group(1) for i in range(lo, hi + 1)
		if LABEL_LINE.match(lines[i - 1])]

def split_args(args):
	out, depth, cur = [], 0, ''
	for ch in args:
		if ch in '([{':
			depth += 1
		elif ch in ')]}':
			depth -= 1
		if ch == ',' and depth == 0:
			out.append(cur)
			cur = ''
		else:
			cur += ch
	out.append(cur)
	return [a.strip() for a in out]

def fn_range(lines, stmts):
	lo = min(s[0] for s in stmts)
	hi = max(s[2] for s in stmts)
	# the opening line of the function is above its first statement
	while lo > 1 and not re.match(r'^[A-Za-z_]', lines[lo - 1]):
		lo -= 1
	return lo, hi

def classify(file):
	"""All regions of the file, decided once: key -> Region."""
	global BEGINS, STMTS, ENDPOS, CALLS, ACCS, GOTOS, ASSIGNS, END_COL
	f = FACTS.setdefault(file, Facts())
	if f.result is not None:
		return f.result
	BEGINS, STMTS, ENDPOS, CALLS = f.begins, f.stmts, f.endpos, f.calls
	ACCS, GOTOS, ASSIGNS = f.accs, f.gotos, f.assigns
	END_COL = {}
	lines = source(file)
	for (l, c) in ENDPOS:
		END_COL[l] = c
	regions = {}
	for k, (fn, name, p) in BEGINS.items():
		r = Region(k, fn, name)
		stmts = STMTS.get(fn, set())
		if not stmts:
			regions[k] = r.skip('unknown-shape', 'function not parsed')
			continue
		lo, hi = fn_range(lines, stmts)
		r.fnlo, r.fnhi = lo, hi
		res = analyse(r, lines, stmts, lo, hi)
		if res is not None:
			regions[k] = res
	# Labels whose end a converted region removes must only be reached from
	# converted regions: drop regions until that holds.
	changed = True
	while changed:
		changed = False
		conv = [r for r in regions.values() if r.tag.startswith('converted')]
		for r in conv:
			for label in r.refs:
				if not only_from(lines, r, label, conv):
					r.skip('shared-label', 'label %s is also reached from outside the converted regions' % label)
					changed = True
					break
			if changed:
				break
		if not changed:
			# two regions must not remove the same end unless both convert
			pass
	f.result = regions
	return regions

def only_from(lines, r, label, conv):
	"""Every reference to label in the function of r comes from the body of a
	converted region, or from a label that does."""
	inside = lambda l, c: any(o.fn == r.fn and o.lo < (l, c) < o.hi for o in conv)
	refs = [(l, c) for (f, lb, l, c) in GOTOS if f == r.fn and lb == label] + \
	       [(a[4], a[5]) for a in ACCS if a[0] == r.fn and a[3] == label]
	for (l, c) in refs:
		if inside(l, c):
			continue
		# a goto from the code of another label that only the regions reach
		src = None
		for i in range(l, r.fnlo - 1, -1):
			m = LABEL_LINE.match(lines[i - 1])
			if m:
				src = m.group(1)
				break
			if re.match(r'^\s*(return\b|goto )', lines[i - 1]) and i != l:
				break
		if src is None or src == label or src not in r.refs and \
		   not any(src in o.refs for o in conv if o.fn == r.fn):
			return False
	# fall-through into the label from the code above it
	i = label_line(lines, r.fnlo, r.fnhi, label)
	if i is None:
		return False
	j = i - 1
	while j > r.fnlo and (not flat(lines[j - 1]) or LABEL_LINE.match(lines[j - 1])):
		j -= 1
	prev = flat(lines[j - 1])
	if not re.match(r'^(return\b|goto )', prev):
		# only the own fall-through of a region, into its labelled main end
		if not any(o.fn == r.fn and o.hi[0] > j and o.hi[0] >= i for o in conv) \
		   or not any(o.fn == r.fn and j < o.hi[0] and o.hi[0] <= i + 1 for o in conv):
			return False
	return True

def converted(p):
	return [r for r in classify(p.file).values() if r.tag.startswith('converted')]

def stmt_of(p):
	return (int(p.line), int(p.column), int(p.line_end), int(p.column_end))

ITERATORS = ['scoped_user_read_access', 'scoped_user_read_access_size', 'scoped_user_write_access', 'scoped_user_write_access_size', 'scoped_user_rw_access', 'scoped_user_rw_access_size']

def scope_region(p):
	"""The converted region whose if statement is at p, or None."""
	hit = [r for r in converted(p) if r.anchor == stmt_of(p)]
	return hit[0] if hit else None

def action(p):
	"""What the patch does to the statement at p: the index of the scope
	in ITERATORS it becomes, 6 removed, -1 nothing."""
	r = scope_region(p)
	if r is not None:
		return ITERATORS.index(r.iterator)
	at = (int(p.line), int(p.column))
	if any(at in r.remove or at in r.ends for r in converted(p)):
		return 6
	return -1

def report_line(r):
	return '%s:%d:%d: REGION [%s] %s(): %s' % (r.key[0], r.key[1], r.key[2],
						   r.tag, r.fn, r.text)

# ---- facts --------------------------------------------------------------

@begins depends on patch || report@
identifier B =~ "^(masked_)?user_(read_|write_|rw_)?access_begin$";
position pb;
@@
B@pb(...)

@script:python depends on begins@
b << begins.B;
pb << begins.pb;
@@
facts(pb[0]).begins[key(pb[0])] = (pb[0].current_element, b, pb[0])

@ifplain depends on begins@
identifier B =~ "^user_(read_|write_|rw_)?access_begin$";
expression P, N;
statement S0;
position pb;
@@
(
if (!B@pb(P, N)) S0
|
if (unlikely(!B@pb(P, N))) S0
)

@script:python depends on ifplain@
p << ifplain.P;
n << ifplain.N;
pb << ifplain.pb;
@@
IFS.setdefault(key(pb[0]), ('plain', str(p), str(n), None))

@ifmasked depends on begins@
identifier MB =~ "^masked_user_(read_|write_|rw_)?access_begin$";
identifier B =~ "^user_(read_|write_|rw_)?access_begin$";
expression P, N;
statement S0;
position pm, pb;
@@
if (can_do_masked_user_access())
	P = MB@pm(P);
else if (!B@pb(P, N)) S0

@script:python depends on ifmasked@
p << ifmasked.P;
n << ifmasked.N;
pm << ifmasked.pm;
pb << ifmasked.pb;
@@
IFS[key(pm[0])] = ('masked', str(p), str(n), key(pb[0]))
IFS[key(pb[0])] = ('inner', str(p), str(n), None)

@ifpositive depends on begins@
identifier B =~ "^user_(read_|write_|rw_)?access_begin$";
expression P, N;
statement S0, S1;
position pb;
@@
(
if (B@pb(P, N)) S0 else S1
|
if (B@pb(P, N)) S0
|
if (likely(B@pb(P, N))) S0 else S1
|
if (likely(B@pb(P, N))) S0
)

@script:python depends on ifpositive@
pb << ifpositive.pb;
@@
IFS.setdefault(key(pb[0]), ('positive', None, None, None))

@allst depends on begins@
statement S;
position ps;
@@
S@ps

@script:python depends on allst@
ps << allst.ps;
@@
p = ps[0]
if p.current_element in {b[0] for b in facts(p).begins.values()}:
	facts(p).stmts.setdefault(p.current_element, set()).add(
		(int(p.line), int(p.column), int(p.line_end), int(p.column_end)))

@ends depends on begins@
identifier END =~ "^user_(read_|write_|rw_)?access_end$";
position pe;
@@
END@pe()

@script:python depends on ends@
pe << ends.pe;
@@
facts(pe[0]).endpos.add((int(pe[0].line), int(pe[0].column)))

@calls depends on begins@
identifier f;
position pc;
@@
f@pc(...)

@script:python depends on calls@
f << calls.f;
pc << calls.pc;
@@
facts(pc[0]).calls.append((pc[0].current_element, f, int(pc[0].line), int(pc[0].column)))

@accs depends on begins@
identifier A =~ "^unsafe_";
expression list ES;
identifier L;
position pa;
@@
A@pa(ES, L)

@script:python depends on accs@
a << accs.A;
es << accs.ES;
l << accs.L;
pa << accs.pa;
@@
facts(pa[0]).accs.append((pa[0].current_element, a, str(es), l, int(pa[0].line), int(pa[0].column)))

@gotos depends on begins@
identifier L;
position pg;
@@
goto L@pg;

@script:python depends on gotos@
l << gotos.L;
pg << gotos.pg;
@@
facts(pg[0]).gotos.append((pg[0].current_element, l, int(pg[0].line), int(pg[0].column)))

@assigns depends on begins@
identifier X;
expression E;
assignment operator AOP;
position pa;
@@
(
X@pa AOP E
|
X@pa++
|
X@pa--
)

@script:python depends on assigns@
x << assigns.X;
pa << assigns.pa;
@@
facts(pa[0]).assigns.append((pa[0].current_element, x, int(pa[0].line), int(pa[0].column)))

// ---- report -------------------------------------------------------------

@script:python depends on report && begins@
pb << begins.pb;
@@
MODE.add('report')
classify(pb[0].file)

// ---- patch --------------------------------------------------------------
// One rule does every change: spatch reparses the file after each rule
// that modifies it, and positions computed on the original file would not
// match any more.  For every statement of the file, action() says what
// happens to it: 0-5 it is the if statement of a converted region and
// becomes scope ITERATORS[n], 6 it is removed (a statement of a converted
// region, which is inside the scope now, or an end the scope makes
// redundant), -1 nothing.

@script:python mk depends on patch && allst@
ps << allst.ps;
args;
body;
@@
r = scope_region(ps[0])
if r is None and action(ps[0]) < 0:
	cocci.include_match(False)
else:
	coccinelle.args = cocci.make_ident(r.head if r else 'unused')
	coccinelle.body = cocci.make_ident(r.body if r else 'unused')

@depends on patch@
iterator name scoped_user_read_access;
iterator name scoped_user_read_access_size;
iterator name scoped_user_write_access;
iterator name scoped_user_write_access_size;
iterator name scoped_user_rw_access;
iterator name scoped_user_rw_access_size;
position allst.ps;
identifier mk.args, mk.body;
statement S;
position q0 : script:python() { action(q0[0]) == 0 };
position q1 : script:python() { action(q1[0]) == 1 };
position q2 : script:python() { action(q2[0]) == 2 };
position q3 : script:python() { action(q3[0]) == 3 };
position q4 : script:python() { action(q4[0]) == 4 };
position q5 : script:python() { action(q5[0]) == 5 };
position q6 : script:python() { action(q6[0]) == 6 };
@@
(
- S@ps@q6
|
- S@ps@q0
+ scoped_user_read_access(args) {
+ body;
+ }
|
- S@ps@q1
+ scoped_user_read_access_size(args) {
+ body;
+ }
|
- S@ps@q2
+ scoped_user_write_access(args) {
+ body;
+ }
|
- S@ps@q3
+ scoped_user_write_access_size(args) {
+ body;
+ }
|
- S@ps@q4
+ scoped_user_rw_access(args) {
+ body;
+ }
|
- S@ps@q5
+ scoped_user_rw_access_size(args) {
+ body;
+ }
)

@finalize:python@
@@
if 'report' in MODE:
	for file in sorted(FACTS):
		regions = classify(file)
		for k in sorted(regions):
			print(report_line(regions[k]))
reset()
