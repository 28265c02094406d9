# SPDX-License-Identifier: GPL-2.0
"""scoped-uaccess: build, boot and check the scoped user access series."""
