#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that make check's tables join, before anything is built or booted.

    check-tables.py [--top DIR] [--json]

make check reads five tables: scripts/kernels.list and scripts/arches.list
(what is built), scripts/boots.list (what is booted, each boot running the
tests its htrun=check:TAG selects), selftests/list (which boot tag runs
which test) and scripts/thpcmp.list (which two boots' THP case lists must
be equal).  A line that names something that does not exist runs nothing
and would report "ok"; this refuses it.  Each problem is one line
"FILE:LINE: what"; exit 0 when there is none, 1 otherwise, 2 on a usage
error or an unreadable table.

What is checked:
- boots.list: every line has its columns (cpus and timeout numbers, a side
  group name); names are unique; the kernel is an image make check builds
  (kernels.list x the first arch, with and without CONFIG_HUGETEXT; the
  main kernel on the other arches of arches.list and their variants); a
  boot runs at least one htrun=check:TAG, and each TAG (joined by "+")
  selects at least one line of selftests/list.
- selftests/list: the test is a program selftests/Makefile builds or a
  script it installs; the timeout is N or +N; every line is run by at
  least one boot; a series' own kselftest program (mm_hugetext_NAME
  from kselftest/'s hugetext_NAME.c for the first kernel,
  mm_hugetext_mainline_NAME for the last) is built by
  selftests/Makefile, and its -t/-T (test), -f/-F (fixture) and -v/-V
  (variant) filters name a test, fixture or variant of that program's
  source (a filter that matches nothing runs zero cases and passes).
- thpcmp.list: step names are unique; both boots exist in boots.list and
  both run hugetext_thpcmp.sh (else the comparison has no cases).
