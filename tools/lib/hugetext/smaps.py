# SPDX-License-Identifier: GPL-2.0
"""The "hugetext stat" command: each process's executable mappings from
smaps, their 2 MB coverage and, for what is not huge, why."""

import errno
import os
import re
import sys
import time

from .common import (
    ENABLED_MEANING, EXIT_OK, EXIT_USAGE, HugetextError,
    PR_HUGETEXT_SET)
from .knobs import KNOB_BY_NAME, knob_label, mode_label, read_knob, read_mode
from .fs import (
    bounded_int, denied, emit_json, human, parse_uint, pids, pmd_name,
    pmd_size,
    printable, read_comm, supported)

# PID_MAX_LIMIT on 64-bit kernels: no PID is larger
PID_MAX = 4194304
# the longest --interval: a day, in milliseconds
INTERVAL_MAX = 86400000
# the most --count snapshots (beyond it a number is not read exactly:
# parse_uint)
COUNT_MAX = 10 ** 9


SMAPS_HEADER = re.compile(
    r'^([0-9a-f]+)-([0-9a-f]+)\s+(\S{4})\s+([0-9a-f]+)\s+(\S+)\s+(\d+)\s*(.*)$')


def parse_smaps(text):
    """The one smaps parser.  List of mappings: dicts with start, end,
    perms, offset, dev, inode, path, vmflags (list of two-letter flags)
    and fields (the kB fields converted to bytes)."""
    maps = []
    cur = None
    for line in text.splitlines():
        m = SMAPS_HEADER.match(line)
        if m:
            cur = {
                'start': int(m.group(1), 16),
                'end': int(m.group(2), 16),
                'perms': m.group(3),
                'offset': int(m.group(4), 16),
                'dev': m.group(5),
                'inode': int(m.group(6)),
                'path': m.group(7),
                'vmflags': [],
                'fields': {},
            }
            maps.append(cur)
            continue
        if cur is None or ':' not in line:
            continue
        key, _, rest = line.partition(':')
        parts = rest.split()
        if key == 'VmFlags':
            cur['vmflags'] = parts
        elif len(parts) == 2 and parts[1] == 'kB' and parts[0].isdigit():
            cur['fields'][key] = int(parts[0]) * 1024
    return maps


def exec_mappings(fs, pid):
    """Executable mappings of pid, parsed from its smaps."""
    maps = parse_smaps(fs.read('/proc/%d/smaps' % pid))
    return [m for m in maps if m['perms'][2] == 'x']


