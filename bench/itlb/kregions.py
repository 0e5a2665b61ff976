# SPDX-License-Identifier: GPL-2.0
"""Which 2 MB regions of a process's executable files the kernel PMD-maps.

Used by the bench in the guest (bench/guest/bench, as root) and by the
host side of the bench (bench/report_itlb.py).  Standard library only.

The kernel's answer is the PAGEMAP_SCAN ioctl on /proc/PID/pagemap (Linux
6.7+) asked for PAGE_IS_HUGE: in 6.12 that category is set for PMD-mapped
THPs (and hugetlb), never for PTE-mapped pieces of a large folio.  Each
huge virtual range is translated to file offsets through its mapping
(vm_pgoff + (va - vm_start)), so a region is named (file path, file offset
of its first byte) whatever address the process had, and a head- or
tail-padded text mapping (which starts before the text segment, or ends
after it, in the file) is named by the offsets it really maps.  The
result is checked against smaps: per mapping, regions x 2 MB must equal
FilePmdMapped, or RegionError is raised.
"""

import array
import errno
import fcntl
import hashlib
import os
import struct

PMD = 2 << 20

# include/uapi/linux/fs.h (6.7+)
PAGE_IS_FILE = 1 << 2
PAGE_IS_PRESENT = 1 << 3
PAGE_IS_SWAPPED = 1 << 4
PAGE_IS_PFNZERO = 1 << 5
PAGE_IS_HUGE = 1 << 6
# what a disagreement with smaps reports of each huge range (describe_scan)
CATEGORY_NAMES = ((PAGE_IS_PRESENT, 'present'),
                  (PAGE_IS_SWAPPED, 'not present (swap or migration entry)'),
                  (PAGE_IS_FILE, 'file'), (PAGE_IS_PFNZERO, 'zero page'))
DETAIL_MASK = (PAGE_IS_HUGE | PAGE_IS_PRESENT | PAGE_IS_SWAPPED |
               PAGE_IS_FILE | PAGE_IS_PFNZERO)
PM_SCAN_ARG = struct.Struct('<12Q')     # struct pm_scan_arg, 96 bytes
PAGE_REGION = struct.Struct('<3Q')      # struct page_region
# _IOWR('f', 16, struct pm_scan_arg)
PAGEMAP_SCAN = (3 << 30) | (PM_SCAN_ARG.size << 16) | (ord('f') << 8) | 16


class RegionError(Exception):
    pass


def pagemap_scan(fd, start, end, vec_len=256):
    """[(start, end)] of the PAGE_IS_HUGE ranges of [start, end) in the
    pagemap file fd, in address order (the kernel merges neighbours)."""
    return merge((s, e) for s, e, _ in
                 pagemap_scan_detail(fd, start, end, vec_len, PAGE_IS_HUGE))


def pagemap_scan_detail(fd, start, end, vec_len=256, ret=DETAIL_MASK):
    """[(start, end, categories)] of the PAGE_IS_HUGE ranges of
    [start, end), with the categories of ret the kernel found in each (by
    default the CATEGORY_NAMES bits; pagemap_scan() asks only for
    PAGE_IS_HUGE, so that the kernel neither looks up each huge page's
    folio for PAGE_IS_FILE nor splits ranges by category)."""
    out = []
    vec = array.array('Q', bytes(PAGE_REGION.size * vec_len))
    addr, _ = vec.buffer_info()
    while start < end:
        arg = bytearray(PM_SCAN_ARG.pack(
            PM_SCAN_ARG.size, 0, start, end, 0, addr, vec_len, 0,
            0, PAGE_IS_HUGE, 0, ret))
        n = fcntl.ioctl(fd, PAGEMAP_SCAN, arg, True)
        walk_end = PM_SCAN_ARG.unpack(arg)[4]
        out.extend(parse_scan_vec(vec.tobytes(), n))
        if walk_end <= start:
            raise RegionError('PAGEMAP_SCAN made no progress at %#x' % start)
        start = walk_end
    return out


def parse_scan_vec(buf, n):
    """The first n struct page_region of buf as [(start, end, categories)];
    only entries with PAGE_IS_HUGE (all of them, as asked)."""
    out = []
    for i in range(n):
        s, e, cat = PAGE_REGION.unpack_from(buf, i * PAGE_REGION.size)
        if e <= s:
            raise RegionError('PAGEMAP_SCAN: empty range %#x-%#x' % (s, e))
        if cat & PAGE_IS_HUGE:
            out.append((s, e, cat))
    return out


def describe_scan(fd, start, end):
    """The huge ranges of [start, end) with what the kernel says of each,
    for a RegionError: '0x...-0x...: present file; ...'."""
    try:
        got = pagemap_scan_detail(fd, start, end)
    except (OSError, RegionError) as e:
        return 'not scanned again (%s)' % e
    return '; '.join('%#x-%#x: %s' % (s, e, ' '.join(
        name for bit, name in CATEGORY_NAMES if cat & bit) or 'no category')
        for s, e, cat in got) or 'no huge range any more'


