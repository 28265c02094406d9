# SPDX-License-Identifier: GPL-2.0
"""The checker: check, findings, the triaged report, review, stress, shipping the script."""
