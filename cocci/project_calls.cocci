// SPDX-License-Identifier: GPL-2.0-only
// Not a script of its own, and not shipped: `scoped-uaccess check` appends
// it to scoped_uaccess_regions.cocci (converter/scoped_uaccess/checker/check.py).
// The calls that script finds in regions and leaves alone, to functions the
// file does not define, are judged here by the project-only layer
// (converter/scoped_uaccess/checker/calls.py): the index of the tree's
// headers, the file's macros, the tables of cocci/api.py.  Calls between
// user_access_save() and user_access_restore() are left alone.

@script:python depends on gate@
@@
SAVED = set()

@project_saved depends on gate@
identifier f, v;
expression E;
position p;
type T;
@@
(
E = user_access_save();
|
T v = user_access_save();
)
... when != user_access_restore(...)
    when any
f@p(...)

@script:python depends on project_saved@
p << project_saved.p;
@@
SAVED.add(key(p[0]))

@script:python depends on gate && report@
@@
from scoped_uaccess.checker import calls
for p, msg in calls.findings([(ARG.get(k, p) if int(p.line) < int(regions(k)[-1][0].line)
			       else p, CALL[k], k, begun(regions(k)[-1][0]))
			      for k, p in POS.items() if CALL[k] not in FNS and regions(k)], SAVED):
	coccilib.report.print_report(p, msg)
