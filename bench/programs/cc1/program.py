# SPDX-License-Identifier: GPL-2.0
"""gcc's cc1 compiling the kernel's scheduler (kernel/sched/core.c,
preprocessed by this arch's kernel build, with its code-generation
options; install.sh)."""

import os

from programs import guest_file, read_text, text_mb

ORDER = 10
PACKAGES = ['cpp-12']      # cc1 (the host's gcc has it too)
INPUT = guest_file('cc1-input.i')
FLAGS = guest_file('cc1-input.flags')


def run():
    cc1 = os.path.realpath('/usr/bin/cc1')
    return {
        'what': "gcc's cc1 compiling the kernel's kernel/sched/core.c "
        '(%.1f MB preprocessed, the kernel build\'s options; ET_EXEC, '
        '%s MB text)' % (os.path.getsize(INPUT) / (1 << 20), text_mb(cc1)),
        'cmd': [cc1, '-quiet', '-fpreprocessed', '-w']
        + read_text(FLAGS, '').split() + [INPUT, '-o', '/tmp/big.s']}


PROGRAMS = [{'name': 'cc1', 'target': 'cc1', 'cap': 300, 'arches': None,
             'title': "gcc's cc1 (ET_EXEC, 20 MB text)", 'run': run}]
