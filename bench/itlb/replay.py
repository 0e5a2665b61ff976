#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Replay a program under qemu-x86_64 with the iTLB model plugin.

    bench/itlb/replay.py [--huge SPEC]... [--models A,B] [--json] -- PROG ARGS...

Each --huge SPEC is one run of PROG (default: one run, 'none'):
  none        every page is 4 KB
  all-full    every full 2 MB-aligned file region of PROG's executable
              PT_LOAD segments (file offsets [o, o + 2 MB) inside the
              segment) is mapped with a 2 MB page
  FILE        a region list, one per line ('#' comments):
                PATH OFFSET      the 2 MB file region of PATH at OFFSET
                @exe OFFSET      the same for PROG itself
                va START END     a guest virtual address range
              (OFFSET, START, END: decimal or 0x hex; OFFSET 2 MB aligned)

The numbers are MODEL results (bench/itlb/itlb_models.c) for the fetch
stream qemu-user's TCG executes; they are not hardware measurements.
"""

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MB2 = 2 << 20
NOTE = ('iTLB MODEL results under qemu-user TCG '
        '(not hardware measurements)')


COST_NOTE = ('cost: cycles lost to instruction translation per 1000 '
             'instructions = (STLB hits x refill cycles + walks x walk '
             'cycles) x 1000 / instructions, with the cycle costs of '
             'bench/itlb/itlb_models.c (sources there); n/a where a '
             'needed cost has no sourced figure')


def stlb_hits(m):
    """L1 misses that hit the second level, of one model's plugin result
    m.  The plugin counts them (stlb_hits); a result without the field
    predates the count, and there l1_misses - stlb_misses is the same
    number: the model looks every L1 miss up in the second level
    (itlb_model.c), the unified L1 of neoverse-n1 too."""
    if 'stlb_hits' in m:
        return m['stlb_hits']
    return m['l1_misses'] - m['stlb_misses']


def cost_cycles(m):
    """Cycles lost to instruction translation for one model's plugin
    result m: stlb_hits x stlb_hit_cycles + stlb_misses x walk_cycles.
    None (n/a) when a count that is not 0 has no sourced cost (null, or
    a result from before the costs)."""
    total = 0
    for n, c in ((stlb_hits(m), m.get('stlb_hit_cycles')),
                 (m['stlb_misses'], m.get('walk_cycles'))):
        if n and c is None:
            return None
        total += n * (c or 0)
    return total


def cost_pki(m, insns):
    """cost_cycles(m) per 1000 instructions, or None (n/a)."""
    c = cost_cycles(m)
    if c is None:
        return None
    return 1000.0 * c / insns if insns else 0.0


def fmt_cost(x):
    return 'n/a' if x is None else '%.4g' % x


def elf_exec_segments(path):
    """[(offset, filesz)] of the executable PT_LOAD segments of an ELF64."""
    with open(path, 'rb') as f:
        hdr = f.read(64)
        if len(hdr) < 64 or hdr[:4] != b'\x7fELF' or hdr[4] != 2:
            raise ValueError('%s: not an ELF64 file' % path)
        end = '<' if hdr[5] == 1 else '>'
        phoff, = struct.unpack_from(end + 'Q', hdr, 32)
        phentsize, phnum = struct.unpack_from(end + 'HH', hdr, 54)
        segs = []
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            ph = f.read(56)
            if len(ph) < 56:
                raise ValueError('%s: truncated program headers' % path)
            p_type, p_flags, p_offset = struct.unpack_from(end + 'IIQ', ph, 0)
            p_filesz, = struct.unpack_from(end + 'Q', ph, 32)
            if p_type == 1 and p_flags & 1:      # PT_LOAD, PF_X
                segs.append((p_offset, p_filesz))
        return segs


def full_regions(path):
    """2 MB-aligned file offsets o with [o, o + 2 MB) inside an exec segment."""
    offs = []
    for off, size in elf_exec_segments(path):
        o = (off + MB2 - 1) // MB2 * MB2
        while o + MB2 <= off + size:
            offs.append(o)
            o += MB2
    return offs


def parse_num(s):
    return int(s, 0)


def resolve_spec(spec, exe):
    """Region lines for the plugin ('file OFF PATH' / 'va S E')."""
    if spec == 'none':
        return []
    if spec == 'all-full':
        return ['file 0x%x %s' % (o, exe) for o in full_regions(exe)]
    lines = []
    with open(spec) as f:
        for n, raw in enumerate(f, 1):
            line = raw.split('#', 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            try:
                if parts[0] == 'va' and len(parts) == 3:
                    lines.append('va 0x%x 0x%x' % (parse_num(parts[1]),
                                                   parse_num(parts[2])))
                    continue
                if len(parts) != 2:
                    raise ValueError
                off = parse_num(parts[1])
            except ValueError:
                raise SystemExit('%s:%d: bad region line' % (spec, n))
            if off % MB2:
                raise SystemExit('%s:%d: offset 0x%x not 2 MB aligned'
                                 % (spec, n, off))
            path = exe if parts[0] == '@exe' else os.path.realpath(parts[0])
            lines.append('file 0x%x %s' % (off, path))
    return lines


def build_plugin():
    out = os.path.join(ROOT, 'out', 'itlb')
    subprocess.run(['make', '-s', '-C', HERE, 'OUT=' + out], check=True)
    return os.path.join(out, 'itlb-plugin.so')


def run_one(qemu, plugin, models, regions, exe, argv, tmp, tag, show_output):
    rfile = os.path.join(tmp, 'regions-%s.txt' % tag)
    jfile = os.path.join(tmp, 'result-%s.json' % tag)
    with open(rfile, 'w') as f:
        f.write(''.join(r + '\n' for r in regions))
    pargs = [plugin, 'regions=' + rfile, 'out=' + jfile, 'quiet=on']
    if models:
        pargs.append('models=' + ':'.join(models))
    if any(',' in a for a in pargs):
        raise SystemExit('replay: a path contains a comma (qemu -plugin '
                         'separates its arguments with commas)')
    cmd = [qemu, '-0', argv[0], '-plugin', ','.join(pargs), exe] + argv[1:]
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=None if show_output else subprocess.DEVNULL)
    secs = time.monotonic() - t0
    try:
        with open(jfile) as f:
            result = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit('replay: no plugin result (%s); qemu exit %d'
                         % (e, p.returncode))
    return {'exit_code': p.returncode, 'seconds': round(secs, 3),
            'result': result}


def region_label(r):
    if r['file']:
        return '%s+0x%x' % (r['name'], r['offset'])
    return '%s@0x%x' % (r['name'], r['vaddr'])


def print_table(doc, top):
    print(NOTE)
    print(COST_NOTE)
    print('program: %s' % ' '.join(doc['program']))
    hdr = '%-12s %-16s %14s %11s %8s %11s %11s %8s %9s %7s' % (
        'huge set', 'model', 'instructions', 'L1 misses', 'L1 MPKI',
        'STLB hits', 'STLB miss', 'walkMPKI', 'cyc/1k', 'huge%')
    print(hdr)
    print('-' * len(hdr))
    for run in doc['runs']:
        res = run['result']
        ins = res['instructions']
        hp = 100.0 * res['huge_instructions'] / ins if ins else 0.0
        for m in res['models']:
            print('%-12s %-16s %14d %11d %8.3f %11d %11d %8.3f %9s %6.1f%%'
                  % (os.path.basename(run['huge'])[:12], m['name'], ins,
                     m['l1_misses'], m['l1_mpki'], stlb_hits(m),
                     m['stlb_misses'], m['stlb_mpki'],
                     fmt_cost(cost_pki(m, ins)), hp))
    for run in doc['runs']:
        if run['exit_code']:
            print('warning: run %s: program exit code %d'
                  % (run['huge'], run['exit_code']))
    if top and doc['runs']:
        res = doc['runs'][0]['result']
        ins = res['instructions'] or 1
        print('\nhottest 2 MB regions (run %s):' % doc['runs'][0]['huge'])
        for r in res['regions'][:top]:
            print('  %5.1f%% %14d  %s%s' % (
                100.0 * r['instructions'] / ins, r['instructions'],
                region_label(r), '  [2M]' if r['huge'] else ''))


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--huge', action='append', default=[],
                    help="none, all-full or a region file (repeatable)")
    ap.add_argument('--models', help='comma-separated model names '
                    '(default: every model)')
    ap.add_argument('--json', action='store_true', help='print JSON')
    ap.add_argument('--top', type=int, default=10,
                    help='hottest regions listed (default 10)')
    ap.add_argument('--qemu', default='qemu-x86_64')
    ap.add_argument('--plugin', help='itlb-plugin.so (default: build '
                    'into out/itlb)')
    ap.add_argument('--program-output', action='store_true',
                    help="keep the program's stdout (default: discarded)")
    ap.add_argument('prog', nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    prog = a.prog[1:] if a.prog[:1] == ['--'] else a.prog
    if not prog:
        ap.error('no program given')
    exe = shutil.which(prog[0])
    if not exe:
        ap.error('program not found: %s' % prog[0])
    exe = os.path.realpath(exe)
    if not shutil.which(a.qemu):
        raise SystemExit('replay: %s not found (scripts/deps.sh installs '
                         'qemu-user)' % a.qemu)
    plugin = a.plugin or build_plugin()
    models = a.models.split(',') if a.models else None
    specs = a.huge or ['none']
    doc = {'note': NOTE, 'program': prog, 'executable': exe, 'runs': []}
    with tempfile.TemporaryDirectory(prefix='itlb-') as tmp:
        for i, spec in enumerate(specs):
            regions = resolve_spec(spec, exe)
            run = run_one(a.qemu, plugin, models, regions, exe, prog, tmp, str(i),
                          a.program_output)
            run['huge'] = spec
            run['regions'] = regions
            doc['runs'].append(run)
    if a.json:
        json.dump(doc, sys.stdout, indent=1)
        print()
    else:
        print_table(doc, a.top)
    return 0


if __name__ == '__main__':
    sys.exit(main())
