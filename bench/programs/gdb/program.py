# SPDX-License-Identifier: GPL-2.0
"""gdb disassembling a stretch of cc1's code (gdb reads a file's code from
its sections: the address is cc1's .text)."""

import os

from programs import text_mb, text_section

ORDER = 20
PACKAGES = ['gdb']
DISASM_BYTES = 0x8000


def run():
    cc1 = os.path.realpath('/usr/bin/cc1')
    return {
        'what': 'gdb disassembling %d KB of cc1 (PIE, %s MB text)'
        % (DISASM_BYTES >> 10, text_mb('/usr/bin/gdb')),
        'cmd': ['/usr/bin/gdb', '-nx', '-batch', '-ex',
                'disassemble %#x,+%#x' % (text_section(cc1), DISASM_BYTES),
                cc1]}


PROGRAMS = [{'name': 'gdb', 'target': 'gdb', 'cap': 200, 'arches': None,
             'title': 'gdb (PIE, 6 MB text)', 'run': run}]
