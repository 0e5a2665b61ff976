# SPDX-License-Identifier: GPL-2.0
"""node 20 (V8) running work.js: maps, regexes, sorting and JSON for a
fixed time."""

from programs import guest_file

ORDER = 70
PACKAGES = ['nodejs']
SECONDS = 15


def run():
    return {
        'what': 'node (V8) running work.js for %d s (ET_EXEC, 27 MB text)'
        % SECONDS,
        'cmd': ['/usr/bin/node', guest_file('work.js'), str(SECONDS)]}


PROGRAMS = [{'name': 'node', 'target': 'node', 'cap': 200,
             'arches': ['x86_64'],
             'title': 'node 20 running a JS workload (ET_EXEC, 27 MB text)',
             'run': run}]
