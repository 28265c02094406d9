# SPDX-License-Identifier: GPL-2.0
"""Kernel behaviour tested in QEMU: KUnit, KTAP, the userspace test programs."""
