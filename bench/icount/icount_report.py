#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Join icount-plugin.so's JSON with fault-loop's output and print the
figures per unit of work and per fault.

    icount_report.py [--json] PLUGIN.json FAULT-LOOP.out

The join is by window index (the plugin numbers windows in the order they
close); it is refused (exit 1) unless both have the same number of windows,
every window's tag agrees, all windows are on one vCPU and fault-loop saw
no migration.  Per (mode, N): the median over the repeats of the empty
windows and of the work windows, and

    per unit  = (median(work) - median(empty)) / N
    per fault = (median(work) - median(empty)) / (faults(work) - faults(empty))

for kernel and user instructions, faults being minflt + majflt of the
process and of its children (exec mode), the medians of their deltas.
Every figure is a TCG instruction count, not time.
"""

import argparse
import json
import statistics
import sys

NOTE = ('guest instruction counts under QEMU TCG (icount-plugin.so), '
        'not time')


def parse_output(text):
    """fault-loop's window lines, as dicts of ints (mode: str)."""
    rows = []
    for line in text.splitlines():
        if not line.startswith('window='):
            continue
        d = {}
        for kv in line.split():
            k, _, v = kv.partition('=')
            d[k] = v if k == 'mode' else int(v)
        d['index'] = d.pop('window')
        rows.append(d)
    return rows


def join(res, text):
    """The plugin's windows joined with fault-loop's lines by index."""
    prog = parse_output(text)
    wins = res['windows']
    if len(wins) != len(prog):
        raise ValueError('%d plugin windows, %d fault-loop windows'
                         % (len(wins), len(prog)))
    vcpus = {w['vcpu'] for w in wins}
    if len(vcpus) > 1:
        raise ValueError('windows on several vCPUs: %s' % sorted(vcpus))
    out = []
    for w, p in zip(wins, prog):
        if (w['index'], w['tag']) != (p['index'], p['tag']):
            raise ValueError('window %d: plugin tag %d, fault-loop window '
                             '%d tag %d' % (w['index'], w['tag'],
                                            p['index'], p['tag']))
        if p.get('migrated'):
            raise ValueError('window %d: fault-loop migrated' % p['index'])
        j = dict(p)
        j.update(vcpu=w['vcpu'], kernel=w['kernel'], user=w['user'])
        j['faults'] = p['minflt'] + p['majflt'] + p['cminflt'] + p['cmajflt']
        out.append(j)
    return out


def median(xs):
    return statistics.median(xs) if xs else None


def summarize(joined):
    """One row per (mode, N of the work windows)."""
    groups = {}
    for j in joined:
        groups.setdefault(j['mode'], {'work': {}, 'empty': []})
        g = groups[j['mode']]
        if j['n']:
            g['work'].setdefault(j['n'], []).append(j)
        else:
            g['empty'].append(j)
    rows = []
    for mode, g in groups.items():
        for n, work in sorted(g['work'].items()):
            e = g['empty']
            row = {'mode': mode, 'n': n, 'repeats': len(work),
                   'empty_windows': len(e)}
            dfault = None
            if e:
                dfault = median([w['faults'] for w in work]) - \
                    median([x['faults'] for x in e])
            row['faults_per_window'] = dfault
            for key in ('kernel', 'user'):
                mw = median([w[key] for w in work])
                me = median([x[key] for x in e]) if e else None
                row[key + '_work_median'] = mw
                row[key + '_work_min'] = min(w[key] for w in work)
                row[key + '_work_max'] = max(w[key] for w in work)
                row[key + '_empty_median'] = me
                if me is None:
                    row[key + '_per_unit'] = row[key + '_per_fault'] = None
                    continue
                row[key + '_per_unit'] = (mw - me) / n
                row[key + '_per_fault'] = ((mw - me) / dfault
                                           if dfault and dfault > 0 else None)
            rows.append(row)
    return rows


def fmt(x):
    if x is None:
        return 'n/a'
    if isinstance(x, float) and not x.is_integer():
        return '%.1f' % x
    return '%d' % x


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--json', action='store_true', help='print JSON')
    ap.add_argument('plugin_json')
    ap.add_argument('output')
    a = ap.parse_args(argv)
    with open(a.plugin_json) as f:
        res = json.load(f)
    with open(a.output) as f:
        text = f.read()
    try:
        joined = join(res, text)
    except ValueError as e:
        print('icount_report: %s' % e, file=sys.stderr)
        return 1
    rows = summarize(joined)
    if a.json:
        json.dump({'note': NOTE, 'plugin': {k: res.get(k) for k in (
            'target', 'system_emulation', 'args', 'kernel_base', 'count',
            'unpaired_starts', 'unpaired_stops', 'tag_mismatches',
            'open_at_exit', 'lost')}, 'rows': rows, 'windows': joined},
            sys.stdout, indent=1)
        print()
        return 0
    print('icount: TCG instruction counts, not time (%s, count=%s)'
          % (res.get('target'), res.get('count')))
    print('%-5s %8s %4s %8s | %12s %12s %10s %10s | %12s %10s'
          % ('mode', 'N', 'reps', 'faults', 'kernel work', 'kernel empty',
             'k/unit', 'k/fault', 'user work', 'u/unit'))
    for r in rows:
        print('%-5s %8d %4d %8s | %12s %12s %10s %10s | %12s %10s'
              % (r['mode'], r['n'], r['repeats'], fmt(r['faults_per_window']),
                 fmt(r['kernel_work_median']), fmt(r['kernel_empty_median']),
                 fmt(r['kernel_per_unit']), fmt(r['kernel_per_fault']),
                 fmt(r['user_work_median']), fmt(r['user_per_unit'])))
    print('work, empty: medians per window over the repeats; /unit: '
          '(work - empty) / N; /fault: (work - empty) / (faults of a work '
          'window - faults of an empty one)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
