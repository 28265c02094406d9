# SPDX-License-Identifier: GPL-2.0
"""The converter's analysis: the code convert_scoped_uaccess.cocci imports inside spatch."""
