# SPDX-License-Identifier: GPL-2.0
"""reports/bench/README.md from bench.json: the tables, the commands, what limits them."""

from typing import Optional

from scoped_uaccess.bench.access import OPS, REFERENCE, VARIANT_TEXT, VARIANTS
from scoped_uaccess.bench.syscall import SYSCALLS
from scoped_uaccess.kernel.qemu import Accelerator


def _fmt(x: Optional[float], digits: int = 2) -> str:
	return '-' if x is None else f'{x:.{digits}f}'


def readme(data: dict) -> str:
	"""reports/bench/README.md from bench.json's data."""
	req = data['request']
	out = ['# Benchmarks', '',
	       f'Written by `make bench` (`converter/scoped-uaccess bench`) on {data["date"]}; '
	       f'the figures are in `bench.json`. Host: {data["host"].get("cpus")} CPUs '
	       f'({data["host"].get("cpu") or "unknown"}), load average at the start '
	       f'{" ".join(str(x) for x in data["host"].get("load_average", []))}, shared with '
	       'other builds. Whole run: '
	       f'{data["wall_seconds"]:.0f} s. Converted kernel: build/linux HEAD '
	       f'{data.get("converted_commit", "?")[:12]} (tag `baseline` plus the series '
	       'in `patches/`).', '']
	access, rec = data.get('access'), data['records'].get('access', {})
	if access:
		accel = rec.get('accelerator')
		out += ['## 1. Cost per 8-byte user access (in-kernel)', '',
			f'`testcases/bench/uaccess_bench.c`, a KUnit suite built out of tree against the '
			f'converted kernel (`testcases/kernel/userspace.config` plus '
			f'`testcases/bench/bench.config`) and loaded with insmod in QEMU under '
			f'**{accel}** ({rec.get("accelerator_note")}). '
			f'{rec.get("iterations")} accesses per timed loop between two rdtsc_ordered(), '
			f'{rec.get("repetitions")} rounds over all variants in one boot; figures are '
			f'the median over rounds of cycles per access, with the interquartile range; '
			f'"net" subtracts the bare loop of the same round, the ratio divides by the '
			f'open-coded region of the same round. Masked access in the scopes '
			f'(can_do_masked_user_access()): '
			f'{ {True: "yes", False: "no"}.get(rec.get("masked"), "unknown")}.', '',
			'| variant | what | read cycles (IQR) | net | x open-coded | write cycles (IQR) | net | x open-coded |',
			'|---|---|---|---|---|---|---|---|']
		for variant in VARIANTS:
			cells = []
			for op in OPS:
				e = access.get(variant, {}).get(op)
				if not e:
					cells += ['-', '-', '-']
					continue
				c = e['cycles']
				cells += [f'{c["median"]:.1f} ({c["q1"]:.1f}-{c["q3"]:.1f})',
					  _fmt(e.get('net_cycles_median'), 1),
					  _fmt(e.get(f'ratio_to_{REFERENCE}'))]
			out.append(f'| {variant} | {VARIANT_TEXT[variant]} | ' + ' | '.join(cells) + ' |')
		out += ['', f'Command: `converter/scoped-uaccess bench --section access --iterations '
			f'{req["iterations"]} --repetitions {req["repetitions"]}`; the boot: '
			f'`{rec.get("command")}`; console: `{rec.get("log")}`.', '']
		if accel == Accelerator.TCG.value:
			out += ['**What limits these numbers.** Under TCG the guest\'s TSC is the host\'s '
				'time stamp counter read by the emulator, so "cycles" are host time spent '
				'emulating the loop, not cycles of a CPU executing it. TCG translates '
				'STAC, CLAC and LFENCE into almost nothing (it does not speculate), so '
				'the LFENCE that the open-coded region pays and the masked scope avoids '
				'costs nearly nothing here: the ratios show the instruction count and '
				'call overhead of each accessor under emulation, and say little about '
				'the speculation barrier a real CPU pays. Only KVM (or bare metal) can '
				'measure that; rerun with `--accel kvm` where KVM works.', '']
	sysc, rec = data.get('syscall'), data['records'].get('syscall', {})
	if sysc:
		out += ['## 2. Syscalls: converted against baseline kernel', '',
			f'The bench mode of `testcases/userspace/uaccess_syscalls.c`: '
			f'{rec.get("iterations")} calls each per boot, {rec.get("rounds")} rounds of '
			f'one boot of each kernel, interleaved (baseline, converted, baseline, ...), '
			f'same QEMU settings, under **{rec.get("accelerator")}**. The ratio is the median '
			f'over rounds of converted/baseline ns per call within a round; the range is '
			f'the smallest and largest round; "fastest/fastest" divides the fastest boot '
			f'of the converted kernel by the fastest of the baseline, the boots least '
			f'disturbed by the rest of the host.', '',
			'| syscall | baseline ns/call (median) | converted ns/call (median) | converted/baseline (range) | fastest/fastest |',
			'|---|---|---|---|---|']
		for name in SYSCALLS:
			e = sysc.get(name)
			if e:
				r = e['ratio']
				out.append(f'| {name} | {e["baseline_ns"]["median"]:.0f} | '
					   f'{e["converted_ns"]["median"]:.0f} | '
					   f'{r["median"]:.3f} ({r["min"]:.3f}-{r["max"]:.3f}) | '
					   f'{_fmt(e.get("ratio_of_fastest"), 3)} |')
		kernels = rec.get('kernels', {})
		out += ['']
		for kernel in ('baseline', 'converted'):
			k = kernels.get(kernel, {})
			out.append(f'- {kernel}: `{k.get("command")}` ({k.get("tree")} at '
				   f'{str(k.get("commit"))[:12]}, {k.get("build_dir")})')
		out += ['', 'What limits these numbers: every call runs emulated (TCG), so a '
			'few instructions saved in a user access are lost in the emulation cost of '
			'the whole syscall path; the host is shared, and one boot to the next varies '
			'by more than any difference the conversion could make. Read a ratio as '
			'"no difference measurable" unless its range excludes 1.', '']
	code, rec = data.get('code'), data['records'].get('code', {})
	if code:
		out += ['## 3. Code: size and LFENCE sites of the converted functions (x86_64)', '',
			f'Objects of the files the series converts ({", ".join(rec.get("files", []))}), '
			f'and those including a converted header: {", ".join(rec.get("objects", []))}. '
			f'Baseline objects from `{rec.get("baseline_build")}`, converted from '
			f'`{rec.get("converted_build")}` (both `userspace.config`, gcc). Sizes and '
			f'totals are `{rec.get("bloat_command")}`; LFENCE counts are the LFENCE '
			'instructions of the function plus those in the alternatives '
			'(`.altinstr_replacement`) that patch it, as `barrier_nospec()` is an '
			'alternative.', '',
			f'Total: **{code["total_bytes_delta"]:+d} bytes**, LFENCE sites '
			f'**{code["lfence_before"]} -> {code["lfence_after"]}**.', '',
			'| object | function | source changed | bytes before | after | delta | LFENCE before | after |',
			'|---|---|---|---|---|---|---|---|']
		for f in code['functions'].values():
			out.append(f'| {f["object"]} | {f["function"]} | '
				   f'{"yes" if f["source_changed"] else "no"} | '
				   f'{f["bytes_before"]} | {f["bytes_after"]} | {f["bytes_delta"]:+d} | '
				   f'{f["lfence_before"]} | {f["lfence_after"]} |')
		out += ['', 'A function whose own source the series did not touch ("no") changed '
			'through a converted helper inlined into it, or through the ASM GOTO wrappers '
			'of `unsafe_*_user()` that the series adds to the x86 API.']
		if rec.get('inlined_or_absent'):
			out += ['', 'Changed in the source but without a symbol of their own (inlined '
				'into the functions above): ' + ', '.join(rec['inlined_or_absent']) + '.']
		out += ['', 'The API headers themselves (`include/linux/uaccess.h`, '
			'`arch/x86/include/asm/uaccess.h`) are left out: the series changes them for '
			'every user, which is not a conversion.', '']
	tools, rec = data.get('tools'), data['records'].get('tools', {})
	if tools:
		out += ['## 4. Tools', '',
			f'{rec.get("what")}. Both runs over the same {rec.get("files")} files with '
			f'{rec.get("jobs")} jobs, one after the other in this run; the floor is '
			f'`{rec.get("floor_rule")}`, a rule that matches one call, with the checker\'s '
			'`// Options:`.', '',
			'| figure | seconds | command |', '|---|---|---|',
			f'| checker | {tools["checker_seconds"]} | `{rec.get("checker_command")}` |',
			f'| floor (trivial rule) | {tools["floor_seconds"]} | `{rec.get("floor_command")}` |',
			f'| checker / floor | {_fmt(tools["checker_over_floor"])} | |',
			f'| converter | {_fmt(tools["convert_seconds"], 1)} | '
			f'{rec.get("convert_note", "")} |', '',
			*([f'The converter\'s error: `{rec["convert_error"]}`', '']
			  if rec.get('convert_error') else []),
			'What limits these numbers: wall time on two cores shared with kernel builds '
			'of other engineers; spatch parses each file once per run, so the floor is '
			'mostly parsing and the ratio is what the rule itself adds.', '']
	out += ['## Rerun', '', '    make bench                       # all four sections',
		f'    converter/scoped-uaccess bench --section access --iterations {req["iterations"]} '
		f'--repetitions {req["repetitions"]}',
		'    converter/scoped-uaccess bench --quick      # a smoke run into build/results/bench/', '']
	return '\n'.join(out)


def headline(data: dict) -> str:
	"""One line with the figures README.md quotes."""
	parts = []
	access = data.get('access') or {}
	accel = data['records'].get('access', {}).get('accelerator')
	for op in OPS:
		e = access.get('scoped', {}).get(op)
		if e and 'ratio' in e:
			parts.append(f'scoped {op} x{e["ratio"]["median"]:.2f} of open-coded ({accel})')
	for name, e in (data.get('syscall') or {}).items():
		parts.append(f'{name} x{e["ratio"]["median"]:.3f}')
	code = data.get('code')
	if code:
		parts.append(f'code {code["total_bytes_delta"]:+d} bytes, LFENCE '
			     f'{code["lfence_before"]}->{code["lfence_after"]}')
	tools = data.get('tools')
	if tools and tools.get('checker_over_floor'):
		parts.append(f'checker x{tools["checker_over_floor"]:.2f} of floor')
	return '; '.join(parts) or 'nothing measured'
