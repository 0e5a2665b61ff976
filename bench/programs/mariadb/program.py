# SPDX-License-Identifier: GPL-2.0
"""MariaDB 10.11 mariadbd (the measured process) on a fresh copy of a data
directory prepared when the rootfs is built, driven by a client started
beside it: sysbench with 1 or 4 client threads, a fixed number of events
of oltp_read_write and of oltp_point_select, then SHUTDOWN
(sysbench-client), so the server exits on its own when its work is
done."""

from programs import guest_file, text_mb

ORDER = 80
PACKAGES = ['mariadb-server-core', 'mariadb-client-core', 'sysbench']
BIN = '/usr/sbin/mariadbd'
RW_EVENTS, PS_EVENTS = 2000, 20000


def version():
    """'10.11' from the version string in mariadbd's .rodata."""
    try:
        with open(BIN, 'rb') as f:
            data = f.read()
        i = data.index(b'-MariaDB')
        ver = data[data.rindex(b'\0', 0, i) + 1:i].decode()
        return '.'.join(ver.split('.')[:2])
    except (OSError, ValueError, UnicodeDecodeError):
        return '?'


def runner(threads):
    def run():
        return {
            'what': 'MariaDB %s mariadbd, sysbench oltp_read_write %d + '
            'oltp_point_select %d events, %d client thread%s (PIE, %s MB '
            'text)' % (version(), RW_EVENTS, PS_EVENTS, threads,
                       's' if threads > 1 else '', text_mb(BIN)),
            'cmd': [BIN, '--defaults-file=' + guest_file('mariadb.cnf'),
                    '--datadir', '/tmp/mariadb', '--socket',
                    '/tmp/mariadb.sock'],
            'copy': [guest_file('mariadb'), '/tmp/mariadb'],
            'client': [guest_file('sysbench-client'), '/tmp/mariadb.sock',
                       str(threads), str(RW_EVENTS), str(PS_EVENTS)]}
    return run


PROGRAMS = [
    {'name': 'mariadb%d' % n, 'target': 'mariadbd', 'cap': 300,
     'arches': None,
     'title': 'MariaDB 10.11 mariadbd under sysbench, %d client thread%s '
     '(PIE, 9 MB text)' % (n, 's' if n > 1 else ''), 'run': runner(n)}
    for n in (1, 4)]
