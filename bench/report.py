#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the bench guests' output into out/bench/results.json,
report.md and coverage.png (with gnuplot).

  bench/report.py --out DIR --series KERNEL=HASH ... \
      --kernel-sha1 KERNEL=SHA1 ... --mode NAME:KERNEL:BOOTARGS:THP:LOG ...

KERNEL: a kernel of bench/modes.list (6.12, 7.3, 7.3-stock), with
@ARCH for an arch after the first of scripts/arches.list (6.12@arm64); a
series' hash (sha1 of its series file and patches) is given for each
kernel with one, an image's sha1 for each kernel booted.

Each LOG holds the JSON lines the guest printed (bench/guest/bench) on
its results channel (scripts/run-qemu.sh --results; a console log works
too) between "== bench-json-begin" and "== bench-json-end COUNT SHA1"; the
count and digest are checked so that a mangled line is an error, not a
wrong number.  Standard library only.
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time

MB = 1 << 20
BENCH = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(BENCH)
# the programs, in order, and their titles: bench/programs (the package
# beside this file); the modes: bench/modes.list (modes.py)
sys.path.insert(0, BENCH)
sys.dont_write_bytecode = True
import programs as bench_programs  # noqa: E402
import modes as bench_modes  # noqa: E402
_PROGS = bench_programs.read()
PROGRAMS = [p['name'] for p in _PROGS]
PROGRAM_TITLE = {p['name']: p['title'] for p in _PROGS}
# programs whose code is anonymous (the JIT's, HotSpot's code cache)
ANON_CODE = {p['name'] for p in _PROGS if p['target'] is None}
TABLE_MODES = bench_modes.read_modes()
MODE_TITLE = {m['name']: m['title'] for m in TABLE_MODES}
KERNEL_LINE = re.compile(r'^\[\s*\d+\.\d+\]')


class ReportError(Exception):
    pass


def hugetext_knobs(k):
    """What a guest's knobs said of hugetext: hugetext_enabled's number,
    the 7.3 series' two words, or absent."""
    if 'hugetext_enabled' in k:
        return k['hugetext_enabled']
    if 'exec_file_enabled' in k:
        return 'file %s, anon %s' % (k['exec_file_enabled'],
                                     k.get('exec_anon_enabled'))
    return 'absent'

def extract(log):
    """The guest's records from LOG, its output (verified)."""
    with open(log, 'rb') as f:
        text = f.read().decode(errors='replace').replace('\r', '')
    lines = text.split('\n')
    try:
        begin = lines.index('== bench-json-begin')
    except ValueError:
        raise ReportError('%s: no "== bench-json-begin" line' % log)
    body, end = [], None
    for line in lines[begin + 1:]:
        if line.startswith('== bench-json-end'):
            end = line.split()
            break
        if line.startswith('BJ '):
            body.append(line[3:])
        elif line and not KERNEL_LINE.match(line):
            raise ReportError('%s: unexpected line in the JSON block: %.80s'
                              % (log, line))
    if end is None or len(end) != 4:
        raise ReportError('%s: no "== bench-json-end COUNT SHA1" line' % log)
    digest = hashlib.sha1('\n'.join(body).encode()).hexdigest()
    if int(end[2]) != len(body) or end[3] != digest:
        raise ReportError('%s: JSON block damaged (%d lines, '
                          'sha1 %s; the guest sent %s lines, sha1 %s)'
                          % (log, len(body), digest, end[2], end[3]))
    return [json.loads(b) for b in body]


def host_cpu():
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return 'unknown CPU'


def fmt(v, spec='%.1f', none='-'):
    return none if v is None else spec % v


def mb(v):
    return None if v is None else v / MB


