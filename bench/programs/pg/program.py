# SPDX-License-Identifier: GPL-2.0
"""PostgreSQL 15 postgres --single on a fresh copy of a data directory
made when the rootfs is built, reading a fixed query mix (queries.sql)
from stdin, as the directory's unprivileged owner."""

from programs import guest_file, text_mb

ORDER = 40
PACKAGES = ['postgresql-15']
BIN = '/usr/lib/postgresql/15/bin/postgres'


def run():
    return {
        'what': 'PostgreSQL 15 postgres --single, a fixed query mix from '
        'stdin (PIE, %s MB text)' % text_mb(BIN),
        'cmd': [BIN, '--single', '-D', '/tmp/pgdata', '-c', 'timezone=UTC',
                '-c', 'fsync=off', '-c', 'jit=off', 'postgres'],
        'env': {'LD_PRELOAD': guest_file('noitimer.so')},  # noitimer.c says why
        'stdin': guest_file('pg-queries.sql'),
        'copy': [guest_file('pgdata'), '/tmp/pgdata'],
        'user': 'owner-of-copy'}


PROGRAMS = [{'name': 'pg', 'target': 'postgres', 'cap': 300, 'arches': None,
             'title': 'PostgreSQL 15 postgres --single (PIE, 5 MB text)',
             'run': run}]
