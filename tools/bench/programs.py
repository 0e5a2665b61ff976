# SPDX-License-Identifier: GPL-2.0
"""The reader of programs.list, the bench's programs, and of modes.list, its
modes (see their headers), for the guest's bench and the host's bench.sh,
bench-report.py, bench-itlb.py.  Standard library only."""

import os

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, 'programs.list')
MODES = os.path.join(HERE, 'modes.list')
THP_ENABLED = ('always', 'madvise', 'never')


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


def read_modes(path=MODES):
    """[{'name', 'thp', 'args', 'title'}], in the table's order.
    TableError, with FILE:LINE, on a malformed line."""
    modes = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            head, bar, title = line.partition('|')
            f3 = head.split(None, 2)
            if (not bar or len(f3) < 3 or not title.strip()
                    or f3[1] not in THP_ENABLED or ':' in f3[0]
                    or ':' in f3[2]
                    or f3[0] in (m['name'] for m in modes)):
                raise TableError('%s:%d: want a new name, THP enabled (%s), '
                                 'the kernel command line, "|", a title'
                                 % (path, n, '/'.join(THP_ENABLED)))
            modes.append({'name': f3[0], 'thp': f3[1],
                          'args': ' '.join(f3[2].split()),
                          'title': title.strip()})
    return modes


def main(argv):
    """For scripts/bench.sh: 'names' prints the programs' names joined by
    commas, 'modes' one NAME:KERNEL COMMAND LINE:THP line per mode."""
    import sys
    try:
        if argv == ['names']:
            print(','.join(p['name'] for p in read()))
        elif argv == ['modes']:
            for m in read_modes():
                print('%s:%s:%s' % (m['name'], m['args'], m['thp']))
        else:
            print('usage: programs.py names|modes', file=sys.stderr)
            return 2
    except (OSError, TableError) as e:
        print('programs.py: %s' % e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    import sys
    sys.exit(main(sys.argv[1:]))
