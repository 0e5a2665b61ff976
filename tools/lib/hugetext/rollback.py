# SPDX-License-Identifier: GPL-2.0
"""The "hugetext rollback" command: hugetext off, the huge pages of
executable mappings split, caches dropped."""

import errno
import os
import time

from .common import (
    DROP_CACHES, EXIT_ERROR, EXIT_OK, EXIT_UNSUPPORTED, HUGETEXT_ENABLED,
    HugetextError, SPLIT_HUGE_PAGES)
from .knobs import KNOB_BY_NAME, knob_writes
from .fs import (
    denied, emit_json, human, pids, pmd_size, printable, read_comm, supported)
from .smaps import aligned_range, exec_mappings


def rollback_set_argparser(parser):
    parser.add_argument('--dry-run', action='store_true',
                        help='print what would be written where, change '
                        'nothing')
    parser.add_argument('--json', action='store_true',
                        help='print the steps as JSON')


def split_targets(fs, pmd):
    """Ranges to split: for every process, each executable mapping with
    FilePmdMapped or AnonHugePages, as (pid, comm, start, end, mapping);
    start-end is the PMD-aligned part of the mapping, where its huge pages
    are.  Also returns how many processes could not be read."""
    targets = []
    skipped = 0
    for pid in pids(fs):
        try:
            maps = exec_mappings(fs, pid)
        except (FileNotFoundError, ProcessLookupError):
            continue
        except OSError:
            skipped += 1
            continue
        for m in maps:
            f = m['fields']
            if not (f.get('FilePmdMapped') or f.get('AnonHugePages')):
                continue
            lo, hi = aligned_range(m['start'], m['end'], pmd)
            if hi <= lo:
                lo, hi = m['start'], m['end']
            targets.append((pid, read_comm(fs, pid) or '?', lo, hi, m))
    return targets, skipped


# A split leaves a huge folio whole while someone else holds a reference
# to it: a task of the process executing in it, faulting on the migration
# entry the split installed.  Write again, a few times, until the range
# has nothing huge left, and say so if it still has.
SPLIT_TRIES = 10
SPLIT_WAIT = 0.05


def huge_bytes(m):
    """Bytes of mapping m that are PMD-mapped (FilePmdMapped,
    AnonHugePages)"""
    return m['fields'].get('FilePmdMapped', 0) + \
        m['fields'].get('AnonHugePages', 0)


def huge_left(fs, pid, lo, hi):
    """Bytes of pid's executable mappings in [lo, hi) still PMD-mapped
    (FilePmdMapped, AnonHugePages); None when the process is gone, -1
    when its smaps cannot be read."""
    try:
        maps = exec_mappings(fs, pid)
    except (FileNotFoundError, ProcessLookupError):
        return None
    except OSError:
        return -1
    return sum(huge_bytes(m) for m in maps
               if m['start'] < hi and m['end'] > lo)


# Knobs rollback writes 0 to.  pad_rodata is left alone: with
# pad_threshold 0 nothing is padded whatever it says.
ROLLBACK_KNOBS = ['enabled', 'pad_threshold', 'max_nr_hugetext']


def rollback_plan(fs):
    """The steps of a rollback, in order: (name, path, value, note);
    path None for sync()."""
    plan = []
    for k in (KNOB_BY_NAME[n] for n in ROLLBACK_KNOBS):
        # the 7.3 series' bit files (exec_file_enabled ...): "prctl"
        for p, val in knob_writes(fs, k, '0'):
            plan.append(('write %s to %s' % (val, os.path.basename(p)), p,
                         val, 'now %s' % fs.read_opt(p)))
    if fs.exists(SPLIT_HUGE_PAGES):
        targets, skipped = split_targets(fs, pmd_size(fs))
        for pid, comm, lo, hi, m in targets:
            huge = huge_bytes(m)
            plan.append(('split pid %d %x-%x' % (pid, lo, hi),
                         SPLIT_HUGE_PAGES, '%d,%#x,%#x' % (pid, lo, hi),
                         '%s %s, %s huge' % (printable(comm),
                                             m['path'] or '[anon]',
                                             human(huge))))
        if not targets:
            plan.append(('split huge text mappings', None, None,
                         'no executable mapping is huge'))
        if skipped:
            plan.append(('split huge text mappings', None, None,
                         '%d processes could not be read (not root?)'
                         % skipped))
    else:
        plan.append(('split huge text mappings', None, None,
                     'debugfs not mounted, skipped'))
    plan.append(('sync', None, 'sync', None))
    plan.append(('write 3 to drop_caches', DROP_CACHES, '3', None))
    return plan


def rollback_main(args, fs):
    if not supported(fs):
        if args.json:
            emit_json(fs, {'steps': [], 'ok': False,
                           'dry_run': args.dry_run})
        raise HugetextError('this kernel has no hugetext support (no %s); '
                            'nothing to roll back, nothing changed'
                            % HUGETEXT_ENABLED, EXIT_UNSUPPORTED)
    steps = []

    def step(name, outcome, ok=True, path=None, value=None):
        steps.append({'step': name, 'outcome': outcome, 'ok': ok,
                      'path': path, 'value': value})
        if not args.json:
            print('%-36s %s' % (name + ':', outcome))

    def failed(e):
        reason = e.strerror or str(e)
        if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            reason += ' (%s)' % denied(fs)
        return 'FAILED: ' + reason, False

    def split(value):
        pid, lo, hi = (int(v, 0) for v in value.split(','))
        for n in range(1, SPLIT_TRIES + 1):
            try:
                fs.write(SPLIT_HUGE_PAGES, value + '\n', append=True)
            except OSError as e:
                if not fs.exists('/proc/%d' % pid):
                    return 'process exited, nothing to split', True
                return failed(e)
            left = huge_left(fs, pid, lo, hi)
            if left is None:
                return 'process exited', True
            if left < 0:
                return 'written; its smaps cannot be read to check', True
            if not left:
                return 'split, nothing huge left (%d write%s)' % (
                    n, '' if n == 1 else 's'), True
            time.sleep(SPLIT_WAIT)
        return ('FAILED: %s still huge after %d writes (a folio in use, '
                'or collapsed again); run rollback again'
                % (human(left), SPLIT_TRIES)), False

    def write(path, value):
        if not fs.exists(path):
            return 'skipped (%s not present)' % path, True
        if path == SPLIT_HUGE_PAGES:
            return split(value)
        old = fs.read_opt(path)
        try:
            fs.write(path, value)
        except OSError as e:
            return failed(e)
        new = fs.read_opt(path)
        if new is None:  # write-only files
            return 'done', True
        return '%s -> %s' % (old, new), True

    for name, path, value, note in rollback_plan(fs):
        if value is None:
            step(name, note)
        elif args.dry_run:
            where = 'call sync()' if path is None else \
                'write %s to %s' % (value, path)
            step(name, 'would %s%s' % (where, ' (%s)' % note if note
                                       else ''), True, path, value)
        elif path is None:
            try:
                os.sync()
                step(name, 'done')
            except OSError as e:
                step(name, 'FAILED: ' + e.strerror, False)
        else:
            step(name, *write(path, value), path=path, value=value)
    failed = any(not s['ok'] for s in steps)
    if args.json:
        emit_json(fs, {'steps': steps, 'ok': not failed,
                       'dry_run': args.dry_run})
    return EXIT_ERROR if failed else EXIT_OK