def plot(out, records, modes):
    """coverage.png: coverage over time, one panel per program."""
    datdir = os.path.join(out, 'data')
    os.makedirs(datdir, exist_ok=True)
    progs = [p for p in PROGRAMS if any(r['program'] == p for r in records)]
    script = ['set terminal pngcairo size 1400,1400 font ",10" noenhanced',
              "set output '%s'" % os.path.join(out, 'coverage.png'),
              'set multiplot layout 3,2 title "Text on 2 MB pages after '
              'exec: coverage over time (QEMU TCG guest; guest seconds)"',
              'set yrange [-5:130]', 'set ytics 0,20,100',
              'set ylabel "coverage %"',
              'set xlabel "seconds after exec (guest)"', 'set grid',
              'set key top left reverse Left samplen 3']
    # drawn widest first, so that lines on top of each other stay visible
    styles = {'default': 'lw 8 lc rgb "#c0c0c0"',
              'thp-always': 'lw 4 lc rgb "#1f77b4" dt 2',
              'hugetext': 'lw 2 lc rgb "#d62728"'}
    order = [m for m in ('default', 'thp-always', 'hugetext') if m in modes]
    order += [m for m in modes if m not in order]
    for prog in progs:
        plots = []
        for mode in order:
            rec = next((r for r in records if r['program'] == prog
                        and r['mode'] == mode), None)
            if rec is None:
                continue
            dat = os.path.join(datdir, '%s-%s.dat' % (prog, mode))
            with open(dat, 'w') as f:
                f.write('# seconds-after-exec coverage-percent\n')
                for t, c in rec['series']:
                    f.write('%s %s\n' % (t, 0 if c is None else c))
            plots.append("'%s' using 1:2 with steps %s title '%s'"
                         % (dat, styles.get(mode, 'lw 2'),
                            MODE_TITLE.get(mode, mode)))
        script.append('set title "%s"' % PROGRAM_TITLE.get(prog, prog))
        script.append('plot ' + ', '.join(plots))
    script.append('unset multiplot')
    gp = os.path.join(datdir, 'coverage.gp')
    with open(gp, 'w') as f:
        f.write('\n'.join(script) + '\n')
    subprocess.run(['gnuplot', gp], check=True)


def verdicts(records, modes=None):
    """Per kernel, arch and program: hugetext's coverage vs THP=always's
    on the same kernel (the issue's bar; bench_modes.bars() pairs the
    modes)."""
    out = []
    ran = {r['mode'] for r in records}
    table = [m for m in (TABLE_MODES if modes is None else modes)
             if m['name'] in ran]
    for ht_mode, al_mode in bench_modes.bars(table):
        for prog in PROGRAMS:
            ht = next((r for r in records if r['program'] == prog
                       and r['mode'] == ht_mode['name']), None)
            al = next((r for r in records if r['program'] == prog
                       and r['mode'] == al_mode['name']), None)
            if not ht or not al:
                continue
            h = ht.get('coverage_final') or 0.0
            a = al.get('coverage_final') or 0.0
            strict = prog == 'gdb'
            ok = h > a if strict else h >= a
            note = ''
            if prog in ANON_CODE and not ok:
                note = (' (expected until the kernel maps anonymous '
                        'executable memory with huge pages under hugetext '
                        'bit 1)')
            out.append({'program': prog,
                        'kernel': ht.get('kernel_name', ht_mode['kernel']),
                        'hugetext_mode': ht_mode['name'],
                        'thp_always_mode': al_mode['name'],
                        'hugetext': h, 'thp_always': a,
                        'required': '>' if strict else '>=', 'ok': ok,
                        'note': note})
    return out


