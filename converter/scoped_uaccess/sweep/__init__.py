# SPDX-License-Identifier: GPL-2.0
"""The fault sweep: two kernels booted with testcases/faultsweep, record by record."""