"""
import fnmatch
import json
import os
import re
import sys


def table(path):
    """[(line number, [columns])] of a whitespace table, comments and blank
    lines left out"""
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            s = line.strip()
            if s and not s.startswith('#'):
                rows.append((n, s.split()))
    return rows


def makefile_programs(path):
    """the programs and scripts selftests/Makefile builds or installs: its
    TESTS, SCRIPTS, HELPERS and UPSTREAM lists and its $(OUT)/NAME rules;
    and the patterns of its rules that build a kselftest program of each
    hugetext_NAME.c, $(OUT)/PREFIX%: $(...)/hugetext_%.c (the Makefile
    builds every such program of the tree: ht_progs), as fnmatch patterns"""
    with open(path) as f:
        text = f.read().replace('\\\n', ' ')
    names = set()
    for var in ('TESTS', 'SCRIPTS', 'HELPERS', 'UPSTREAM'):
        m = re.search(r'^%s\s*:?=(.*)$' % var, text, re.M)
        if m:
            names.update(w for w in m.group(1).split('#')[0].split() if '$' not in w)
    names.update(re.findall(r'^\$\(OUT\)/([\w.-]+):', text, re.M))
    patterns = set(p + '*' for p in re.findall(
        r'^\$\(OUT\)/([\w.-]+)%:\s*\$\(\w+\)/hugetext_%\.c\b', text, re.M))
    return names, patterns


HARNESS = re.compile(r'^\s*(TEST|TEST_F|TEST_F_TIMEOUT|TEST_SIGNAL|FIXTURE|'
                     r'FIXTURE_VARIANT_ADD)\(\s*(\w+)\s*(?:,\s*(\w+))?')


def kselftest_programs(top, knames):
    """{program: its source in kselftest/} of the series' own kselftests:
    mm_hugetext_NAME (the first kernel's hugetext_NAME.c),
    mm_hugetext_mainline_NAME
    (the last kernel's), each from kselftest/KERNEL/ or, shared, kselftest/"""
    got = {}
    ks = os.path.join(top, 'kselftest')
    series = [('mm_hugetext', knames[0])] if knames else []
    if len(knames) > 1:
        series.append(('mm_hugetext_mainline', knames[-1]))
    for prefix, k in series:
        for d in (ks, os.path.join(ks, k)):
            try:
                files = sorted(os.listdir(d))
            except OSError:
                continue
            for f in files:
                m = re.fullmatch(r'hugetext(_\w+)?\.c', f)
                path = os.path.join(d, f)
                if not m or not os.path.isfile(path):
                    continue
                with open(path, errors='replace') as fh:
                    if 'TEST_HARNESS_MAIN' not in fh.read():
                        continue        # the helpers, the library
                got[prefix + (m.group(1) or '')] = path
    return got


def harness_names(source):
    """{'test': set, 'fixture': set, 'variant': set} of the kselftest
    harness names a program's source defines"""
    got = {'test': set(), 'fixture': set(), 'variant': set()}
    for p in [source]:
        if not os.path.isfile(p):
            continue
        with open(p, errors='replace') as f:
            for line in f:
                m = HARNESS.match(line)
                if not m:
                    continue
                kind, a, b = m.groups()
                if kind in ('TEST', 'TEST_SIGNAL'):
                    got['test'].add(a)
                elif kind == 'FIXTURE':
                    got['fixture'].add(a)
                elif kind == 'FIXTURE_VARIANT_ADD' and b:
                    got['variant'].add(b)
                elif b:
                    got['fixture'].add(a)
                    got['test'].add(b)
    return got


FILTERS = {'-t': 'test', '-T': 'test', '-f': 'fixture', '-F': 'fixture',
           '-v': 'variant', '-V': 'variant'}


def check(top):
    """[problem lines], {summary}"""
    S = os.path.join(top, 'scripts')
    T = os.path.join(top, 'selftests')
    rel = lambda p: os.path.relpath(p, top)
    problems = []
    say = lambda path, n, what: problems.append('%s:%d: %s' % (rel(path), n, what))

    # what is built: kernels x arches (scripts/base.sh's image_lines)
    kl, al = os.path.join(S, 'kernels.list'), os.path.join(S, 'arches.list')
    kernels = [(n, c) for n, c in table(kl)]
    arches = [(n, c) for n, c in table(al)]
    for path, rows, want in ((kl, kernels, 9), (al, arches, 12)):
        for n, c in rows:
            if len(c) < want - 1:
                say(path, n, 'has %d columns, wants %d' % (len(c), want))
    images = set()
    ksuites = {}
    if kernels and arches:
        first_image = os.path.basename(arches[0][1][7]) if len(arches[0][1]) > 7 else 'bzImage'
        for i, (n, c) in enumerate(kernels):
            if len(c) < 7:
                continue
            out = c[6].rstrip('/')
            pre = '' if out == 'out' else out[len('out/'):] + '/' if out.startswith('out/') else None
            if pre is None:
                say(kl, n, "output directory '%s' is not under out/" % out)
                continue
            images.update({pre + first_image, pre + first_image + '-nohugetext'})
            ksuites[c[0]] = (i, os.path.join(top, c[4]))
            # make check builds every kernel on every other arch, with
            # that arch's variants (check.sh)
            for an, ac in arches[1:]:
                if len(ac) < 8:
                    continue
                img = pre + ac[0] + '/' + os.path.basename(ac[7])
                images.add(img)
                if len(ac) > 11 and ac[11] != '-':
                    for v in ac[11].split(','):
                        images.add(img + '-' + v.split('=')[0])

    # which tests exist and where the series' kselftests come from
    programs, patterns = makefile_programs(os.path.join(T, 'Makefile'))
    knames = [k for k, _ in sorted(ksuites.items(), key=lambda kv: kv[1][0])]
    kself = kselftest_programs(top, knames)
    # a kselftest program is built by its name's rule or its series' pattern
    programs |= set(p for p in kself if any(fnmatch.fnmatch(p, pat) for pat in patterns))
    for prog in kself:
        if prog not in programs:
            say(os.path.join(T, 'Makefile'), 1, "the kselftest program %s (%s) is not built"
                % (prog, rel(kself[prog])))

    # selftests/list
    sl = os.path.join(T, 'list')
    tests = table(sl)
    names_cache = {}
    for n, c in tests:
        if len(c) < 3:
            say(sl, n, 'has %d columns, wants test, tags, timeout' % len(c))
            continue
        t, tags, tmo, args = c[0], c[1], c[2], c[3:]
        if t not in programs:
            say(sl, n, "test '%s' is not built by selftests/Makefile" % t)
        if not re.fullmatch(r'\+?[0-9]+', tmo):
            say(sl, n, "timeout '%s' is not N or +N" % tmo)
        if not re.fullmatch(r'[a-z0-9-]+(,[a-z0-9-]+)*', tags):
            say(sl, n, "tags '%s' are not a comma list of names" % tags)
        if t in kself:
            if kself[t] not in names_cache:
                names_cache[kself[t]] = harness_names(kself[t])
            have = names_cache[kself[t]]
            for i, a in enumerate(args):
                if a in FILTERS:
                    kind = FILTERS[a]
                    v = args[i + 1] if i + 1 < len(args) else None
                    if v is None:
                        say(sl, n, '%s without a %s name' % (a, kind))
                    elif v not in have[kind]:
                        say(sl, n, "%s %s: no %s '%s' in %s" % (a, v, kind, v, rel(kself[t])))

    # boots.list
    bl = os.path.join(S, 'boots.list')
    boots = {}
    selected = set()
    thpcmp_boots = set()
    for n, c in table(bl):
        if len(c) < 5:
            say(bl, n, 'has %d columns, wants name, cpus, kernel, timeout, side' % len(c))
            continue
        name, cpus, kernel, tmo, side, args = c[0], c[1], c[2], c[3], c[4], c[5:]
        if name in boots:
            say(bl, n, "boot '%s' already on line %d" % (name, boots[name]))
        boots[name] = n
        if not cpus.isdigit() or not tmo.isdigit():
            say(bl, n, 'cpus and timeout must be numbers')
        if not re.fullmatch(r'[a-z0-9-]+', side):
            say(bl, n, "side column '%s' is not '-' or a group name" % side)
        if images and kernel not in images:
            say(bl, n, "kernel '%s' is not an image make check builds (%s)"
                % (kernel, ', '.join(sorted(images))))
        runs = [a[len('htrun=check:'):] for a in args if a.startswith('htrun=check:')]
        if not runs:
            say(bl, n, "boot '%s' runs no test (no htrun=check:TAG)" % name)
        for run in runs:
            for tag in run.split('+'):
                sel = [(tn, tc) for tn, tc in tests
                       if len(tc) > 1 and tag in tc[1].split(',')]
                if not sel:
                    say(bl, n, "boot '%s': tag '%s' selects no line of selftests/list"
                        % (name, tag))
                for tn, tc in sel:
                    selected.add(tn)
                    if tc[0] == 'hugetext_thpcmp.sh':
                        thpcmp_boots.add(name)
    for n, c in tests:
        if n not in selected:
            say(sl, n, "test '%s' (tags %s) is run by no boot of scripts/boots.list"
                % (c[0], c[1] if len(c) > 1 else '?'))

    # thpcmp.list
    cl = os.path.join(S, 'thpcmp.list')
    steps = {}
    for n, c in table(cl):
        if len(c) != 3:
            say(cl, n, 'has %d columns, wants step, boot, reference boot' % len(c))
            continue
        if c[0] in steps:
            say(cl, n, "step '%s' already on line %d" % (c[0], steps[c[0]]))
        steps[c[0]] = n
        for b in c[1:]:
            if b not in boots:
                say(cl, n, "boot '%s' is not in scripts/boots.list" % b)
            elif b not in thpcmp_boots:
                say(cl, n, "boot '%s' does not run hugetext_thpcmp.sh: nothing to compare" % b)

    summary = {'boots': len(boots), 'tests': len(tests), 'comparisons': len(steps),
               'images': sorted(images), 'problems': problems}
    return problems, summary


def main(argv):
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    as_json = False
    args = argv[1:]
    while args:
        a = args.pop(0)
        if a == '--top' and args:
            top = args.pop(0)
        elif a == '--json':
            as_json = True
        else:
            print('usage: check-tables.py [--top DIR] [--json]', file=sys.stderr)
            return 2
    try:
        problems, summary = check(top)
    except OSError as e:
        print('check-tables: %s' % e, file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(summary, indent=1))
    else:
        for p in problems:
            print(p)
        print('check-tables: %d boots, %d test lines, %d comparisons, %d images: %s'
              % (summary['boots'], summary['tests'], summary['comparisons'],
                 len(summary['images']),
                 '%d problems' % len(problems) if problems else 'they join'))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
