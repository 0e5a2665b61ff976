# SPDX-License-Identifier: GPL-2.0
"""The "hugetext bench" command: a command timed with hugetext on and off,
its page cache evicted before each run."""

import argparse
import errno
import mmap
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from .common import (
    ENABLED_NAMES, EXIT_ERROR, EXIT_OK, EXIT_USAGE, HugetextError,
    SPLIT_HUGE_PAGES)
from .knobs import KNOB_BY_NAME, knob_label, read_knob, write_knob_value
from .fs import (
    bounded_int, denied, emit_json, human, parse_uint, pids, require_supported,
    supported, vmstat_counters)
from .smaps import INTERVAL_MAX, exec_mappings


PERF_EVENTS = ['cycles', 'instructions', 'iTLB-load-misses']


def parse_perf_csv(text):
    """{event: count or None if not supported/counted} from perf stat -x,"""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith('#'):
            continue
        f = line.split(',')
        if len(f) < 3:
            continue
        ev = f[2].split(':')[0]
        if ev not in PERF_EVENTS:
            continue
        try:
            out[ev] = int(float(f[0]))
        except ValueError:
            out[ev] = None
    return out


def perf_probe():
    """(events perf can really count here, reason the others cannot).

    An event counts if `perf stat` on `true` reports a number for it, and
    cycles counts only if that number is not zero: a VM without a virtual
    PMU (QEMU TCG) either reports "<not supported>" or zeros, and zeros
    must not be shown as measurements."""
    perf = shutil.which('perf')
    if not perf:
        return [], 'perf is not installed (Debian: apt install linux-perf)'
    try:
        p = subprocess.run([perf, 'stat', '-x,', '-e', ','.join(PERF_EVENTS),
                            'true'], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=20,
                           universal_newlines=True)
    except subprocess.TimeoutExpired:
        return [], 'perf stat did not finish within 20s'
    except (OSError, subprocess.SubprocessError) as e:
        return [], 'perf could not run: %s' % e
    if p.returncode != 0:
        why = next((ln.strip() for ln in p.stderr.splitlines()
                    if ln.strip()), 'no message')
        return [], 'perf stat failed (exit %d): %s' % (p.returncode, why)
    counts = parse_perf_csv(p.stderr)
    if counts.get('cycles') == 0:
        return [], ('perf counted 0 cycles: no working hardware PMU '
                    '(a VM without a virtual PMU, e.g. QEMU TCG)')
    events = [e for e in PERF_EVENTS if counts.get(e) is not None]
    missing = [e for e in PERF_EVENTS if e not in events]
    if not events:
        return [], ('the CPU exposes none of %s to perf (not supported: '
                    'e.g. QEMU TCG or a VM without a virtual PMU)'
                    % ', '.join(PERF_EVENTS))
    if missing:
        return events, '%s not supported by this CPU or VM' % ', '.join(
            missing)
    return events, None


