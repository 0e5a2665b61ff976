# SPDX-License-Identifier: GPL-2.0
"""The reader of programs.list, the bench's programs (see its header), for
the guest's bench and the host's bench.sh, bench-report.py, bench-itlb.py.
Standard library only."""

import os

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     'programs.list')


class TableError(Exception):
    pass


def read(path=TABLE):
    """[{'name', 'target' (None: anonymous code), 'cap', 'title'}], in the
    table's order.  TableError, with FILE:LINE, on a malformed line."""
    progs = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            f4 = line.split(None, 3)
            if (len(f4) < 4 or not f4[2].isdigit()
                    or f4[0] in (p['name'] for p in progs)):
                raise TableError('%s:%d: want a new name, target, cap '
                                 '(seconds), title' % (path, n))
            progs.append({'name': f4[0], 'cap': int(f4[2]),
                          'target': None if f4[1] == '-' else f4[1],
                          'title': f4[3].strip()})
    return progs
