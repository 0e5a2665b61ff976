# SPDX-License-Identifier: GPL-2.0
"""A real JIT: OpenJDK 17's javac compiling a generated source
(scripts/gen-demo-input.py --java); HotSpot's code cache is anonymous
read-write-execute memory."""

from programs import count_in, guest_file

ORDER = 60
PACKAGES = ['openjdk-17-jdk-headless']
INPUT = guest_file('Gen.java')


def run():
    return {
        'what': "OpenJDK 17's javac on a %d-class source (HotSpot: its code "
        'cache, anonymous RWX)' % count_in(INPUT, '\nclass '),
        'cmd': ['/usr/bin/javac', '-d', '/tmp/javac-out', INPUT]}


PROGRAMS = [{'name': 'javac', 'target': None, 'cap': 300,
             'arches': ['x86_64'],
             'title': "OpenJDK 17's javac (HotSpot's code cache, anonymous RWX)",
             'run': run}]
