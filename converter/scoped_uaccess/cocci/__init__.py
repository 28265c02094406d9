# SPDX-License-Identifier: GPL-2.0
"""Coccinelle: the API names, spatch, the checker, the report and the converter."""
