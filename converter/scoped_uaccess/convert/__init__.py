# SPDX-License-Identifier: GPL-2.0
"""The converter's driver: spatch passes over a tree, commits, the series, install and regeneration."""
