# SPDX-License-Identifier: GPL-2.0
"""llc-14, which does its work in a DSO with 97 MB of text
(libLLVM-14.so.1), on generated IR (scripts/gen-demo-input.py)."""

import os

from programs import count_in, guest_file

ORDER = 30
PACKAGES = ['llvm-14']
INPUT = guest_file('bench.ll')


def run():
    return {
        'what': 'llc-14 -O2 on %d IR functions (libLLVM-14.so.1, 97 MB text '
        'DSO)' % count_in(INPUT, 'define '),
        'cmd': [os.path.realpath('/usr/bin/llc-14'), '-O2', INPUT,
                '-o', '/tmp/bench.s']}


PROGRAMS = [{'name': 'llc', 'target': 'libLLVM-14.so.1', 'cap': 200,
             'arches': ['x86_64'],
             'title': 'llc-14 (libLLVM-14.so.1, 97 MB text DSO)', 'run': run}]
