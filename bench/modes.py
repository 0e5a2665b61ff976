# SPDX-License-Identifier: GPL-2.0
"""The reader of modes.list, the modes of make bench (see its header), for
bench/run.sh, report.py and report_itlb.py; and which modes are compared
with which.  Standard library only.
  python3 -B bench/modes.py   one NAME:KERNEL:ARCH:KERNEL COMMAND LINE:THP
                              line per mode (bench/run.sh)"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = os.path.join(HERE, 'modes.list')
THP_ENABLED = ('always', 'madvise', 'never')
KERNEL = re.compile(r'^[0-9][0-9A-Za-z._]*(-stock)?$')
ARCH = re.compile(r'^[a-z][a-z0-9_]*$')


class TableError(Exception):
    pass


def read_modes(path=MODES):
    """[{'name', 'kernel', 'arch', 'thp', 'args', 'title'}], in the
    table's order.  TableError, with FILE:LINE, on a malformed line."""
    modes = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            head, bar, title = line.partition('|')
            f5 = head.split(None, 4)
            if (not bar or len(f5) < 5 or not title.strip()
                    or not KERNEL.match(f5[1]) or not ARCH.match(f5[2])
                    or f5[3] not in THP_ENABLED or ':' in f5[0]
                    or ':' in f5[4]
                    or f5[0] in (m['name'] for m in modes)):
                raise TableError('%s:%d: want a new name, a kernel (a name '
                                 'of scripts/kernels.list, -stock for it '
                                 'without the series), an arch (of '
                                 'scripts/arches.list), THP enabled (%s), '
                                 'the kernel command line, "|", a title'
                                 % (path, n, '/'.join(THP_ENABLED)))
            modes.append({'name': f5[0], 'kernel': f5[1], 'arch': f5[2],
                          'thp': f5[3], 'args': ' '.join(f5[4].split()),
                          'title': title.strip()})
    return modes


def kernel_family(kernel):
    """'7.3' of '7.3-stock': the kernel whose series (or base) it is."""
    return kernel[:-len('-stock')] if kernel.endswith('-stock') else kernel


def family(mode):
    """(arch, kernel family): the modes compared with each other."""
    return mode['arch'], kernel_family(mode['kernel'])


def hugetext_on(mode):
    """Does mode boot with hugetext's text bit set (hugetext=1 or 3; on
    the 7.3 series transparent_hugepage_exec= with file)?"""
    return any(a in ('hugetext=1', 'hugetext=3') or
               (a.startswith('transparent_hugepage_exec=') and
                'file' in a.split('=', 1)[1].split(','))
               for a in mode['args'].split())


def baseline(modes, mode):
    """The mode whose page cache growth mode's extra cache is measured
    against: the first of its kernel family and arch with hugetext off
    and THP madvise (the distribution default), or None."""
    return next((m for m in modes if family(m) == family(mode)
                 and not hugetext_on(m) and m['thp'] == 'madvise'), None)


def bars(modes):
    """[(hugetext mode, THP-always mode)] a kernel family and arch:
    hugetext's first mode without extra knobs (THP madvise) against the
    first mode with THP always and hugetext off, the bar hugetext must
    meet on that kernel."""
    out = []
    for fam in dict.fromkeys(family(m) for m in modes):
        same = [m for m in modes if family(m) == fam]
        ht = next((m for m in same if hugetext_on(m) and m['thp'] == 'madvise'
                   and 'htknobs=' not in m['args']), None)
        al = next((m for m in same if not hugetext_on(m)
                   and m['thp'] == 'always'), None)
        if ht and al:
            out.append((ht, al))
    return out


def main(argv):
    if argv:
        print('usage: modes.py', file=sys.stderr)
        return 2
    try:
        for m in read_modes():
            print('%s:%s:%s:%s:%s' % (m['name'], m['kernel'], m['arch'],
                                      m['args'], m['thp']))
    except (OSError, TableError) as e:
        print('modes.py: %s' % e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
