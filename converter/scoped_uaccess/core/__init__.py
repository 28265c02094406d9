# SPDX-License-Identifier: GPL-2.0
"""The ground floor: the command runner, typed errors, paths, outcomes."""
