# SPDX-License-Identifier: GPL-2.0
"""KUnit in QEMU: the kernels, KTAP, the expected results of the suites."""