def merge(ranges):
    out = []
    for s, e in sorted(ranges):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def file_regions(m, ranges, pmd=PMD):
    """File offsets of the pmd-sized regions PMD-mapped in mapping m (a
    tools/hugetext parse_smaps() dict), given its huge virtual ranges."""
    offs = []
    for s, e in ranges:
        s, e = max(s, m['start']), min(e, m['end'])
        if s >= e:
            continue
        if s % pmd or e % pmd:
            raise RegionError('%s: huge range %#x-%#x is not %d-aligned'
                              % (m['path'], s, e, pmd))
        for va in range(s, e, pmd):
            off = m['offset'] + (va - m['start'])
            if off % pmd:
                raise RegionError('%s: %#x is PMD-mapped at file offset '
                                  '%#x, not congruent' % (m['path'], va, off))
            offs.append(off)
    return offs


def exec_file_maps(maps):
    return [m for m in maps if m['perms'][2] == 'x' and m['inode'] != 0
            and m['path'].startswith('/')]


def process_regions(maps, scan, pmd=PMD, describe=None):
    """{path: sorted file offsets} for the executable file mappings of
    maps (parse_smaps() of one smaps read); scan(start, end) gives the
    huge ranges.  RegionError when a mapping's regions disagree with its
    FilePmdMapped; describe(start, end), if given, adds what the kernel
    says of the mapping's huge ranges (present, swap or migration entry,
    file, zero page)."""
    out = {}
    for m in exec_file_maps(maps):
        ranges = scan(m['start'], m['end'])
        offs = file_regions(m, ranges, pmd)
        want = m['fields'].get('FilePmdMapped', 0)
        if len(offs) * pmd != want:
            # the other smaps fields of the mapping say what the extra PMD
            # maps (an anonymous THP counts in AnonHugePages, not here)
            raise RegionError(
                '%s %#x-%#x: PAGEMAP_SCAN finds %d PMD-mapped regions '
                '(%s), smaps FilePmdMapped %d kB (AnonHugePages %d kB, '
                'Rss %d kB, Anonymous %d kB)%s'
                % (m['path'], m['start'], m['end'], len(offs),
                   ' '.join('%#x-%#x' % r for r in ranges), want >> 10,
                   m['fields'].get('AnonHugePages', 0) >> 10,
                   m['fields'].get('Rss', 0) >> 10,
                   m['fields'].get('Anonymous', 0) >> 10,
                   '; scanned again: ' + describe(m['start'], m['end'])
                   if describe else ''))
        if offs:
            out.setdefault(m['path'], []).extend(offs)
    return {p: sorted(set(o)) for p, o in out.items()}


PF_EXITING = 0x4     # include/linux/sched.h


def exiting(pid):
    """True when pid is gone or in do_exit() (PF_EXITING in the flags of
    /proc/PID/stat): exit_mmap() then tears its mappings down while smaps
    and the scan read them, and the two need not agree."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            s = f.read()
    except OSError:
        return True
    return bool(int(s[s.rindex(')') + 2:].split()[6]) & PF_EXITING)


def read_regions(pid, read_smaps, parse_smaps, tries=5, is_exiting=exiting):
    """(maps, regions) of a live process: smaps, then PAGEMAP_SCAN, then
    smaps again; a collapse or split between the reads changes the counts,
    so it retries until smaps reads the same before and after.  None if
    the process is gone or exiting (its mappings are being torn down);
    RegionError when no try was stable and right, and at least one try
    found the scan and smaps disagreeing while smaps stood still (a try
    whose two smaps reads differ proves nothing either way)."""
    try:
        fd = os.open('/proc/%d/pagemap' % pid, os.O_RDONLY)
    except OSError:
        return None
    try:
        last = None
        for _ in range(tries):
            t0 = read_smaps(pid)
            if t0 is None:
                return None
            maps = parse_smaps(t0)
            try:
                regions = process_regions(
                    maps, lambda s, e: pagemap_scan(fd, s, e),
                    describe=lambda s, e: describe_scan(fd, s, e))
            except OSError as e:
                if e.errno in (errno.ENOTTY, errno.EINVAL, errno.EOPNOTSUPP):
                    raise RegionError('PAGEMAP_SCAN: %s (needs Linux 6.7 or '
                                      'later)' % os.strerror(e.errno))
                return None     # exited during the scan
            except RegionError as e:
                err, regions = e, None
            else:
                err = None
            t1 = read_smaps(pid)
            if t1 is None or is_exiting(pid):
                return None
            if signature(parse_smaps(t1)) != signature(maps):
                # a collapse, a fault or a split between the reads: the
                # scan may rightly differ from either smaps (a program's
                # first second under hugetext maps a PMD every few ms)
                continue
            if err is None:
                return maps, regions
            last = err          # smaps stood still around the scan
        if last and not is_exiting(pid):
            raise last
        return None             # never a stable read: no sample
    finally:
        os.close(fd)


def signature(maps):
    """What must not change between two smaps reads for a scan between
    them to be compared with them: the executable file mappings and their
    FilePmdMapped."""
    return [(m['start'], m['end'], m['offset'], m['path'],
             m['fields'].get('FilePmdMapped', 0))
            for m in exec_file_maps(maps)]


def union(a, b):
    out = {p: set(o) for p, o in a.items()}
    for p, o in b.items():
        out.setdefault(p, set()).update(o)
    return {p: sorted(o) for p, o in sorted(out.items())}


def file_id(path):
    """{'size', 'sha1'} of a file, to find the same file on another system."""
    h = hashlib.sha1()
    with open(path, 'rb') as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                break
            h.update(b)
    return {'size': os.path.getsize(path), 'sha1': h.hexdigest()}
