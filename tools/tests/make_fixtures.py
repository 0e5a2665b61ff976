#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Regenerate tools/tests/fixtures/{patched,stock}: fake /proc and /sys trees.

patched/: a kernel with the hugetext series (hugetext_enabled=1).
stock/:   the same machine without the series (no hugetext_* files).

Processes in both trees:
  100  khugepaged  kernel thread, empty smaps
  1234 cc1         ET_EXEC-like text mapping, 20 MB, congruent, 12 MB of it
                   FilePmdMapped; plus libc
  2345 myserver    PIE whose 6 MB text is NOT congruent (start - offset is
                   0x44000 mod 2 MB), libc, and a 4 MB anonymous rwx JIT
                   region half backed by AnonHugePages
Each has a /proc/PID/status: the user processes' say THP_enabled: 1 and,
in patched/ only, Hugetext_prctl: 0 (they follow hugetext_enabled); the
kernel thread's has neither line (no mm).
Run: python3 tools/tests/make_fixtures.py
"""

import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
KB = 1024
MB = 1024 * KB

SMAPS_FIELDS = ['Size', 'KernelPageSize', 'MMUPageSize', 'Rss', 'Pss',
                'Pss_Dirty', 'Shared_Clean', 'Shared_Dirty', 'Private_Clean',
                'Private_Dirty', 'Referenced', 'Anonymous', 'KSM', 'LazyFree',
                'AnonHugePages', 'ShmemPmdMapped', 'FilePmdMapped',
                'Shared_Hugetlb', 'Private_Hugetlb', 'Swap', 'SwapPss',
                'Locked']


def mapping(start, end, perms, offset, dev, inode, path, rss=None,
            pmd=0, anon_huge=0, anonymous=0, vmflags='rd mr mw me'):
    size = end - start
    if rss is None:
        rss = size
    vals = {k: 0 for k in SMAPS_FIELDS}
    vals.update(Size=size // KB, KernelPageSize=4, MMUPageSize=4,
                Rss=rss // KB, Pss=rss // KB, Referenced=rss // KB,
                Private_Clean=(rss - anonymous) // KB,
                Private_Dirty=anonymous // KB, Anonymous=anonymous // KB,
                Pss_Dirty=anonymous // KB,
                FilePmdMapped=pmd // KB, AnonHugePages=anon_huge // KB)
    head = '%08x-%08x %s %08x %s %-26d%s' % (start, end, perms, offset, dev,
                                             inode, path)
    if not path:
        head = head.rstrip()
    lines = [head]
    for k in SMAPS_FIELDS:
        lines.append('%-16s%8d kB' % (k + ':', vals[k]))
    lines.append('THPeligible:    %8d' % (1 if 'x' in perms else 0))
    lines.append('VmFlags: ' + vmflags)
    return '\n'.join(lines) + '\n'


LIBC = '/usr/lib/x86_64-linux-gnu/libc.so.6'
LD = '/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2'


def libc(base):
    return ''.join([
        mapping(base, base + 0x28000, 'r--p', 0, 'fd:01', 1845211, LIBC,
                rss=0x28000),
        mapping(base + 0x28000, base + 0x1bd000, 'r-xp', 0x28000, 'fd:01',
                1845211, LIBC, rss=0x120000, vmflags='rd ex mr mw me'),
        mapping(base + 0x1bd000, base + 0x215000, 'r--p', 0x1bd000, 'fd:01',
                1845211, LIBC, rss=0x30000),
        mapping(base + 0x215000, base + 0x219000, 'r--p', 0x214000, 'fd:01',
                1845211, LIBC, anonymous=0x4000),
        mapping(base + 0x219000, base + 0x21b000, 'rw-p', 0x218000, 'fd:01',
                1845211, LIBC, anonymous=0x2000),
    ])


def common_tail(ld_base, stack):
    return ''.join([
        mapping(ld_base, ld_base + 0x1000, 'r--p', 0, 'fd:01', 1845196, LD),
        mapping(ld_base + 0x1000, ld_base + 0x2b000, 'r-xp', 0x1000, 'fd:01',
                1845196, LD, vmflags='rd ex mr mw me'),
        mapping(ld_base + 0x2b000, ld_base + 0x37000, 'r--p', 0x2b000,
                'fd:01', 1845196, LD),
        mapping(stack, stack + 0x21000, 'rw-p', 0, '00:00', 0, '[stack]',
                rss=0x8000, anonymous=0x8000, vmflags='rd wr mr mw me gd ac'),
        mapping(stack + 0x40000, stack + 0x42000, 'r-xp', 0, '00:00', 0,
                '[vdso]', rss=0x1000, vmflags='rd ex mr mw me de sd'),
        mapping(0xffffffffff600000, 0xffffffffff601000, '--xp', 0, '00:00', 0,
                '[vsyscall]', rss=0, vmflags='ex'),
    ])


CC1 = '/usr/libexec/gcc/x86_64-linux-gnu/12/cc1'
SERVER = '/usr/local/bin/myserver'


def cc1_smaps():
    b = 0x55d4a2400000
    return ''.join([
        mapping(b, b + 0x400000, 'r--p', 0, 'fd:01', 2621480, CC1,
                rss=0x180000),
        # 20 MB text, start and offset both 2 MB aligned: congruent.
        mapping(b + 0x400000, b + 0x1800000, 'r-xp', 0x400000, 'fd:01',
                2621480, CC1, rss=19 * MB, pmd=12 * MB,
                vmflags='rd ex mr mw me'),
        mapping(b + 0x1800000, b + 0x1e00000, 'r--p', 0x1800000, 'fd:01',
                2621480, CC1, rss=2 * MB),
        mapping(b + 0x1e00000, b + 0x1e40000, 'rw-p', 0x1e00000, 'fd:01',
                2621480, CC1, anonymous=0x40000),
        mapping(0x55d4a4a00000, 0x55d4a6e00000, 'rw-p', 0, '00:00', 0,
                '[heap]', rss=30 * MB, anonymous=30 * MB, anon_huge=16 * MB,
                vmflags='rd wr mr mw me ac'),
        libc(0x7f2c4e200000),
        common_tail(0x7f2c4e650000, 0x7ffd1c5e0000),
    ])


def server_smaps():
    b = 0x5629f0a44000
    return ''.join([
        mapping(b, b + 0x1000, 'r--p', 0, 'fd:01', 3145777, SERVER),
        # 6 MB text at offset 0x1000, start - offset = 0x44000 mod 2 MB.
        mapping(b + 0x1000, b + 0x601000, 'r-xp', 0x1000, 'fd:01', 3145777,
                SERVER, rss=5 * MB, vmflags='rd ex mr mw me'),
        mapping(b + 0x601000, b + 0x701000, 'r--p', 0x601000, 'fd:01',
                3145777, SERVER, rss=MB),
        mapping(b + 0x701000, b + 0x711000, 'rw-p', 0x700000, 'fd:01',
                3145777, SERVER, anonymous=0x10000),
        # 4 MB JIT code cache, PMD aligned, one huge page.
        mapping(0x7f3a00000000, 0x7f3a00400000, 'rwxp', 0, '00:00', 0, '',
                rss=3 * MB, anonymous=3 * MB, anon_huge=2 * MB,
                vmflags='rd wr ex mr mw me ac'),
        libc(0x7f3a1c800000),
        common_tail(0x7f3a1cc50000, 0x7ffc8e300000),
    ])


VMSTAT_BASE = [
    ('nr_free_pages', 1843627), ('nr_file_pages', 512342),
    ('nr_anon_transparent_hugepages', 21), ('nr_file_hugepages', 6),
    ('pgfault', 88231456), ('thp_fault_alloc', 412),
    ('thp_fault_fallback', 3), ('thp_collapse_alloc', 57),
    ('thp_collapse_alloc_failed', 2), ('thp_file_alloc', 19),
    ('thp_file_fallback', 1), ('thp_file_fallback_charge', 0),
    ('thp_file_mapped', 24), ('thp_split_page', 4),
]

VMSTAT_HUGETEXT = [
    ('hugetext_collapse_ok', 18), ('hugetext_collapse_fail', 2),
    ('hugetext_skip_not_congruent', 7), ('hugetext_skip_write_open', 1),
    ('hugetext_skip_opted_out', 0), ('hugetext_nomem', 0),
    ('hugetext_pad', 3), ('hugetext_pad_head', 1), ('hugetext_anon_exec', 5),
]


def status(pid, comm, patched):
    """/proc/PID/status, the lines of a 6.12 kernel (a kernel thread has
    no mm: no Vm* lines, no THP_enabled); the hugetext series adds
    Hugetext_prctl (what prctl(PR_GET_HUGETEXT) returns) after
    THP_enabled."""
    kthread = comm == 'khugepaged'
    lines = ['Name:\t%s' % comm, 'Umask:\t0022' if not kthread else
             'Umask:\t0000', 'State:\tS (sleeping)', 'Tgid:\t%d' % pid,
             'Ngid:\t0', 'Pid:\t%d' % pid, 'PPid:\t%d' % (2 if kthread
                                                        else 1),
             'TracerPid:\t0', 'Uid:\t0\t0\t0\t0', 'Gid:\t0\t0\t0\t0',
             'FDSize:\t64', 'Groups:\t ', 'NStgid:\t%d' % pid,
             'NSpid:\t%d' % pid, 'NSpgid:\t%d' % (0 if kthread else pid),
             'NSsid:\t%d' % (0 if kthread else pid),
             'Kthread:\t%d' % kthread]
    if not kthread:
        lines += ['VmPeak:\t  412340 kB', 'VmSize:\t  412340 kB',
                  'VmRSS:\t   98304 kB', 'CoreDumping:\t0',
                  'THP_enabled:\t1']
        if patched:
            lines.append('Hugetext_prctl:\t0')
        lines.append('untag_mask:\t0xffffffffffffffff')
    lines += ['Threads:\t1', 'SigQ:\t0/63499', 'CapEff:\t000001ffffffffff',
              'NoNewPrivs:\t0', 'Seccomp:\t0', 'Cpus_allowed_list:\t0-3',
              'voluntary_ctxt_switches:\t1042',
              'nonvoluntary_ctxt_switches:\t17']
    return '\n'.join(lines) + '\n'


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    mode = 'wb' if isinstance(text, bytes) else 'w'
    with open(path, mode) as f:
        f.write(text)


def build(root, patched):
    if os.path.exists(root):
        shutil.rmtree(root)
    thp = 'sys/kernel/mm/transparent_hugepage/'
    write(root, thp + 'enabled', 'always [madvise] never\n')
    write(root, thp + 'defrag',
          'always defer defer+madvise [madvise] never\n')
    write(root, thp + 'shmem_enabled',
          'always within_size advise [never] deny force\n')
    write(root, thp + 'hpage_pmd_size', '2097152\n')
    kh = thp + 'khugepaged/'
    for name, val in [('pages_to_scan', 4096), ('scan_sleep_millisecs', 10000),
                      ('full_scans', 42), ('pages_collapsed', 76),
                      ('max_ptes_none', 511), ('max_ptes_swap', 64),
                      ('max_ptes_shared', 256), ('alloc_sleep_millisecs',
                                                 60000), ('defrag', 1)]:
        write(root, kh + name, '%d\n' % val)
    vm = VMSTAT_BASE[:]
    if patched:
        write(root, thp + 'hugetext_enabled', '1\n')
        write(root, thp + 'hugetext_pad_threshold', '0\n')
        write(root, thp + 'hugetext_pad_rodata', '0\n')
        write(root, kh + 'max_nr_hugetext', '0\n')
        write(root, kh + 'hugetext_sample_millisecs', '1000\n')
        write(root, 'sys/kernel/debug/split_huge_pages', '')
        vm += VMSTAT_HUGETEXT
    write(root, 'proc/vmstat', ''.join('%s %d\n' % kv for kv in vm))
    write(root, 'proc/sys/vm/drop_caches', '')
    procs = [
        (100, 'khugepaged', b'', ''),
        (1234, 'cc1', CC1.encode() + b'\0-quiet\0big.c\0-O2\0', cc1_smaps()),
        (2345, 'myserver', SERVER.encode() + b'\0--port\x008080\0',
         server_smaps()),
    ]
    for pid, comm, cmdline, smaps in procs:
        write(root, 'proc/%d/comm' % pid, comm + '\n')
        write(root, 'proc/%d/cmdline' % pid, cmdline)
        write(root, 'proc/%d/smaps' % pid, smaps)
        write(root, 'proc/%d/status' % pid, status(pid, comm, patched))


def main():
    fx = os.path.join(HERE, 'fixtures')
    build(os.path.join(fx, 'patched'), True)
    build(os.path.join(fx, 'stock'), False)


if __name__ == '__main__':
    main()
