# SPDX-License-Identifier: GPL-2.0
"""The gates of `make test` that build and check the series."""
