# SPDX-License-Identifier: GPL-2.0
"""scoped-uaccess: build, boot and check the scoped user access series."""

# The rooms (subpackages) on their floors, lowest first: a module imports
# from its own room and the rooms below it only (tests/test_layout.py).
# cocci holds the Coccinelle plumbing both tools share (API names, the
# spatch runner, the header index); analysis is the code
# convert_scoped_uaccess.cocci imports inside spatch, and imports nothing
# but cocci and core; checker and convert are the two tools' drivers.
FLOORS = ('core', 'kernel', 'cocci', 'analysis', 'checker', 'convert', 'post', 'kunit',
	  'userspace', 'sweep', 'gates', 'bench', 'cli')
