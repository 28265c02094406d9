# SPDX-License-Identifier: GPL-2.0
"""`make bench`: what the series costs and saves."""
