# SPDX-License-Identifier: GPL-2.0
"""The converter: open-coded regions to scopes, one reviewed patch per subsystem."""
