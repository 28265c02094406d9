# SPDX-License-Identifier: GPL-2.0
"""Posting: a tree's series as one series per maintainer tree, in the sender's name."""
