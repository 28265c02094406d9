# SPDX-License-Identifier: GPL-2.0
"""The generated conversions into patches/ (install) and a regeneration compared with them."""

import re
import shutil
from pathlib import Path
from typing import Callable, Sequence

from scoped_uaccess.kernel import letter
from scoped_uaccess.core.errors import UsageError
from scoped_uaccess.kernel.series import (COVER_LETTER, SERIES_MARKER, number_core, patch_names,
					  split_series)

# Lines of a patch that differ between two exports of the same change.
_VOLATILE = (re.compile(r'^From [0-9a-f]{40} '), re.compile(r'^index [0-9a-f]+\.\.[0-9a-f]+'),
	     re.compile(r'^Date: '), re.compile(r'^From: '))


def normalize_patch(text: str) -> list[str]:
	"""A patch without what changes from one export to the next: the commit
	hash, blob ids, date, author line and git's version signature."""
	lines = text.splitlines()
	if '-- ' in lines:
		lines = lines[:len(lines) - lines[::-1].index('-- ') - 1]
	return [line for line in lines if not any(p.match(line) for p in _VOLATILE)]


def compare_series(want: Sequence[tuple[str, str]], have: Sequence[tuple[str, str]]) -> list[str]:
	"""Differences between two series of (name, text), ignoring hashes, blob
	ids and dates: empty when they are the same patches in the same order."""
	problems = []
	if [n for n, _ in want] != [n for n, _ in have]:
		problems.append(f'patch names differ: committed {[n for n, _ in want]}, '
				f'regenerated {[n for n, _ in have]}')
	for (name, a), (_, b) in zip(want, have):
		la, lb = normalize_patch(a), normalize_patch(b)
		if la != lb:
			line = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
			problems.append(f'{name}: differs from line {line + 1} of the normalized patch')
	return problems


def install(out: Path, patches: Path, reports: Path, say: Callable[[str], None]) -> None:
	"""Replaces the conversions part of patches/ with the series in out,
	and the conversion table in reports/linux-<version>/."""
	generated = sorted(out.glob('*.patch'))
	if not (out / 'conversion.json').is_file():
		raise UsageError(f'{out} holds no conversion', 'run `convert` first')
	series = patches / 'series'
	lines = series.read_text().splitlines()
	core, old = split_series(lines)
	for name in patch_names(old):
		(patches / name).unlink(missing_ok=True)
	for p in generated:
		shutil.copyfile(p, patches / p.name)
	new = [*core]
	if generated:
		new += [SERIES_MARKER, *(p.name for p in generated)]
	series.write_text('\n'.join(new) + '\n')
	number_core(patches, patch_names(core),
		    len([n for n in patch_names(core) if n != COVER_LETTER]) + len(generated))
	reports.mkdir(parents=True, exist_ok=True)
	shutil.copyfile(out / 'conversion.json', reports / 'conversion.json')
	shutil.copyfile(out / 'summary.md', reports / 'conversion.md')
	if letter.write(patches, reports):
		say(f'convert: {COVER_LETTER} written from {letter.TEMPLATE} and the census')
	say(f'convert: {len(generated)} patch(es) installed in {patches} after the '
	    f'{len(patch_names(core))} of the core series; table in {reports}')


def read_series_texts(directory: Path, names: list[str]) -> list[tuple[str, str]]:
	return [(n, (directory / n).read_text(errors='replace')) for n in names]
