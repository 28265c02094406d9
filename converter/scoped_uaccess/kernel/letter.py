# SPDX-License-Identifier: GPL-2.0
"""The committed cover letter of a series with a core part (patches/, 6.12), its figures from the data.

The prose of patches/cover-letter.in is written by hand; every figure in
it (the patch numbers, the KUnit cases, the checker's scripts and
classes, what the conversion converted and left, what the checker finds
on the tree) is filled in from the series, the census
(reports/linux-<version>/conversion.json) and the report
(findings.json).  `convert --install` writes 0000-cover-letter.patch
from it, and the convert-regen gate fails when the committed letter is
not what the data give.  The 7.3 series has no committed cover letter:
`post` writes one per maintainer series (docs/posting.md).
"""

import collections
import json
import re
import textwrap
from pathlib import Path

from scoped_uaccess.kernel import series

TEMPLATE = 'cover-letter.in'
_WORDS = ('no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten',
	  'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen')


def names(items: list[str]) -> str:
	"""a, b and c."""
	return items[0] if len(items) == 1 else ', '.join(items[:-1]) + ' and ' + items[-1] \
		if items else ''


def _word(n: int) -> str:
	return _WORDS[n] if n < len(_WORDS) else str(n)


def _fill(text: str, indent: str = '      ') -> str:
	return textwrap.fill(' '.join(text.split()), width=72, initial_indent=indent,
			     subsequent_indent=indent, break_on_hyphens=False, break_long_words=False)


def facts(patches: Path, reports: Path) -> dict[str, str]:
	"""The figures the template asks for."""
	parts = series.series_parts(patches)
	core = [n for n in parts.core if n != series.COVER_LETTER]
	total = len(core) + len(parts.conversions)
	kunit = next((patches / n for n in core if 'KUnit' in n or 'kunit' in n.lower()), None)
	cases = len(re.findall(r'^\+\s*KUNIT_CASE\(', kunit.read_text(), re.M)) if kunit else 0
	checker = next((patches / n for n in core if 'coccinelle' in n), None)
	text = checker.read_text() if checker else ''
	scripts = re.findall(r'^\+\+\+ b/(scripts/coccinelle/\S+\.cocci)', text, re.M)
	classes = list(dict.fromkeys(re.findall(r'^\+///\s+\[([\w-]+)\]', text, re.M)))
	census = json.loads((reports / 'conversion.json').read_text())['regions']
	status = collections.Counter(r['status'] for r in census)
	reasons = collections.Counter(r.get('reason') for r in census if r['status'] == 'skipped')
	found = json.loads((reports / 'findings.json').read_text())['findings']
	severity = collections.Counter(f['severity'] for f in found)
	first, last = len(core) + 1, total
	skipped = ', '.join(f'{n} {reason}' for reason, n in reasons.most_common())
	conversion = (
		f'semantic patch and its driver, one patch per subsystem: {status["converted"]} of '
		f'the {len(census)} open coded regions left by 1-{len(core)}.  Each changelog says what '
		'the regions did, which architectures build the file and what the scope changes on '
		'those that mask user pointers (x86-64 in 6.12), what the conversion had to do beyond '
		'the plain scope, and which tests reached the code.  The '
		f'{status["skipped"]} regions left ({skipped}) are listed with the reason in the '
		'project\'s conversion report; no-gain are those of files built only where 6.12 does '
		'not mask (powerpc, 32-bit x86), where a scope would change nothing at run time.')
	return {
		'total': str(total),
		'conversions': f'{first}-{last}' if parts.conversions else '-',
		'conversion_paragraph': _fill(conversion),
		'kunit_cases': str(cases),
		'checker_scripts': _fill(names(scripts) or 'no script'),
		'checker_classes': f'{_word(len(classes))} classes of bugs ({", ".join(classes)})',
		'findings_paragraph': _fill(
			f'On the tree with this series it reports {severity["ERROR"]} '
			f'error{"s" if severity["ERROR"] != 1 else ""} and {severity["WARNING"]} '
			f'warning{"s" if severity["WARNING"] != 1 else ""}, each triaged in the project\'s '
			'report.', '   '),
	}


def render(patches: Path, reports: Path) -> str:
	template = (patches / TEMPLATE).read_text()
	return template.format(**facts(patches, reports))


def write(patches: Path, reports: Path) -> bool:
	"""0000-cover-letter.patch from the template, where there is one;
	whether it changed."""
	if not (patches / TEMPLATE).is_file():
		return False
	text = render(patches, reports)
	cover = patches / series.COVER_LETTER
	if cover.is_file() and cover.read_text() == text:
		return False
	cover.write_text(text)
	return True


def stale(patches: Path, reports: Path) -> list[str]:
	"""A problem when the committed cover letter is not what the data give."""
	if not (patches / TEMPLATE).is_file():
		return []
	cover = patches / series.COVER_LETTER
	if not cover.is_file() or cover.read_text() != render(patches, reports):
		return [f'{cover.name} is not what {TEMPLATE} and the data give: run '
			'`make convert-install` (or `converter/scoped-uaccess convert --install`)']
	return []
