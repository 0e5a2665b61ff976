# SPDX-License-Identifier: GPL-2.0
"""jitbench (jitbench.c, static): writes anonymous code, makes it
read-execute with mprotect() and calls it, as a JIT does."""

from programs import guest_file

ORDER = 50
PACKAGES = []
MB, SECONDS = 16, 20


def run():
    return {
        'what': 'jitbench: %d MB of anonymous code written, mprotect(R+X), '
        'called for %d s' % (MB, SECONDS),
        'cmd': [guest_file('jitbench'), str(MB), str(SECONDS)]}


PROGRAMS = [{'name': 'jit', 'target': None, 'cap': 120, 'arches': None,
             'title': 'jitbench (16 MB anonymous code)', 'run': run}]
