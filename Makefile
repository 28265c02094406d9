# SPDX-License-Identifier: GPL-2.0
# Thin wrapper: every target calls the CLI, converter/scoped-uaccess.
#
#   make                  deps, tree, kunit (gcc), report; results in build/results/
#   make test             every gate, with a summary table
#   make report           the checker, cocci/scoped_uaccess_*.cocci, over KDIR, triaged:
#                         reports/linux-<version>/
#   make check-cocci      the checker corpus testcases/cocci
#   make convert          the conversion series of KDIR's core series: build/results/convert/
#   make convert-install  ... and put it into patches/ and reports/linux-<version>/
#   make validate         build, sparse, objtool and boot the converted KDIR, fault sweep
#   make faultsweep       the fault sweep alone: build/results/faultsweep/
#   make faultsweep-install  ... and reports/linux-<version>/faultsweep.{json,md}
#   make faultsweep-mutate   inject bugs into one converted region, show what reports them
#   make bench            benchmarks: reports/bench/bench.json and README.md
#   make kunit CC=clang-14
#   make tree FORCE=1     discard a dirty or diverged tree in KDIR
#
# Variables: KDIR (default build/linux), CC (gcc, clang-14, clang-19),
# ACCEL (auto, kvm, tcg), FORCE=1, DRY_RUN=1.

PYTHON := /usr/bin/python3
CLI := $(PYTHON) converter/scoped-uaccess
KDIR ?= build/linux
# make's built-in default CC is `cc`; ours is gcc.
ifeq ($(origin CC),default)
CC := gcc
endif
ACCEL ?= auto
truthy = $(filter 1 y yes true,$(1))
GLOBAL := $(if $(call truthy,$(DRY_RUN)),--dry-run)
FORCE_OPT := $(if $(call truthy,$(FORCE)),--force)

# The steps share one kernel tree and build directories: never in parallel.
.NOTPARALLEL:
.PHONY: all deps tree kunit negative sparse checkpatch cross bisect unittest hostile test help \
	report check-cocci bench stress
.PHONY: convert convert-install convert-regen validate
.PHONY: faultsweep faultsweep-install faultsweep-mutate

all: deps tree kunit report convert validate
	@echo "Results: build/results/kunit-$(CC).log (console) and kunit-$(CC).json (parsed)"
	@echo "Checker report: reports/linux-6.12.118/summary.md (report.txt, findings.json, findings.sarif)"
	@echo "Conversion: series build/results/convert/*.patch (committed: patches/, after the core series);"
	@echo "  table build/results/convert/conversion.json, summary.md (committed: reports/linux-6.12.118/conversion.*)"
	@echo "Validation: build/results/validate.txt; boots build/results/userspace-{validate-baseline,converted}.log"

deps:
	$(CLI) $(GLOBAL) deps

tree:
	$(CLI) $(GLOBAL) tree --kdir $(KDIR) $(FORCE_OPT)

kunit:
	$(CLI) $(GLOBAL) kunit --kdir $(KDIR) --cc $(CC) --accel $(ACCEL)

negative:
	$(CLI) $(GLOBAL) negative

sparse:
	$(CLI) $(GLOBAL) sparse --kdir $(KDIR)

checkpatch:
	$(CLI) $(GLOBAL) checkpatch --kdir $(KDIR)

cross:
	$(CLI) $(GLOBAL) cross --kdir $(KDIR)

bisect:
	$(CLI) $(GLOBAL) bisect --kdir $(KDIR)

unittest:
	$(CLI) $(GLOBAL) unittest

hostile:
	$(CLI) $(GLOBAL) hostile

report:
	$(CLI) $(GLOBAL) report --kdir $(KDIR)

check-cocci:
	$(CLI) $(GLOBAL) check-cocci --kdir $(KDIR)

stress:
	$(CLI) $(GLOBAL) stress --kdir $(KDIR)

bench:
	$(CLI) $(GLOBAL) bench --kdir $(KDIR) --accel $(ACCEL)

convert:
	$(CLI) $(GLOBAL) convert --tree $(KDIR) --core

convert-install:
	$(CLI) $(GLOBAL) convert --tree $(KDIR) --install

convert-regen:
	$(CLI) $(GLOBAL) convert-regen --tree $(KDIR)

validate:
	$(CLI) $(GLOBAL) validate --kdir $(KDIR) --accel $(ACCEL)

faultsweep:
	$(CLI) $(GLOBAL) faultsweep --kdir $(KDIR) --accel $(ACCEL)

faultsweep-install:
	$(CLI) $(GLOBAL) faultsweep --kdir $(KDIR) --accel $(ACCEL) --install

faultsweep-mutate:
	$(CLI) $(GLOBAL) faultsweep-mutate --kdir $(KDIR) --accel $(ACCEL)

test:
	$(CLI) $(GLOBAL) test --kdir $(KDIR) --accel $(ACCEL) $(FORCE_OPT)

help:
	@$(CLI) --help