def process_tree(fs, root):
    """root and its descendants (from the ppid field of /proc/N/stat)."""
    parent = {}
    for pid in pids(fs):
        try:
            st = fs.read('/proc/%d/stat' % pid)
            parent[pid] = int(st[st.rindex(')') + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    tree, todo = [], [root]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo += [c for c, pp in parent.items() if pp == p]
    return tree


class Sampler(threading.Thread):
    """While a benchmarked command runs, samples every period seconds the
    FilePmdMapped of the executable mappings of its process tree (minus
    skip, the perf wrapper) and notes the files those mappings map."""

    def __init__(self, fs, root, skip, period):
        super().__init__(daemon=True)
        self.fs, self.root, self.skip, self.period = fs, root, skip, period
        self.stop = threading.Event()
        self.last = None
        self.samples = 0
        self.files = set()

    def run(self):
        while not self.stop.wait(self.period):
            total, seen = 0, False
            for pid in process_tree(self.fs, self.root):
                try:
                    maps = [] if pid == self.skip else \
                        exec_mappings(self.fs, pid)
                except OSError:
                    continue
                seen = seen or bool(maps)
                for m in maps:
                    total += m['fields'].get('FilePmdMapped', 0)
                    if m['inode'] and m['path'].startswith('/'):
                        self.files.add(m['path'])
            if seen:
                self.last = total
                self.samples += 1


def resident_pages(path):
    """(pages in the page cache, pages) of path, by mincore(2) through
    ctypes; None where that cannot be done."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        vp, sz = ctypes.c_void_p, ctypes.c_size_t
        libc.mmap.restype = vp
        libc.mmap.argtypes = [vp, sz, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.c_long]
        libc.mincore.argtypes = [vp, sz, ctypes.c_char_p]
        libc.munmap.argtypes = [vp, sz]
        fd = os.open(path, os.O_RDONLY)
    except (OSError, ImportError, AttributeError):
        return None
    try:
        size = os.fstat(fd).st_size
        n = -(-size // mmap.PAGESIZE)
        if not n:
            return 0, 0
        addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, vp(-1).value):
            return None
        try:
            vec = ctypes.create_string_buffer(n)
            if libc.mincore(addr, size, vec) != 0:
                return None
            return sum(b & 1 for b in vec.raw), n
        finally:
            libc.munmap(addr, size)
    finally:
        os.close(fd)


def evict(fs, paths):
    """Drop paths from the page cache before a run: split their huge page
    cache with split_huge_pages "<path>,0x0,0x<pages>" where debugfs has
    it (page offsets), then posix_fadvise(POSIX_FADV_DONTNEED), then count
    what is still cached.  Returns (method, {path: result})."""
    split = fs.exists(SPLIT_HUGE_PAGES)
    method = ('split_huge_pages <path>,0x0,0x<pages> + posix_fadvise '
              'DONTNEED' if split else
              'posix_fadvise DONTNEED only (no %s: page cache that other '
              'processes map, e.g. libc, stays, huge or not)'
              % SPLIT_HUGE_PAGES)
    out = {}
    for path in sorted(paths):
        errs = []
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as e:
            out[path] = {'error': e.strerror}
            continue
        try:
            pages = -(-os.fstat(fd).st_size // mmap.PAGESIZE)
            if split and ',' not in path:
                try:
                    fs.write(SPLIT_HUGE_PAGES, '%s,0x0,%#x\n' % (path, pages),
                             append=True)
                except OSError as e:
                    errs.append('split: ' + (e.strerror or str(e)))
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        except OSError as e:
            errs.append('fadvise: ' + (e.strerror or str(e)))
        finally:
            os.close(fd)
        res = resident_pages(path)
        out[path] = {'errors': errs, 'pages': pages,
                     'cached_after': None if res is None else res[0]}
    return method, out


def run_once(fs, cmd, events, period):
    """Wall time, perf counters and coverage of one run of cmd."""
    counters = {}
    if events:
        fd, out = tempfile.mkstemp(prefix='hugetext-perf.')
        os.close(fd)
        full = ['perf', 'stat', '-x,', '-o', out, '-e', ','.join(events),
                '--'] + cmd
    else:
        full = cmd
    before = vmstat_counters(fs)
    try:
        t0 = time.perf_counter()
        p = subprocess.Popen(full, stdout=subprocess.DEVNULL)
        sampler = Sampler(fs, p.pid, p.pid if events else None, period)
        sampler.start()
        p.wait()
        wall = time.perf_counter() - t0
        sampler.stop.set()
        sampler.join()
        if events:
            with open(out) as f:
                counters = parse_perf_csv(f.read())
    finally:
        if events:
            os.unlink(out)
    if p.returncode != 0:
        raise HugetextError('command failed (%s): %s' % (
            'exit code %d' % p.returncode if p.returncode > 0 else
            'killed by signal %d' % -p.returncode, ' '.join(cmd)))
    after = vmstat_counters(fs)
    deltas = {k: after[k] - before.get(k, 0) for k in after
              if after[k] != before.get(k, 0)}
    cov = {'file_pmd_mapped_last_sample': sampler.last,
           'samples': sampler.samples, 'vmstat_deltas': deltas}
    return wall, counters, cov, sampler.files


def bench_set_argparser(parser):
    parser.add_argument('-n', type=int, default=5, metavar='N',
                        help='runs per mode (default 5)')
    parser.add_argument('--mode', default='1', metavar='MODE',
                        help='hugetext mode for the "on" runs '
                        '(default 1 = file)')
    parser.add_argument('--sample-ms', default=100, metavar='MS',
                        type=bounded_int(1, INTERVAL_MAX, 'milliseconds'),
                        help='sample the FilePmdMapped of the running '
                        'command every MS ms (default 100, at most %d, a '
                        'day)' % INTERVAL_MAX)
    parser.add_argument('--no-perf', action='store_true',
                        help='do not collect hardware counters')
    parser.add_argument('--json', action='store_true',
                        help='print machine-readable JSON')
    parser.add_argument('cmd', nargs=argparse.REMAINDER, metavar='-- CMD',
                        help='command to run')


def summarize(samples):
    if not samples:
        return None
    return {'mean': statistics.mean(samples), 'min': min(samples),
            'median': statistics.median(samples), 'max': max(samples),
            'stddev': statistics.stdev(samples) if len(samples) > 1 else 0.0,
            'runs': len(samples)}


def fmt_spread(s, fmt):
    return 'min %s median %s max %s' % (fmt(s['min']), fmt(s['median']),
                                        fmt(s['max']))


def bench_main(args, fs):
    cmd = args.cmd[1:] if args.cmd[:1] == ['--'] else args.cmd
    if not cmd:
        raise HugetextError('no command given: hugetext bench [-n N] -- CMD',
                            EXIT_USAGE)
    if args.n < 1:
        raise HugetextError('-n must be at least 1', EXIT_USAGE)
    on = ENABLED_NAMES.get(args.mode, parse_uint(args.mode))
    if on is None or not 1 <= on <= 3:
        raise HugetextError('invalid --mode %r (1..3, file, anon, all)'
                            % args.mode, EXIT_USAGE)
    prog = shutil.which(cmd[0])
    if not prog:
        raise HugetextError('command not found: %s' % cmd[0], EXIT_USAGE)
    if args.json and not supported(fs):
        emit_json(fs, {'command': cmd, 'runs': 0, 'runs_detail': []})
    require_supported(fs)
    knob = KNOB_BY_NAME['enabled']
    label = knob_label(fs, knob)
    original = read_knob(fs, knob)
    if original is None:
        raise HugetextError('cannot read %s, so bench could not put it back '
                            'after the runs; nothing run' % label)
    if args.no_perf:
        events, why_not = [], 'disabled with --no-perf'
    else:
        events, why_not = perf_probe()

    def setmode(v):
        try:
            write_knob_value(fs, knob, v)
        except OSError as e:
            if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                raise HugetextError('cannot write %s: %s (%s)'
                                    % (label, e.strerror, denied(fs)))
            raise HugetextError('cannot write %s: %s'
                                % (label, e.strerror))

    def log(msg):
        if not args.json:
            print(msg, file=sys.stderr)

    files = {os.path.realpath(prog)}
    runs = []
    method = None
    period = args.sample_ms / 1000.0
    old_term = signal.signal(signal.SIGTERM,
                             lambda s, f: (_ for _ in ()).throw(
                                 KeyboardInterrupt()))
    try:
        # Warm-up, not counted: finds the shared libraries to evict too.
        setmode(0)
        evict(fs, files)
        files |= run_once(fs, cmd, events, period)[3]
        log('warm-up run (hugetext off, not counted): %d files to evict '
            'before each run' % len(files))
        for i in range(args.n):
            # ABBA order so that warm-up effects hit both modes equally.
            order = ('on', 'off') if i % 2 == 0 else ('off', 'on')
            for mode in order:
                setmode(on if mode == 'on' else 0)
                method, ev = evict(fs, files)
                wall, c, cov, _ = run_once(fs, cmd, events, period)
                runs.append({'pair': i + 1, 'mode': mode, 'wall': wall,
                             'counters': c, 'coverage': cov,
                             'eviction': ev})
                last = cov['file_pmd_mapped_last_sample']
                log('run %d/%d %-3s %.3fs FilePmdMapped %s' % (
                    i + 1, args.n, mode, wall, 'not sampled' if last is None
                    else human(last)))
    finally:
        signal.signal(signal.SIGTERM, old_term)
        restored = original
        try:
            write_knob_value(fs, knob, original)
        except OSError as e:
            restored = None
            print('hugetext: could not restore %s to %s: %s'
                  % (label, original, e.strerror), file=sys.stderr)
    out = bench_report(args, cmd, on, restored, events, why_not, runs,
                       method)
    out['original'] = original
    if args.json:
        emit_json(fs, out)
    else:
        print(format_bench(out, events))
    return EXIT_OK if restored is not None else EXIT_ERROR


def bench_report(args, cmd, on, original, events, why_not, runs, method):
    def of(mode, key):
        return [r[key] for r in runs if r['mode'] == mode]

    out = {'command': cmd, 'runs': args.n, 'on_value': on,
           'restored': original, 'wall_seconds': {}, 'coverage': {},
           'counters': None, 'runs_detail': runs,
           'eviction_method': method, 'sample_ms': args.sample_ms,
           'counters_unavailable': [e for e in PERF_EVENTS
                                    if e not in events],
           'counters_unavailable_reason': why_not}
    for mode in ('on', 'off'):
        out['wall_seconds'][mode] = summarize(of(mode, 'wall'))
        out['coverage'][mode] = summarize(
            [c['file_pmd_mapped_last_sample'] for c in of(mode, 'coverage')
             if c['file_pmd_mapped_last_sample'] is not None])
    if events:
        out['counters'] = {}
        for mode in ('on', 'off'):
            out['counters'][mode] = {}
            for e in events:
                vals = [c.get(e) for c in of(mode, 'counters')]
                out['counters'][mode][e] = summarize(
                    [v for v in vals if v is not None])
    on_mean = out['wall_seconds']['on']['mean']
    out['speedup'] = (out['wall_seconds']['off']['mean'] / on_mean
                      if on_mean else None)
    pairs = {}
    for r in runs:
        pairs.setdefault(r['pair'], {})[r['mode']] = r['wall']
    out['speedup_per_pair'] = summarize(
        [p['off'] / p['on'] for p in pairs.values() if p['on']])
    cached = [(e['cached_after'], e['pages']) for r in runs
              for e in r['eviction'].values() if 'pages' in e]
    out['eviction_checked'] = all(c is not None for c, _ in cached)
    out['cached_after_eviction'] = (
        summarize([c for c, _ in cached]) if out['eviction_checked']
        else None)
    out['off_runs_with_pmd_mapped_text'] = sum(
        1 for c in of('off', 'coverage')
        if c['file_pmd_mapped_last_sample'])
    return out


def format_bench(out, events):
    lines = ['command: %s' % ' '.join(out['command']),
             'before each run: %s' % out['eviction_method']]
    cached = out['cached_after_eviction']
    lines.append('  eviction checked with mincore: %s' % (
        'not possible here' if not out['eviction_checked'] else
        'after it, min %d max %d pages of a file still cached (mapped by '
        'other processes)' % (cached['min'], cached['max'])
        if cached else 'no file evicted'))
    lines.append('%-22s %9s %9s %9s %9s %9s' % (
        'wall time', 'mean', 'min', 'median', 'max', 'stddev'))
    labels = (('on', 'hugetext on (%d)' % out['on_value']),
              ('off', 'hugetext off (0)'))
    for mode, label in labels:
        w = out['wall_seconds'][mode]
        lines.append('%-22s %8.4fs %8.4fs %8.4fs %8.4fs %8.4fs' % (
            label, w['mean'], w['min'], w['median'], w['max'], w['stddev']))
    s = out['speedup_per_pair']
    if s:
        lines.append('speedup (off/on time of each ABBA pair, %d pairs): '
                     'median %.3fx, range %.3fx..%.3fx' % (
                         s['runs'], s['median'], s['min'], s['max']))
    lines.append('coverage: FilePmdMapped of the command\'s executable '
                 'mappings at the last sample before it exited (every %d ms)'
                 % out['sample_ms'])
    for mode, label in labels:
        c = out['coverage'][mode]
        lines.append('  %-20s %s' % (label, 'no run lasted long enough '
                                     'to be sampled' if c is None else
                                     '%s (%d runs sampled)' % (
                                         fmt_spread(c, human), c['runs'])))
    if out['off_runs_with_pmd_mapped_text']:
        lines.append('WARNING: %d runs with hugetext off had PMD-mapped '
                     'text: the eviction did not take, the modes are mixed'
                     % out['off_runs_with_pmd_mapped_text'])
    if events:
        lines.append('%-22s %-16s %16s %16s %8s' % (
            'counter', 'mode', 'mean', 'min', 'stddev%'))
        for e in events:
            for mode, label in labels:
                c = out['counters'][mode][e]
                if c is None:
                    lines.append('%-22s %-16s %16s' % (e, label,
                                                       'not counted'))
                    continue
                rel = 100.0 * c['stddev'] / c['mean'] if c['mean'] else 0.0
                lines.append('%-22s %-16s %16.0f %16.0f %7.1f%%'
                             % (e, label, c['mean'], c['min'], rel))
    if out['counters_unavailable_reason']:
        lines.append('counters unavailable: %s'
                     % out['counters_unavailable_reason'])
    lines.append('hugetext mode restored to %s' % out['restored']
                 if out['restored'] is not None else
                 'hugetext mode NOT restored to %s (the write failed)'
                 % out.get('original'))
    return '\n'.join(lines)
