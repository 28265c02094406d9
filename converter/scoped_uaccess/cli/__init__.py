# SPDX-License-Identifier: GPL-2.0
"""The command line: arguments in, requests to the stages, exit status out."""