def report(out, res):
    recs = res['records']
    modes = res['modes']
    L = []
    L.append('# hugetext bench report')
    L.append('')
    L.append('Generated by `make bench` on %s.' % res['generated'])
    L.append('')
    L.append('> **These are not hardware timings.** Everything here was '
             'measured in a %s. TCG emulates the CPU in software and has '
             'no hardware TLB, so "seconds" below are guest seconds of an '
             'emulated machine and say nothing about speed. The bench shows '
             'what the kernel does: how much text gets 2 MB pages and how '
             'soon, page faults, page-table and page-cache memory, and '
             "khugepaged's CPU time. To measure speed on real hardware use "
             '`tools/hugetext bench -- CMD` (see Documentation/bench.md).'
             % res['measured'])
    L.append('')
    env = recs[0]['env'] if recs else {}
    for k, sha in sorted(res['bzimage_sha1'].items()):
        rk = next((r for r in recs if r['kernel_name'] == k), {})
        L.append('- kernel %s: `%s` (%s); image sha1 `%s`; %s'
                 % (k, rk.get('env', {}).get('kernel', '?'),
                    rk.get('env', {}).get('kernel_version', '?'), sha,
                    'series `%s` (sha1 of its series file and patches)'
                    % res['series_version'][k]
                    if k in res['series_version'] else
                    'without the series (its Debian source, same '
                    'configuration)'))
    L.append('- measured: %s' % res['measured'])
    L.append('- khugepaged knobs: defaults (scan_sleep_millisecs %s, '
             'pages_to_scan %s)'
             % (env.get('knobs', {}).get('khugepaged/scan_sleep_millisecs'),
                env.get('knobs', {}).get('khugepaged/pages_to_scan')))
    L.append('')
    L.append('| mode | kernel | kernel command line | THP `enabled` | '
             'hugetext (`hugetext_enabled`; 7.3: `exec_file_enabled`, '
             '`exec_anon_enabled`) |')
    L.append('|---|---|---|---|---|')
    for m in modes:
        r = next((r for r in recs if r['mode'] == m), None)
        if r is None:
            continue
        k = r['env']['knobs']
        L.append('| %s | %s | `%s` | %s | %s |' % (
            m, r['kernel_name'], res['mode_args'][m], k.get('enabled'),
            hugetext_knobs(k)))
    L.append('')
    L.append('## Results')
    L.append('')
    L.append('Coverage: 2 MB-mapped text / the full 2 MB regions of the text '
             '(congruent to the file offset), last sample while the program '
             'ran. Entries: page-table entries that map the text\'s resident '
             'part (4 KB PTEs + PMDs). Extra cache: page-cache growth over the '
             'run minus that of the same kernel\'s (and arch\'s) distribution '
             'default (hugetext off, THP madvise: default, stock-madvise, '
             'arm64-default). Columns '
             'are explained in '
             '[Documentation/bench.md](../../Documentation/bench.md).')
    L.append('')
    hdr = ['program', 'mode', 'coverage %', 'full at (s)', 'ideal MB',
           'text PMDs', 'text PTEs', 'entries', 'minflt', 'VmPTE kB',
           'cache MB', 'huge cache MB', 'extra cache MB', 'khugepaged s',
           'kworker s', 'run s', 'ok']
    L.append('| ' + ' | '.join(hdr) + ' |')
    L.append('|' + '---|' * len(hdr))
    for prog in PROGRAMS:
        for m in modes:
            r = next((r for r in recs if r['program'] == prog
                      and r['mode'] == m), None)
            if r is None:
                continue
            bm = next((t for t in TABLE_MODES if t['name'] == m), None)
            bm = bench_modes.baseline(TABLE_MODES, bm) if bm else None
            base = next((x for x in recs if x['program'] == prog and bm
                         and x['mode'] == bm['name']), None)
            extra = (mb(r['page_cache_growth'] - base['page_cache_growth'])
                     if base else None)
            L.append('| ' + ' | '.join([
                prog, m, fmt(r.get('coverage_final')),
                fmt(r.get('time_to_full_s'), '%.2f', 'never'),
                fmt(mb(r.get('ideal')), '%.0f'),
                fmt(r.get('text_pmds'), '%d'), fmt(r.get('text_ptes'), '%d'),
                fmt(r.get('text_entries'), '%d'), '%d' % r['minflt'],
                fmt(None if r.get('vm_pte') is None else r['vm_pte'] / 1024,
                    '%d'),
                fmt(mb(r['page_cache_growth'])),
                fmt(mb(r['file_huge_pages_growth'])),
                fmt(extra, '%+.1f'),
                fmt(r['khugepaged_cpu_s'], '%.2f'),
                fmt(r['kworker_cpu_s'], '%.2f'),
                fmt(r['wall_s']), 'yes' if r['ok'] else 'NO']) + ' |')
    L.append('')
    L.append('![coverage over time](coverage.png)')
    L.append('')
    L.append('## Bar: hugetext (THP madvise) vs upstream THP=always, '
             'a kernel each')
    L.append('')
    for v in res['verdicts']:
        L.append('- %s on %s: hugetext (%s) %.1f %% %s THP=always (%s) '
                 '%.1f %%: %s%s'
                 % (v['program'], v['kernel'], v['hugetext_mode'],
                    v['hugetext'], v['required'], v['thp_always_mode'],
                    v['thp_always'], 'met' if v['ok'] else 'NOT met',
                    v['note']))
    L.append('')
    L.append('## Programs')
    L.append('')
    seen = set()
    for r in recs:
        arch = r['kernel_name'].partition('@')[2]
        if (r['program'], arch) in seen:
            continue
        seen.add((r['program'], arch))
        L.append('- **%s**%s: %s; `%s`' % (r['program'],
                                           ' (%s)' % arch if arch else '',
                                           r['what'], r['command']))
    L.append('')
    L.append('Raw data: `results.json` (one record per program and mode, '
             'with the coverage series), `data/*.dat`, the guests\' output '
             '`output-MODE.txt` and console logs `console-MODE.log`.')
    with open(os.path.join(out, 'report.md'), 'w') as f:
        f.write('\n'.join(L) + '\n')
    return L


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('--series', action='append', default=[],
                    help='KERNEL=HASH')
    ap.add_argument('--kernel-sha1', action='append', required=True,
                    help='KERNEL=SHA1')
    ap.add_argument('--mode', action='append', required=True,
                    help='NAME:KERNEL:BOOTARGS:THP:LOG')
    a = ap.parse_args()
    series = dict(x.split('=', 1) for x in a.series)
    ksha = dict(x.split('=', 1) for x in a.kernel_sha1)
    records, modes, mode_args, errors = [], [], {}, []
    for spec in a.mode:
        name, kernel, args, thp, log = spec.split(':', 4)
        modes.append(name)
        mode_args[name] = '%s htthp=%s' % (args, thp)
        try:
            recs = extract(log)
        except (OSError, ReportError, ValueError) as e:
            errors.append(str(e))
            continue
        for r in recs:
            r['mode'] = name
            r['mode_title'] = MODE_TITLE.get(name, '%s (%s)' % (name, args))
            r['boot_args'] = args
            r['thp_enabled'] = thp
            r['kernel_name'] = kernel
            r['series_version'] = series.get(kernel)
            r['bzimage_sha1'] = ksha.get(kernel)
            records.append(r)
    if not records:
        print('bench-report: no results: %s' % '; '.join(errors),
              file=sys.stderr)
        return 1
    guest_cpus = records[0]['env'].get('cpus')
    measured = 'QEMU TCG guest on %s, 2 vCPUs' % host_cpu()
    if guest_cpus != 2:
        measured += ' (-smp 2; the guest kernel brought up %s)' % guest_cpus
    for r in records:
        r['measured'] = measured
        r['kernel'] = r['env']['kernel']
        r['knobs'] = r['env']['knobs']
    res = {'generated': time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime()),
           'measured': measured, 'series_version': series,
           'bzimage_sha1': ksha, 'modes': modes,
           'mode_args': mode_args, 'errors': errors,
           'verdicts': verdicts(records), 'records': records}
    with open(os.path.join(a.out, 'results.json'), 'w') as f:
        json.dump(res, f, indent=1, sort_keys=True)
        f.write('\n')
    plot(a.out, records, modes)
    lines = report(a.out, res)
    # the table and the bar on stdout too
    start = lines.index('## Results')
    end = lines.index('## Programs')
    print('\n'.join(lines[start:end]))
    for e in errors:
        print('bench-report: %s' % e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
