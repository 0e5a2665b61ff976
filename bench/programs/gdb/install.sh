# SPDX-License-Identifier: GPL-2.0
# a real PIE with 6 MB of text and 50-odd DSOs: Debian's gdb (the tests and
# make demo run it too)
copy_with_libs "$H/usr/bin/gdb"
