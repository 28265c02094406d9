# SPDX-License-Identifier: GPL-2.0
"""The userspace tests of testcases/userspace booted in QEMU, and two kernels' runs compared."""