def aligned_regions(lo, hi, pmd):
    """Number of PMD-aligned [a, a + pmd) fully inside [lo, hi)."""
    first = -(-lo // pmd) * pmd
    last = (hi // pmd) * pmd
    return max(0, (last - first) // pmd)


def aligned_range(lo, hi, pmd):
    """(first, last): the PMD-aligned part of [lo, hi), maybe empty."""
    return -(-lo // pmd) * pmd, (hi // pmd) * pmd


def analyse_mapping(m, pmd):
    size = m['end'] - m['start']
    f = m['fields']
    anon = m['inode'] == 0
    if anon:
        # Anonymous memory has no file offset to be congruent with; any
        # PMD-aligned virtual region can be backed by a huge page.
        congruent = None
        ideal = aligned_regions(m['start'], m['end'], pmd) * pmd
        ideal_if_congruent = ideal
    else:
        congruent = (m['start'] - m['offset']) % pmd == 0
        ideal_if_congruent = aligned_regions(
            m['offset'], m['offset'] + size, pmd) * pmd
        ideal = (aligned_regions(m['start'], m['end'], pmd) * pmd
                 if congruent else 0)
    pmd_mapped = f.get('FilePmdMapped', 0)
    anon_huge = f.get('AnonHugePages', 0)
    huge = pmd_mapped + anon_huge
    return {
        'path': m['path'] or '[anon]',
        'start': m['start'],
        'end': m['end'],
        'offset': m['offset'],
        'perms': m['perms'],
        'vmflags': m['vmflags'],
        'anonymous': anon,
        'size': size,
        'rss': f.get('Rss', 0),
        'file_pmd_mapped': pmd_mapped,
        'anon_huge_pages': anon_huge,
        'huge': huge,
        'congruent': congruent,
        'ideal': ideal,
        'ideal_if_congruent': ideal_if_congruent,
        'missing': max(0, ideal - huge),
        'coverage': coverage(huge, ideal),
    }


def coverage(huge, ideal):
    if not ideal:
        return None
    return round(100.0 * huge / ideal, 1)


def kernel_context(fs):
    """What the running kernel says about hugetext, for the reasons."""
    ok = supported(fs)
    return {
        'supported': ok,
        'enabled': read_mode(fs) if ok else None,
        # the mode's knob(s) in this kernel, for messages: hugetext_enabled,
        # or the 7.3 series' exec_file_enabled/exec_anon_enabled
        'knob': mode_label(fs) if ok else 'hugetext_enabled',
        'cap_knob': (knob_label(fs, KNOB_BY_NAME['max_nr_hugetext'])
                     if ok else 'max_nr_hugetext'),
        'max_nr_hugetext': (read_knob(fs, KNOB_BY_NAME['max_nr_hugetext'])
                            if ok else None),
        'pad_threshold': (read_knob(fs, KNOB_BY_NAME['pad_threshold'])
                          if ok else None),
        # None: a kernel before hugetext_pad_rodata (tail padding only,
        # which may cover read-only segments)
        'pad_rodata': (read_knob(fs, KNOB_BY_NAME['pad_rodata'])
                       if ok else None),
    }


# what /proc/PID/status calls the prctl's value, and the prctl: the 6.12
# series' names, the 7.3 series'
PRCTL_NAMES = {'Hugetext_prctl': 'PR_SET_HUGETEXT',
               'THP_exec': 'PR_SET_THP_EXEC'}


def read_proc_status(fs, base):
    """The per-process settings in base/status: {'hugetext_prctl': what
    prctl(PR_GET_HUGETEXT) returns for the process (line Hugetext_prctl,
    only on hugetext kernels that have the prctl), 'thp_enabled': 0 after
    PR_SET_THP_DISABLE, else 1 (line THP_enabled, Linux 5.0 and later)}.
    None for a line that is missing or malformed, or for both when the
    file cannot be read."""
    out = {'hugetext_prctl': None, 'thp_enabled': None,
           'prctl_line': 'Hugetext_prctl'}
    try:
        text = fs.read(base + '/status')
    except OSError:
        return out
    for line in text.splitlines():
        key, sep, val = line.partition(':')
        if not sep:
            continue
        v = parse_uint(val.strip())
        if key in PRCTL_NAMES and v is not None and v < 1 << 32:
            out['hugetext_prctl'] = v
            out['prctl_line'] = key
        elif key == 'THP_enabled' and v in (0, 1):
            out['thp_enabled'] = v
    return out


def hugetext_own(prctl):
    """Does Hugetext_prctl value prctl mean the process's own setting
    (PR_HUGETEXT_SET), overriding hugetext_enabled?"""
    return prctl is not None and bool(prctl & PR_HUGETEXT_SET)


def hugetext_mode(kern, prctl):
    """The hugetext bits that apply to a process: its own (prctl
    PR_SET_HUGETEXT) or the knob's; None on a kernel without hugetext or
    when the knob cannot be read."""
    if not kern['supported']:
        return None
    if hugetext_own(prctl):
        return prctl & 3
    return kern['enabled']


def describe_prctl(prctl, line='Hugetext_prctl', knob='hugetext_enabled'):
    """The prctl's value (status line @line) in words; @knob: the mode's
    knob(s)."""
    if hugetext_own(prctl):
        return ('own hugetext setting: %s (%s %d, prctl %s; %s does not '
                'apply)' % (ENABLED_MEANING[prctl & 3], line, prctl,
                            PRCTL_NAMES[line], knob))
    return 'hugetext follows %s (%s %d)' % (knob, line, prctl)


def mapping_reasons(m, pmd, kern, pmd_regions, proc=None):
    """Why mapping m is not (fully) huge: list of {'code', 'detail'},
    derived only from smaps, /proc/PID/status (proc: read_proc_status(),
    plus 'file_regions' and 'jit_regions', the split of pmd_regions) and
    the knobs; empty when all of it is huge."""
    out = []
    proc = proc or {}
    prctl = proc.get('hugetext_prctl')
    thp = proc.get('thp_enabled')

    def why(code, detail):
        out.append({'code': code, 'detail': detail})

    if m['huge'] >= m['size']:
        return out
    pname = pmd_name(pmd)
    opted = []
    if thp == 0:
        opted.append('PR_SET_THP_DISABLE (THP_enabled: 0 in /proc/PID/status)')
    if 'nh' in m['vmflags']:
        # Linux 4.18-4.20 showed PR_SET_THP_DISABLE as nh; from 5.0 on,
        # which has THP_enabled in status, nh is MADV_NOHUGEPAGE alone.
        opted.append('MADV_NOHUGEPAGE (VmFlags nh)' if thp is not None else
                     'MADV_NOHUGEPAGE or PR_SET_THP_DISABLE (VmFlags nh)')
    if opted:
        why('opted-out', '; '.join(opted))
    if m['congruent'] is False:
        why('not-congruent', 'start - offset = %#x mod %s' % (
            (m['start'] - m['offset']) % pmd, pname))
    if not m['ideal_if_congruent']:
        why('too-small', 'no full %s-aligned %s region inside the mapping'
            % (pname, 'virtual' if m['anonymous'] else 'file'))
    bit = 2 if m['anonymous'] else 1
    mode = hugetext_mode(kern, prctl)
    cap = kern['max_nr_hugetext']
    # The cap counts file text and JIT code alike: they share its budget.
    # It explains nothing where the mapping opted out, or where the mode
    # that applies leaves its kind out.
    if (m['missing'] and cap and not opted and (mode or 0) & bit and
            pmd_regions >= cap):
        split = ''
        if 'file_regions' in proc:
            split = ' (%d file text, %d JIT code)' % (proc['file_regions'],
                                                     proc['jit_regions'])
        why('capped', '%s %d and the process has %d %s '
            'regions of code PMD-mapped%s' % (
                kern.get('cap_knob', 'max_nr_hugetext'), cap, pmd_regions,
                pname, split))
    if m['missing'] and not any(r['code'] in ('opted-out', 'capped')
                                for r in out):
        kind = 'anonymous exec memory' if bit == 2 else 'file text'
        knob = ('%s (unreadable)' % kern['knob'] if kern['enabled'] is None
                else '%s %d' % (kern['knob'], kern['enabled']))
        line = proc.get('prctl_line', 'Hugetext_prctl') if proc else \
            'Hugetext_prctl'
        if not kern['supported']:
            why('no-hugetext', '%s of full regions not huge; this kernel '
                'has no hugetext' % human(m['missing']))
        elif hugetext_own(prctl) and not mode & bit:
            why('process-off', '%s of full regions not huge; the process\'s '
                'own setting, %s %d (prctl %s, overriding %s), does not '
                'cover %s' % (human(m['missing']), line, prctl,
                              PRCTL_NAMES[line], knob, kind))
        elif not (mode or 0) & bit:
            why('hugetext-off', '%s of full regions not huge; '
                '%s does not cover %s%s' % (
                    human(m['missing']), knob, kind,
                    '' if prctl is None else
                    ', and the process follows it (%s %d)'
                    % (line, prctl)))
        else:
            why('not-collapsed', '%s of full regions not huge (not '
                'collapsed yet, or the collapse failed)'
                % human(m['missing']))
    partial = m['size'] - (m['ideal'] if m['congruent'] is not False
                           else 0)
    if m['congruent'] is not False and m['ideal'] and partial > 0:
        why('partial-regions', '%s outside full %s regions stays on small '
            'pages' % (human(partial), pname))
    return out


def read_cmdline(fs, base):
    try:
        cmdline = fs.read_bytes(base + '/cmdline')
    except OSError:
        return ''
    return cmdline.rstrip(b'\0').replace(b'\0', b' ').decode(
        errors='replace')


def stat_process(fs, pid, pmd, kern):
    """Raises FileNotFoundError/ProcessLookupError if pid went away."""
    base = '/proc/%d' % pid
    if not fs.exists(base):
        raise FileNotFoundError(errno.ENOENT, 'no such process', base)
    comm = read_comm(fs, pid)
    if comm is None:
        comm = fs.read(base + '/comm')      # the error as it is
    cmdline = read_cmdline(fs, base)
    mappings = [analyse_mapping(m, pmd) for m in exec_mappings(fs, pid)]
    proc = read_proc_status(fs, base)
    # PMD-mapped code regions, which max_nr_hugetext caps: file text
    # (FilePmdMapped) and JIT code (AnonHugePages of anonymous executable
    # mappings) share the budget.
    proc['file_regions'] = sum(m['file_pmd_mapped'] for m in mappings
                               if not m['anonymous']) // pmd
    proc['jit_regions'] = sum(m['anon_huge_pages'] for m in mappings
                              if m['anonymous']) // pmd
    pmd_regions = proc['file_regions'] + proc['jit_regions']
    for m in mappings:
        m['reasons'] = mapping_reasons(m, pmd, kern, pmd_regions, proc)
    t = totals(mappings)
    t['pmd_regions'] = pmd_regions
    return {'pid': pid, 'comm': comm, 'cmdline': cmdline,
            'hugetext_prctl': proc['hugetext_prctl'],
            # what the status file calls it, and the mode's knob(s)
            'prctl_line': proc['prctl_line'], 'knob': kern['knob'],
            'thp_enabled': proc['thp_enabled'],
            'hugetext_mode': hugetext_mode(kern, proc['hugetext_prctl']),
            'mappings': mappings, 'totals': t}


TOTAL_KEYS = ['size', 'rss', 'file_pmd_mapped', 'anon_huge_pages', 'huge',
              'ideal', 'ideal_if_congruent', 'missing']


def totals(mappings):
    t = {k: sum(m[k] for m in mappings) for k in TOTAL_KEYS}
    t['mappings'] = len(mappings)
    t['congruent'] = sum(1 for m in mappings if m['congruent'] is True)
    t['not_congruent'] = sum(1 for m in mappings if m['congruent'] is False)
    t['coverage'] = coverage(t['huge'], t['ideal'])
    return t


def stat_set_argparser(parser):
    parser.add_argument('--pid', action='append', default=[],
                        metavar='PID', help='process to report (repeatable; '
                        'one argument may hold several PIDs separated by '
                        'blanks or commas, e.g. --pid "$(pidof postgres)")')
    parser.add_argument('--comm', action='append', default=[],
                        metavar='NAME', help='processes whose comm '
                        '(/proc/PID/comm) is NAME (repeatable)')
    parser.add_argument('--cgroup', action='append', default=[],
                        metavar='PATH', help='processes in PATH/cgroup.procs;'
                        ' PATH relative to /sys/fs/cgroup, or absolute '
                        '(repeatable)')
    parser.add_argument('--all', action='store_true',
                        help='report every process (the default without '
                        '--pid, --comm or --cgroup)')
    parser.add_argument('--rollup', action='store_true',
                        help='one line per process, the biggest loss (bytes '
                        'of full regions not PMD-mapped) first')
    parser.add_argument('--interval', metavar='MS',
                        type=bounded_int(1, INTERVAL_MAX, 'milliseconds'),
                        help='watch: print a snapshot every MS milliseconds '
                        '(1..%d, a day; with --json one JSON object per '
                        'line)' % INTERVAL_MAX)
    parser.add_argument('--count', metavar='N',
                        type=bounded_int(1, COUNT_MAX, 'snapshots'),
                        help='with --interval: stop after N snapshots '
                        '(default: until interrupted)')
    parser.add_argument('--json', action='store_true',
                        help='print machine-readable JSON (bytes)')


def fmt_cov(c):
    return '-' if c is None else '%.1f%%' % c


def fmt_congr(c):
    return {None: 'n/a', True: 'yes', False: 'NO'}[c]


def format_process(p):
    lines = []
    cmd = p['cmdline'] or '[%s]' % p['comm']
    if len(cmd) > 60:
        cmd = cmd[:57] + '...'
    lines.append('PID %d (%s) %s' % (p['pid'], printable(p['comm']),
                                      printable(cmd)))
    setting = []
    if p.get('hugetext_prctl') is not None:
        setting.append(describe_prctl(p['hugetext_prctl'],
                                      p.get('prctl_line', 'Hugetext_prctl'),
                                      p.get('knob', 'hugetext_enabled')))
    if p.get('thp_enabled') == 0:
        setting.append('THP disabled: PR_SET_THP_DISABLE (THP_enabled 0)')
    if setting:
        lines.append('  ' + '; '.join(setting))
    if not p['mappings']:
        lines.append('  no executable mappings')
        return lines
    lines.append('  %-14s %7s %7s %7s %7s %7s %7s %7s  %s' % (
        'start', 'text', 'rss', 'pmdmap', 'anonhuge', 'congr', 'ideal',
        'cover', 'path'))
    for m in p['mappings']:
        ideal = human(m['ideal'])
        if m['congruent'] is False and m['ideal_if_congruent']:
            ideal = '0(%s)' % human(m['ideal_if_congruent'])
        lines.append('  %-14x %7s %7s %7s %7s %7s %7s %7s  %s' % (
            m['start'], human(m['size']), human(m['rss']),
            human(m['file_pmd_mapped']), human(m['anon_huge_pages']),
            fmt_congr(m['congruent']), ideal, fmt_cov(m['coverage']),
            m['path']))
        for r in m['reasons']:
            lines.append('  %14s why: %s: %s' % ('', r['code'], r['detail']))
    return lines


def format_totals(result):
    t = result['totals']
    return [
        'system-wide (%d processes with executable mappings, %d skipped):'
        % (t['processes'], t['skipped']),
        '  text %s, rss %s, huge %s (FilePmdMapped %s + AnonHugePages %s)'
        % (human(t['size']), human(t['rss']), human(t['huge']),
           human(t['file_pmd_mapped']), human(t['anon_huge_pages'])),
        '  ideal %s, coverage %s, %s of it not huge; %d congruent, %d not '
        'congruent file mappings (%s more if made congruent)' % (
            human(t['ideal']), fmt_cov(t['coverage']), human(t['missing']),
            t['congruent'], t['not_congruent'],
            human(t['ideal_if_congruent'] - t['ideal'])),
        '  (PMD size %s; shared libraries are counted once per process)'
        % pmd_name(result['pmd_size']),
    ]


def format_stat(result):
    lines = []
    for p in result['processes']:
        lines += format_process(p) + ['']
    return '\n'.join(lines + format_totals(result))


def rollup(procs):
    """One entry per process, the most bytes of full regions not
    PMD-mapped first (then by PID)."""
    rows = []
    for p in procs:
        t = p['totals']
        rows.append({'pid': p['pid'], 'comm': p['comm'],
                     'hugetext_prctl': p['hugetext_prctl'],
                     'thp_enabled': p['thp_enabled'],
                     'hugetext_mode': p['hugetext_mode'],
                     'text': t['size'], 'ideal': t['ideal'],
                     'huge': t['huge'], 'missing': t['missing'],
                     'coverage': t['coverage'],
                     'if_congruent': t['ideal_if_congruent'] - t['ideal']})
    rows.sort(key=lambda r: (-r['missing'], r['pid']))
    return rows


def format_rollup(result):
    lines = ['%7s %-16s %7s %7s %7s %8s %7s %9s' % (
        'PID', 'COMM', 'TEXT', 'IDEAL', 'HUGE', 'NOTHUGE', 'COVER',
        '+CONGR')]
    for r in result['rollup']:
        lines.append('%7d %-16s %7s %7s %7s %8s %7s %9s' % (
            r['pid'], printable(r['comm'])[:16], human(r['text']),
            human(r['ideal']),
            human(r['huge']), human(r['missing']), fmt_cov(r['coverage']),
            human(r['if_congruent'])))
    lines.append('(NOTHUGE = IDEAL - HUGE: bytes of full %s regions that '
                 'could be PMD-mapped now but are not; +CONGR = more if '
                 'the text were congruent)' % pmd_name(result['pmd_size']))
    return '\n'.join(lines + [''] + format_totals(result))


def parse_pids(values):
    """PIDs from --pid arguments, each holding one or more PIDs separated
    by blanks or commas; duplicates dropped, order kept."""
    out = []
    for v in values:
        words = re.split(r'[\s,]+', v.strip())
        if words == ['']:
            raise HugetextError('--pid %r: no PID given' % v, EXIT_USAGE)
        for w in words:
            pid = parse_uint(w)
            if not pid or pid > PID_MAX:
                raise HugetextError('--pid: invalid PID %r (a PID is a '
                                    'decimal number from 1 to %d)'
                                    % (w, PID_MAX), EXIT_USAGE)
            if pid not in out:
                out.append(pid)
    return out


CGROUP_DIRS = ['/sys/fs/cgroup', '/sys/fs/cgroup/unified']


def cgroup_mounts(fs):
    """Where cgroup hierarchies are mounted, cgroup2 first (from
    /proc/mounts; /sys/fs/cgroup and, where systemd's hybrid layout puts
    cgroup2, /sys/fs/cgroup/unified, when it cannot be read)."""
    v2, v1 = [], []
    for line in (fs.read_opt('/proc/mounts') or '').splitlines():
        f = line.split()
        if len(f) >= 3 and f[2] in ('cgroup2', 'cgroup'):
            d = re.sub(r'\\([0-7]{3})', lambda m: chr(int(m.group(1), 8)),
                       f[1])
            (v2 if f[2] == 'cgroup2' else v1).append(d)
    return v2 + v1 or CGROUP_DIRS


def cgroup_procs(fs, path):
    """PIDs in PATH/cgroup.procs: PATH relative to a cgroup mount, or
    absolute: a directory as given, else a cgroup path as /proc/PID/cgroup
    shows it, below each cgroup mount (cgroup_mounts())."""
    cands = [path] if path.startswith('/') else []
    cands += [d.rstrip('/') + '/' + path.lstrip('/')
              for d in cgroup_mounts(fs)]
    for c in cands:
        f = c.rstrip('/') + '/cgroup.procs'
        if fs.exists(f):
            return [int(w) for w in fs.read(f).split() if w.isdigit()]
    raise HugetextError('--cgroup %s: no cgroup.procs in %s' % (
        path, ', '.join(c.rstrip('/') for c in cands)))


def select_pids(args, fs):
    """(explicit PIDs that must exist, PIDs found by --comm/--cgroup that
    may vanish, scan everything?)."""
    named = parse_pids(args.pid)
    # the tool's own process only where named
    me = os.getpid() if fs.live else None
    found = set()
    for name in args.comm:
        hits = [p for p in pids(fs) if read_comm(fs, p) == name]
        if not [p for p in hits if p != me]:
            raise HugetextError('no process named %s%s' % (
                printable(name), ' but this tool' if hits else ''))
        found.update(hits)
    for path in args.cgroup:
        found.update(cgroup_procs(fs, path))
    scan = args.all or not (args.pid or args.comm or args.cgroup)
    return named, sorted(found - set(named) - {me}), scan, me


# why root may not read a process's smaps
ROOT_REFUSED = ('refused although running as root (the kernel\'s ptrace '
                'access check: no CAP_SYS_PTRACE over that process, as in a '
                'container or another user namespace, or a security module '
                'such as Yama\'s ptrace_scope 3)')


def stat_snapshot(args, fs, pmd):
    kern = kernel_context(fs)
    named, found, scan, me = select_pids(args, fs)
    procs = {}
    skipped = 0
    for pid in named:
        try:
            procs[pid] = stat_process(fs, pid, pmd, kern)
        except (FileNotFoundError, ProcessLookupError):
            raise HugetextError('no such process: %d' % pid)
        except PermissionError:
            raise HugetextError('cannot read /proc/%d/smaps: %s' % (
                pid, denied(fs, 'must be root or the owner of the process',
                            ROOT_REFUSED)))
    for pid, keep_empty in ([(p, True) for p in found] +
                            [(p, False) for p in (pids(fs) if scan else [])
                             if p not in procs]):
        if pid in procs or pid == me:
            continue
        try:
            p = stat_process(fs, pid, pmd, kern)
        except (FileNotFoundError, ProcessLookupError):
            continue        # exited while we were scanning
        except OSError:
            skipped += 1    # typically EACCES when not root
            continue
        if p['mappings'] or keep_empty:
            procs[pid] = p
    plist = [procs[p] for p in sorted(procs)]
    t = totals([m for p in plist for m in p['mappings']])
    t['processes'] = len([p for p in plist if p['mappings']])
    t['skipped'] = skipped
    result = {'pmd_size': pmd, 'kernel': kern, 'totals': t}
    if args.rollup:
        result['rollup'] = rollup(plist)
    else:
        result['processes'] = plist
    return result


def stat_main(args, fs):
    if args.count and not args.interval:
        raise HugetextError('--count needs --interval', EXIT_USAGE)
    pmd = pmd_size(fs)
    n = 0
    while True:
        result = stat_snapshot(args, fs, pmd)
        n += 1
        if args.interval:
            result['snapshot'] = n
            result['time'] = round(time.time(), 3)
        if args.json:
            emit_json(fs, result, one_line=bool(args.interval))
        else:
            if args.interval:
                print('--- snapshot %d at %s ---' % (
                    n, time.strftime('%Y-%m-%d %H:%M:%S',
                                     time.localtime(result['time']))))
            print(format_rollup(result) if args.rollup
                  else format_stat(result))
        if not args.interval or (args.count and n >= args.count):
            return EXIT_OK
        sys.stdout.flush()
        time.sleep(args.interval / 1000.0)
