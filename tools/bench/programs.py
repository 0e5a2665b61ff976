# SPDX-License-Identifier: GPL-2.0
"""The reader of programs.list, the bench's programs, and of modes.list, its
modes (see their headers), for the guest's bench and the host's bench.sh,
bench-report.py, bench-itlb.py.  Standard library only."""

import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, 'programs.list')
MODES = os.path.join(HERE, 'modes.list')
THP_ENABLED = ('always', 'madvise', 'never')
KERNEL = re.compile(r'^[0-9][0-9A-Za-z._]*(-stock)?$')


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
    """[{'name', 'kernel', 'thp', 'args', 'title'}], in the table's order.
    TableError, with FILE:LINE, on a malformed line."""
    modes = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            head, bar, title = line.partition('|')
            f4 = head.split(None, 3)
            if (not bar or len(f4) < 4 or not title.strip()
                    or not KERNEL.match(f4[1])
                    or f4[2] not in THP_ENABLED or ':' in f4[0]
                    or ':' in f4[3]
                    or f4[0] in (m['name'] for m in modes)):
                raise TableError('%s:%d: want a new name, a kernel (a name '
                                 'of scripts/kernels.list, -stock for it '
                                 'without the series), THP enabled (%s), '
                                 'the kernel command line, "|", a title'
                                 % (path, n, '/'.join(THP_ENABLED)))
            modes.append({'name': f4[0], 'kernel': f4[1], 'thp': f4[2],
                          'args': ' '.join(f4[3].split()),
                          'title': title.strip()})
    return modes


def kernel_family(kernel):
    """'7.3' of '7.3-stock': the kernel whose series (or base) it is."""
    return kernel[:-len('-stock')] if kernel.endswith('-stock') else kernel


def hugetext_on(mode):
    """Does mode boot with hugetext's text bit set (hugetext=1 or 3)?"""
    return any(a in ('hugetext=1', 'hugetext=3') for a in mode['args'].split())


def baseline(modes, mode):
    """The mode whose page cache growth mode's extra cache is measured
    against: the first of its kernel family with hugetext off and THP
    madvise (the distribution default), or None."""
    return next((m for m in modes
                 if kernel_family(m['kernel']) == kernel_family(mode['kernel'])
                 and not hugetext_on(m) and m['thp'] == 'madvise'), None)


def bars(modes):
    """[(hugetext mode, THP-always mode)] a kernel family: hugetext's first
    mode without extra knobs (THP madvise) against the first mode with THP
    always and hugetext off, the bar hugetext must meet on that kernel."""
    out = []
    for fam in dict.fromkeys(kernel_family(m['kernel']) for m in modes):
        same = [m for m in modes if kernel_family(m['kernel']) == fam]
        ht = next((m for m in same if hugetext_on(m) and m['thp'] == 'madvise'
                   and 'htknobs=' not in m['args']), None)
        al = next((m for m in same if not hugetext_on(m)
                   and m['thp'] == 'always'), None)
        if ht and al:
            out.append((ht, al))
    return out


def main(argv):
    """For scripts/bench.sh: 'names' prints the programs' names joined by
    commas, 'modes' one NAME:KERNEL:KERNEL COMMAND LINE:THP line per
    mode."""
    import sys
    try:
        if argv == ['names']:
            print(','.join(p['name'] for p in read()))
        elif argv == ['modes']:
            for m in read_modes():
                print('%s:%s:%s:%s' % (m['name'], m['kernel'], m['args'],
                                       m['thp']))
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
