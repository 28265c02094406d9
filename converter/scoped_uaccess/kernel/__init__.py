# SPDX-License-Identifier: GPL-2.0
"""The kernel tree and its tools: tree and worktrees, architectures, kbuild, QEMU, packages."""
