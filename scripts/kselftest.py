#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One source for each series' kselftest.

kselftest/ holds the sources the series' selftest patch (the last of each
series) puts in tools/testing/selftests/mm/, once: kselftest/*.c and *.h
are both series', kselftest/KERNEL/ (a name of scripts/kernels.list)
holds what only that series has.  A name is in one place only: a
series' directory adds files, it never overrides a shared one.

  kselftest.py files KERNEL         what KERNEL's tree gets, "SOURCE DEST"
  kselftest.py write KERNEL [TREE]  copy them into TREE's selftests/mm
  kselftest.py check KERNEL [TREE]  exit 1 when TREE's hugetext* sources
                                    there differ from what kselftest/ makes

TREE defaults to the kernel's tree (its kernels.list output directory's
src/).  --top DIR: the repository (the unit tests point it elsewhere).
scripts/series.sh kselftest writes and amends the selftest commit;
make check's kselftest-one-source steps check the applied trees.
"""
import argparse
import difflib
import fnmatch
import os
import sys

MM = 'tools/testing/selftests/mm'
# what kselftest/ may hold, and what of the tree's selftests/mm it owns
OWNED = ('hugetext*.c', 'hugetext*.h')


def kernels(top):
    """{name: output directory} of scripts/kernels.list"""
    got = {}
    with open(os.path.join(top, 'scripts', 'kernels.list')) as f:
        for line in f:
            c = line.split()
            if c and not c[0].startswith('#') and len(c) > 6:
                got[c[0]] = c[6]
    return got


def owned(name):
    return any(fnmatch.fnmatch(name, p) for p in OWNED)


def sources(top, kernel):
    """{file name in selftests/mm: source path}; SystemExit on a bad layout"""
    ks = os.path.join(top, 'kselftest')
    if kernel not in kernels(top):
        sys.exit('kselftest.py: %s: no such kernel in scripts/kernels.list' % kernel)
    got = {}
    for d in (ks, os.path.join(ks, kernel)):
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if not os.path.isfile(path):
                continue
            if not owned(name):
                sys.exit('kselftest.py: %s: not a hugetext*.c or hugetext*.h source'
                         % os.path.relpath(path, top))
            if name in got:
                sys.exit('kselftest.py: %s: also in %s (one source for each file)'
                         % (os.path.relpath(path, top), os.path.relpath(got[name], top)))
            got[name] = path
    if not got:
        sys.exit('kselftest.py: kselftest/ has no source for %s' % kernel)
    return got


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def drift(top, kernel, tree):
    """[problems] between what kselftest/ makes and TREE's selftests/mm"""
    want = sources(top, kernel)
    mm = os.path.join(tree, MM)
    if not os.path.isdir(mm):
        return ['%s: no such directory' % mm]
    have = sorted(n for n in os.listdir(mm)
                  if owned(n) and os.path.isfile(os.path.join(mm, n)))
    problems = []
    for name in sorted(set(want) | set(have)):
        src = want.get(name)
        dst = os.path.join(mm, name)
        if src is None:
            problems.append('%s/%s: in the tree, not made by kselftest/' % (MM, name))
            continue
        if name not in have:
            problems.append('%s/%s: missing (kselftest source: %s)'
                            % (MM, name, os.path.relpath(src, top)))
            continue
        a, b = read(src), read(dst)
        if a == b:
            continue
        diff = difflib.unified_diff(
            a.decode(errors='replace').splitlines(True),
            b.decode(errors='replace').splitlines(True),
            os.path.relpath(src, top), '%s/%s' % (MM, name), n=1)
        lines = list(diff)
        problems.append('%s/%s: differs from %s (%d diff lines):\n%s'
                        % (MM, name, os.path.relpath(src, top), len(lines),
                           ''.join(lines[:40]).rstrip('\n')))
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--top', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument('cmd', choices=('files', 'write', 'check'))
    ap.add_argument('kernel')
    ap.add_argument('tree', nargs='?')
    a = ap.parse_args(argv)
    top = os.path.abspath(a.top)
    want = sources(top, a.kernel)
    tree = a.tree or os.path.join(top, kernels(top)[a.kernel], 'src')
    if a.cmd == 'files':
        for name, src in sorted(want.items()):
            print(os.path.relpath(src, top), '%s/%s' % (MM, name))
        return 0
    if a.cmd == 'write':
        mm = os.path.join(tree, MM)
        if not os.path.isdir(mm):
            sys.exit('kselftest.py: %s: no such directory' % mm)
        for name in os.listdir(mm):
            if owned(name) and name not in want:
                os.unlink(os.path.join(mm, name))
                print('removed %s/%s' % (MM, name))
        for name, src in sorted(want.items()):
            dst = os.path.join(mm, name)
            if os.path.exists(dst) and read(dst) == read(src):
                continue
            with open(dst, 'wb') as f:
                f.write(read(src))
            print('wrote %s/%s' % (MM, name))
        return 0
    problems = drift(top, a.kernel, tree)
    for p in problems:
        print('kselftest-one-source: %s' % p)
    if problems:
        print('kselftest-one-source: %s: the tree is not what kselftest/ makes: edit '
              'kselftest/, then scripts/series.sh kselftest and series.sh export '
              '(HUGETEXT_KERNEL=%s)' % (a.kernel, a.kernel))
        return 1
    print('kselftest-one-source: %s: %d files, as kselftest/ makes them'
          % (a.kernel, len(want)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
