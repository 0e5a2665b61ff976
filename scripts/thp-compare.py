#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the THP selftest case lists two guests printed on their results
channel (selftests/hugetext_thpcmp.sh: "# thpcmp: TYPE: CASE... RESULT";
make check's out/check/guest-NAME.tap; the pairs: scripts/thpcmp.list).

    thp-compare.py TAP REFERENCE_TAP

Each side is named by what its guest said of hugetext ("hugetext_enabled=N",
on the 7.3 series "exec_file_enabled=W exec_anon_enabled=W"
or "CONFIG_HUGETEXT=n").

Exit 0 when both list the same cases with the same results (and at least
one case); otherwise print each difference and exit 1."""
import re
import sys

# the result: after the last run of dots (a case name may hold "...")
LINE = re.compile(r'^# thpcmp: ([\w.-]+): (.*?)\.{3,} ?((?:(?!\.\.\.).)*)$')


# Case names that hold a number the run chose, not the kernel: what
# mrelease_test printed differed between two boots of one make check (1MB
# and 2MB, 2026-11-29).  Its child allocates 1 MB, and when the child is
# gone before process_mrelease() reaches it (ESRCH) the test retries with
# twice the memory, so the size in "Success reaping a child with %zuMB of
# memory allocations" is a race's outcome.  (selftest, regex, replacement)
NORMALIZE = [
    ('mrelease_test', re.compile(r'\bwith \d+MB of memory'), 'with N MB of memory'),
]
KNOB = re.compile(r'^# (hugetext_enabled=\d+|exec_file_enabled=\w+ '
                  r'exec_anon_enabled=\w+|kernel without CONFIG_HUGETEXT)$')
BAIL = re.compile(r'^# thpcmp: run \d+ of [\w.-]+ '
                  r'(bailed out|was killed|stopped before)')


def cases(path):
    """({(type, case, n): result}, bails, label): n counts a case name's
    repeats (the selftest runs the same case in its khugepaged and madvise
    contexts); bails: the selftest's runs that stopped early
    (hugetext_thpcmp.sh reran them); label: what the guest said of
    hugetext, else the file's name"""
    got, seen, bails, name = {}, {}, [], path
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')
            if BAIL.match(line):
                bails.append(line[2:])
            k = KNOB.match(line)
            if k:
                name = ('CONFIG_HUGETEXT=n' if k.group(1).startswith('kernel')
                        else k.group(1).replace('_enabled', ''))
            m = LINE.match(line)
            if m:
                what = m.group(2).strip()
                for test, pattern, repl in NORMALIZE:
                    if m.group(1) == test:
                        what = pattern.sub(repl, what)
                case = (m.group(1), what)
                seen[case] = seen.get(case, 0) + 1
                got[case + (seen[case],)] = m.group(3).strip()
    return got, bails, name


def main(argv):
    if len(argv) != 3:
        print('usage: thp-compare.py TAP REFERENCE_TAP', file=sys.stderr)
        return 2
    try:
        a, ba, la = cases(argv[1])
        b, bb, lb = cases(argv[2])
    except OSError as e:
        print('thp-compare: %s' % e, file=sys.stderr)
        return 2
    diff = 0
    for key in sorted(set(a) | set(b)):
        ra, rb = a.get(key, '(missing)'), b.get(key, '(missing)')
        if ra != rb:
            diff += 1
            print('differs: %s: %s (#%d): %s %s, %s %s'
                  % (key[0], key[1], key[2], la, ra, lb, rb))
    for name, bails in ((la, ba), (lb, bb)):
        for line in bails:
            print('%s: %s' % (name, line))
    for name, got in ((la, a), (lb, b)):
        res = {}
        for r in got.values():
            res[r] = res.get(r, 0) + 1
        print('%s: %d cases: %s' % (name, len(got), ', '.join(
            '%d %s' % (n, r) for r, n in sorted(res.items()))))
    if not a or not b:
        print('thp-compare: no cases in %s' % (argv[1] if not a else argv[2]))
        return 1
    print('%d of %d cases differ' % (diff, len(set(a) | set(b))))
    return 1 if diff else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
