# SPDX-License-Identifier: GPL-2.0
"""reports/bench/README.md from bench.json: the tables, the commands, what limits them."""

from typing import Optional

from scoped_uaccess.bench import native as native_section
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
	kept = [f'{name} ({rec.get("date")}, HEAD {(rec.get("converted_commit") or "?")[:12]})'
		for name, rec in data['records'].items()
		if name not in req.get('sections', []) and rec.get('date')]
	if kept:
		out += [f'This run redid {", ".join(req.get("sections", []))} (`--section`); kept '
			'from earlier runs: ' + ', '.join(kept) + '.', '']
	out += _native(data)
	access, rec = data.get('access'), data['records'].get('access', {})
	if access:
		accel = rec.get('accelerator')
		out += ['## 2. Cost per 8-byte user access (in-kernel)', '',
			f'`testcases/bench/uaccess_bench.c`, a KUnit suite built out of tree against the '
			f'converted kernel (`testcases/kernel/x86_64.config` plus '
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
		out += ['## 3. Syscalls: converted against baseline kernel', '',
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
		out += ['## 4. Code: size and LFENCE sites of the converted functions (x86_64)', '',
			f'Objects of the files the series converts ({", ".join(rec.get("files", []))}), '
			f'and those including a converted header: {", ".join(rec.get("objects", []))}. '
			f'Baseline objects from `{rec.get("baseline_build")}`, converted from '
			f'`{rec.get("converted_build")}` (both `x86_64.config`, gcc). Sizes and '
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
		out += _tree_wide(code.get('tree'), rec)
	out += _tools(data)
	out += ['## Rerun', '', '    make bench                       # all five sections',
		'    converter/scoped-uaccess bench --section native    # section 1 alone, a few seconds',
		f'    converter/scoped-uaccess bench --section access --iterations {req["iterations"]} '
		f'--repetitions {req["repetitions"]}',
		'    converter/scoped-uaccess bench --quick      # a smoke run into build/results/bench/', '']
	return '\n'.join(out)


def _tools(data: dict) -> list[str]:
	"""Section 5: the checker prefiltered, the checker as coccicheck runs it
	over the whole tree, the converter; each against a floor."""
	tools, rec = data.get('tools'), data['records'].get('tools', {})
	if not tools:
		return []
	out = ['## 5. Tools', '',
	       f'{rec.get("what")}. Both runs over the same {rec.get("files")} files with '
	       f'{rec.get("jobs")} jobs, one after the other in this run; the floor is '
	       f'`{rec.get("floor_rule")}`, a rule that matches one call, with the checker\'s '
	       '`// Options:`.', '',
	       '| figure | seconds | command |', '|---|---|---|',
	       f'| checker, files that use the API (`make report`) | {tools["checker_seconds"]} | '
	       f'`{rec.get("checker_command")}` |',
	       f'| floor (trivial rule) | {tools["floor_seconds"]} | `{rec.get("floor_command")}` |',
	       f'| checker / floor | {_fmt(tools["checker_over_floor"])} | |']
	whole_tree = 'coccicheck_seconds' in tools
	if whole_tree:
		runs = rec.get('coccicheck_floor_runs') or []
		out += [f'| `make coccicheck`, the checker\'s '
			f'{_scripts(tools.get("coccicheck_scripts"))} | {_fmt(tools["coccicheck_seconds"], 1)} | '
			f'`{rec.get("coccicheck_command")}` |',
			f'| `make coccicheck`, floor (median of {len(runs)} runs) | '
			f'{_fmt(tools.get("coccicheck_floor_seconds"), 1)} | '
			f'`{rec.get("coccicheck_floor_command")}` |',
			f'| coccicheck: checker / floor | {_fmt(tools.get("coccicheck_over_floor"))} | |']
		if len(tools.get('coccicheck_scripts') or {}) > 1:
			out.append(f'| coccicheck: one script / floor (mean) | '
				   f'{_fmt(tools.get("coccicheck_script_over_floor"))} | |')
	if 'coccicheck_6_1_seconds' in tools:
		runs = rec.get('coccicheck_6_1_floor_runs') or []
		out += [f'| `make coccicheck` over {rec.get("coccicheck_6_1_tree")}, the '
			f'{_scripts(tools.get("coccicheck_6_1_scripts"))} | '
			f'{_fmt(tools["coccicheck_6_1_seconds"], 1)} | '
			f'`{rec.get("coccicheck_6_1_command")}` |',
			f'| the same tree, floor (median of {len(runs)} runs) | '
			f'{_fmt(tools.get("coccicheck_6_1_floor_seconds"), 1)} | '
			f'`{rec.get("coccicheck_6_1_floor_command")}` |',
			f'| the same tree: checker / floor | '
			f'{_fmt(tools.get("coccicheck_6_1_over_floor"))} | |']
	out.append(f'| converter | {_fmt(tools["convert_seconds"], 1)} | '
		   f'{rec.get("convert_note", "")} |')
	if 'convert_over_floor' in tools:
		out += [f'| converter floor (trivial rule) | {_fmt(tools.get("convert_floor_seconds"), 1)} | '
			f'`{rec.get("convert_floor_command")}` |',
			f'| converter / floor | {_fmt(tools.get("convert_over_floor"))} | |']
	out.append('')
	if rec.get('convert_error'):
		out += [f'The converter\'s error: `{rec["convert_error"]}`', '']
	if whole_tree:
		out += _coccicheck_text(tools, rec)
	if 'convert_over_floor' in tools:
		out += [f'The converter\'s floor is `{rec.get("floor_rule")}`, one spatch per file, over '
			f'the files the converter works on, with the converter\'s jobs '
			f'({rec.get("convert_floor_what")}): the converter runs its rules several '
			'times on each of them, then the checker on what it rewrote, and exports the '
			'series with git and checkpatch.', '']
	out += ['What limits these numbers: wall time on two cores shared with kernel builds '
		'of other engineers; spatch parses each file once per run, so a floor given the '
		'files is mostly parsing and the ratio is what the rules themselves add.', '']
	return out


def _scripts(scripts: Optional[dict]) -> str:
	"""How many checker scripts a coccicheck figure covers."""
	n = len(scripts or {})
	return 'script' if n == 1 else f'{n} scripts, summed'


def _coccicheck_text(tools: dict, rec: dict) -> list[str]:
	"""What the coccicheck rows measure, and where a run's time goes."""
	matched = rec.get('coccicheck_files_matched') or {}
	floor_files = sorted({n for k, n in matched.items() if k.startswith('floor') and n is not None})
	scripts = tools.get('coccicheck_scripts') or {}

	def kept(name: str) -> str:
		return f' ({matched[name]} files)' if matched.get(name) is not None else ''
	out = [f'{rec.get("coccicheck_what")}. Every run hands spatch the whole tree; spatch '
	       f'keeps, of its {rec.get("coccicheck_tree_files")} .c and .h files, those '
	       'holding the tokens of the script\'s gate rule (the one its other rules depend '
	       f'on), and runs the rules on them. The floor, `{rec.get("coccicheck_floor_rule")}`, '
	       'is such a gate rule alone: '
	       'every name that marks a user of the API (begins, ends, scopes; `api.words()`) '
	       'as a literal token, so that spatch chooses its files as it does for the '
	       'checker (a regular expression would make it read every file through the '
	       'rule), and a script that does nothing with a match. A floor run precedes '
	       'each script\'s run and follows the last. Seconds and files kept per script: '
	       + ', '.join(f'{k} {_fmt(v, 1)} s{kept(k)}' for k, v in scripts.items())
	       + '; floor runs: '
	       + ', '.join(f'{x:.1f}' for x in rec.get('coccicheck_floor_runs', [])) + ' s'
	       + (f' ({" or ".join(str(n) for n in floor_files)} files)' if floor_files else '')
	       + f'. Logs: `{rec.get("coccicheck_logs")}/`.', '']
	profile = rec.get('coccicheck_floor_profile') or {}
	if profile.get('total') and 'infiles' in profile:
		share = profile['infiles'] / profile['total']
		out += [f'Where a run\'s time goes, `{rec.get("coccicheck_profile_command")}`: of '
			f'{profile["total"]:.1f} s, {profile["infiles"]:.1f} s choosing the files '
			f'(`Main.infiles computation`) and {profile.get("outfiles", 0):.1f} s running '
			f'the rule on them (`Main.outfiles computation`). spatch {rec.get("spatch", "")} '
			'chooses them in a git tree with one `git grep -l -w ( -e NAME ... )` over the '
			'whole tree, a regular-expression search'
			+ (', and that is most of a run: a checker of one script pays it once, '
			   'and what its rules add is the rest of the checker\'s figure. '
			   if share > 0.5 else '. ')
			+ 'Files: the `N files match` line of each log.', '']
	return out


def _native(data: dict) -> list[str]:
	"""Section 1: region entry and exit of the kernel's headers on this CPU."""
	native, rec = data.get('native'), data['records'].get('native', {})
	if not native:
		return []
	trees = rec.get('trees', {})
	base, series = trees.get('baseline', {}), trees.get('series', {})
	facts = rec.get('cpu_facts', {})
	ns = native_section
	out = ['## 1. Region entry and exit on this CPU (native)', '',
	       'How much a masked begin saves against the checked one, measured natively '
	       '(not in QEMU) with the kernel\'s own instruction sequences. '
	       '`testcases/bench/native/native_regions.c` holds one function per region: '
	       'a begin, 1, 2 or 8 `unsafe_get_user()` or `unsafe_put_user()` of 8 bytes, '
	       'the end. kbuild compiles it against the tree\'s headers and '
	       '`x86_64.config` with the kernel\'s flags (minus ftrace, the return and '
	       'indirect-branch thunks and the stack protector, which need a running '
	       'kernel and lie outside the region), as built-in code, so the begin reads '
	       '`USER_PTR_MAX` as a runtime constant; `native_bench.c` links it into a '
	       'userspace program which first does what the kernel does at boot: it '
	       'applies the alternatives and the runtime constant. **STAC and CLAC fault '
	       'outside ring 0, so they are replaced by NOPs of the same length (3 bytes)**; '
	       '`barrier_nospec()` becomes the LFENCE a CPU with `LFENCE_RDTSC` runs.', '',
	       f'- `checked`: {ns.BEGIN_TEXT["checked"]} (6.12, tag `baseline`)',
	       f'- `masked`: {ns.BEGIN_TEXT["masked"]} (6.12, tag `baseline`)',
	       f'- `scoped`: {ns.BEGIN_TEXT["scoped"]} (the series, its own build; its '
	       'accessors go through the series\' ASM GOTO wrappers)',
	       '- `empty`: a function that returns at once: the call, the return and the '
	       'loop that every sequence pays as well (the floor)', '',
	       f'CPU: **{ns._cpu_text(facts)}** ({", ".join(facts.get("flags", []))}), '
	       f'program pinned to CPU {rec.get("cpu")} with sched_setaffinity(); '
	       f'{rec.get("warmup")} warm-up rounds, then {rec.get("rounds")} rounds, each '
	       f'timing {rec.get("regions")} calls of every sequence in a row (order rotated '
	       'per round) between `LFENCE; RDTSC; LFENCE` and `RDTSCP; LFENCE`. Figures are '
	       'TSC cycles per region: the minimum (the least disturbed round: the other '
	       'core runs other jobs) and the median over rounds.', '',
	       '| op | accesses | checked min | median | masked min | median | masked/checked (median) | (min) | saved per region (median) | scoped median |',
	       '|---|---|---|---|---|---|---|---|---|---|']
	ratios = native.get('ratio_masked_over_checked', {})
	saved = native.get('saved_cycles_per_region', {})
	for op in ns.OPS:
		for count in ns.COUNTS:
			key = f'{op}_{count}'
			c = native.get(ns.sequence_name('checked', op, count), {})
			m = native.get(ns.sequence_name('masked', op, count), {})
			sc = native.get(ns.sequence_name('scoped', op, count), {})
			r = ratios.get(key, {})
			out.append(f'| {op} | {count} | {_fmt(c.get("cycles_min"))} | '
				   f'{_fmt(c.get("cycles_median"))} | {_fmt(m.get("cycles_min"))} | '
				   f'{_fmt(m.get("cycles_median"))} | {_fmt(r.get("median"), 3)} | '
				   f'{_fmt(r.get("min"), 3)} | {_fmt(saved.get(key, {}).get("median"))} | '
				   f'{_fmt(sc.get("cycles_median"))} |')
	floor = native.get(ns.FLOOR, {})
	out += ['', f'Floor (`empty`): {_fmt(floor.get("cycles_min"))} min, '
		f'{_fmt(floor.get("cycles_median"))} median; every figure above includes it. '
		'"saved" is checked minus masked of the medians. The scoped figures come from '
		'a separate run of the program built against the series; there, '
		'scoped/masked (median) is ' + ', '.join(
			f'{k} {_fmt(v.get("median"), 3)}'
			for k, v in native.get('ratio_scoped_over_masked', {}).items()) + '.', '',
		'Commands (the section: `converter/scoped-uaccess bench --section native`):', '']
	same = native.get('same_code')
	if same:
		scoped, series_same = same.get('scoped_as_masked', {}), same.get('series_as_baseline', {})
		out[-2:-2] = [_same_code_text(scoped, series_same, rec.get('same_code_command')), '']
	for name, t in (('baseline', base), ('series', series)):
		if t:
			out += [f'- {name}: `{t.get("build_command")}`; `{t.get("link_command")}`; '
				f'`{t.get("run_command")}` (output: `{t.get("output")}`; patched: '
				+ ', '.join(f'{k} {v}' for k, v in t.get('patched', {}).items()) + ')']
	estimate = native.get('estimate')
	if estimate:
		out += ['', '**Estimate**, per converted x86_64 syscall path whose region the series '
			'moves from the checked begin to a masked scope: region entries per call '
			'(from the code) times the cycles one region saves above, for the measured '
			'sequence nearest to the region. It is an estimate: the region\'s real '
			'accesses differ (atomic ops, string copies), and in a syscall the LFENCE waits '
			'for whatever the path has in flight, which this loop does not model. '
			'"LFENCE" is the count in the functions before and after the series, from '
			'section 4 (`-` when that section did not run).', '',
			'| syscall path | region entries per call | nearest sequence | est. TSC cycles saved per call (median) | (min) | LFENCE before -> after | where |',
			'|---|---|---|---|---|---|---|']
		for name, e in estimate.items():
			lf = ('-' if e.get('lfence_before') is None
			      else f'{e["lfence_before"]} -> {e["lfence_after"]}')
			out.append(f'| {name} | {e["regions_per_call"]} | {e["sequence"]} | '
				   f'{_fmt(e["saved_cycles_median"], 1)} | {_fmt(e["saved_cycles_min"], 1)} | '
				   f'{lf} | {e["where"]} |')
		out += ['', 'Not listed: pselect6 (its region was masked in 6.12 already), the futex '
			'value reads (6.12\'s out-of-line `__get_user_4` masks and has no LFENCE; '
			'the series inlines it, which saves the call only). The paths that '
			'keep an LFENCE (section 4 lists them) are not converted.']
	out += ['', '**What limits these numbers.** TSC cycles are not core cycles: the TSC '
		'ticks at a constant rate while the core clock may boost. '
		+ ('The CPU reports `hypervisor`: this is a virtual machine, whose instructions '
		   '(LFENCE included) run natively, without an exit, but whose vCPU can be '
		   'descheduled by the host, which the minimum filters out. '
		   if 'hypervisor' in facts.get('flags', []) else '')
		+ 'STAC and CLAC are not timed (NOPs here); where SMAP is on they add their '
		'own cost to both begins alike. The loop keeps the user data in L1 and little '
		'else in flight, so an LFENCE here waits only for the previous region\'s '
		'accesses; in a syscall it may wait longer. '
		+ (f'The TSC advanced in steps of {base["tsc_step"]} here, '
		   f'{base["tsc_step"] / max(rec.get("regions") or 1, 1):.2f} per region of a timed call. '
		   if base.get('tsc_step', 1) > 1 else '')
		+ f'The compiler is the kernel build\'s, {base.get("compiler") or "unknown"}'
		+ (': it has `CONFIG_GCC_ASM_GOTO_OUTPUT_BROKEN`, so `unsafe_get_user()` tests '
		   'an error register after each load, as the kernel built with it does; a '
		   'compiler with working asm goto outputs saves that test in both begins alike.'
		   if base.get('asm_goto_output_broken') else '.'), '']
	return out


def _tree_wide(tree: Optional[dict], rec: dict) -> list[str]:
	"""Section 4, second part: every object with a user access region."""
	if not tree:
		return []
	out = ['### Every object with a user access region', '',
	       'Every object compiled into the two builds (not the composites that link them, '
	       'not boot, real-mode or vDSO code) whose `.altinstructions` patch a STAC '
	       '(`X86_FEATURE_SMAP`, from the tree\'s `cpufeatures.h`): that is, every object '
	       'that opens a user access region, converted or not. LFENCE sites are the '
	       '`barrier_nospec()` alternatives plus the LFENCE instructions of `objdump -d`; '
	       'bytes are 3 per LFENCE, and the executable sections of those objects '
	       f'(`.altinstr_replacement` aside). Command: {rec.get("tree_command")}.', '',
	       '| | baseline | converted |', '|---|---|---|',
	       f'| objects with a region | {tree["objects_before"]} | {tree["objects_after"]} |',
	       f'| region entries (STAC sites) | {tree["regions_before"]} | {tree["regions_after"]} |',
	       f'| LFENCE sites | {tree["lfence_before"]} | {tree["lfence_after"]} |',
	       f'| LFENCE bytes | {tree["lfence_bytes_before"]} | {tree["lfence_bytes_after"]} |',
	       f'| code bytes of the {tree.get("text_bytes_objects")} of them both builds compile | '
	       f'{tree["text_bytes_before"]} | '
	       f'{tree["text_bytes_after"]} ({tree["text_bytes_after"] - tree["text_bytes_before"]:+d}) |',
	       '']
	if tree.get('objects_one_side'):
		out += ['Compiled in one build only (not in the code bytes): '
			+ ', '.join(f'`{o}`' for o in tree['objects_one_side'])
			+ '.', '']
	functions = tree.get('lfence_functions', {})
	if functions:
		out += ['Functions whose LFENCE count changes:', '',
			'| object | function | LFENCE before | after | bytes before | after |',
			'|---|---|---|---|---|---|']
		for f in functions.values():
			out.append(f'| {f["object"]} | {f["function"]} | {f["lfence_before"]} | '
				   f'{f["lfence_after"]} | {_fmt(f["bytes_before"], 0)} | '
				   f'{_fmt(f["bytes_after"], 0)} |')
		out.append('')
	remaining = [(rel, o) for rel, o in tree.get('objects', {}).items() if o['lfence_after']]
	if remaining:
		out += ['LFENCE sites left after the series, per object: ' + ', '.join(
			f'{rel} {o["lfence_after"]}' for rel, o in remaining) + '.', '']
	return out


def _same_code_text(scoped: dict, series_same: dict, command: Optional[str]) -> str:
	def count(d: dict) -> str:
		same = sum(1 for v in d.values() if v)
		return 'all' if same == len(d) else f'{same} of'
	differ = [k for k, v in {**scoped, **series_same}.items() if not v]
	return (f'Instruction for instruction (`{command}`), the series\' scope compiles to the '
		f'same code as 6.12\'s masked begin in {count(scoped)} {len(scoped)} sequences, '
		f'and the series\' checked and masked regions to the same code as 6.12\'s in '
		f'{count(series_same)} {len(series_same)}'
		+ (f' (not: {", ".join(differ)}).' if differ else
		   ': where the same code differs in time above, it is where the code lies '
		   '(alignment, branch prediction), not what it is.'))


def headline(data: dict) -> str:
	"""One line with the figures README.md quotes."""
	parts = []
	native = data.get('native') or {}
	for key in ('read_1', 'write_1'):
		r = native.get('ratio_masked_over_checked', {}).get(key)
		if r:
			parts.append(f'native masked/checked {key} x{r["median"]:.2f}')
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
	if tools and tools.get('coccicheck_over_floor'):
		parts.append(f'coccicheck x{tools["coccicheck_over_floor"]:.2f} of floor')
	if tools and tools.get('convert_over_floor'):
		parts.append(f'converter x{tools["convert_over_floor"]:.2f} of floor')
	return '; '.join(parts) or 'nothing measured'
