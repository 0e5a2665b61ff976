#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests for the bench's iTLB side: bench/itlb/kregions.py (which 2 MB
regions the kernel PMD-mapped, by file and offset) and the pure logic of
bench/report_itlb.py (region translation, oracle, rows, verdicts, table).
No QEMU and no guest: the replays themselves run only in make bench.

Run from the repository root:
    python3 -m unittest discover -s bench/tests -v
"""

import os
import struct
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
TOP = os.path.dirname(BENCH)
MB2 = 2 << 20

# the bench's modules (bench/, bench/itlb) and the tool's package
sys.path[:0] = [BENCH, os.path.join(BENCH, 'itlb'), os.path.join(TOP, 'tools', 'lib')]
sys.dont_write_bytecode = True
import report_itlb as bi  # noqa: E402
import kregions as kr  # noqa: E402
import modes as bm  # noqa: E402  (bench/modes.list's reader)
from hugetext import smaps as ht  # noqa: E402  (the tool's smaps parser)


def mapping(start, end, offset, path='/usr/bin/prog', pmd_kb=0, perms='r-xp'):
    return {'start': start, 'end': end, 'perms': perms, 'offset': offset,
            'dev': '08:01', 'inode': 12, 'path': path, 'vmflags': [],
            'fields': {'FilePmdMapped': pmd_kb << 10}}


class ScanParseTest(unittest.TestCase):
    def test_ioctl_number(self):
        # _IOWR('f', 16, struct pm_scan_arg) in include/uapi/linux/fs.h
        self.assertEqual(kr.PAGEMAP_SCAN, 0xc0606610)
        self.assertEqual(kr.PM_SCAN_ARG.size, 96)

    def test_parse_vec(self):
        buf = struct.pack('<6Q', 0x400000, 0x800000, kr.PAGE_IS_HUGE,
                          0x1000000, 0x1200000, kr.PAGE_IS_HUGE | 8)
        buf += bytes(24)
        self.assertEqual(kr.parse_scan_vec(buf, 2),
                         [(0x400000, 0x800000, kr.PAGE_IS_HUGE),
                          (0x1000000, 0x1200000, kr.PAGE_IS_HUGE | 8)])
        with self.assertRaises(kr.RegionError):
            kr.parse_scan_vec(struct.pack('<3Q', 5, 5, kr.PAGE_IS_HUGE), 1)

    def test_return_masks(self):
        # the samples' scan asks only for PAGE_IS_HUGE; the error path's
        # detail scan for the categories it names
        seen = []

        def ioctl(fd, req, arg, mutate):
            f = list(kr.PM_SCAN_ARG.unpack(arg))
            seen.append(f[11])
            f[4] = f[3]             # walk_end = end: done, nothing found
            kr.PM_SCAN_ARG.pack_into(arg, 0, *f)
            return 0
        real = kr.fcntl.ioctl
        kr.fcntl.ioctl = ioctl
        try:
            self.assertEqual(kr.pagemap_scan(0, 0x400000, 0x800000), [])
            self.assertEqual(kr.pagemap_scan_detail(0, 0x400000, 0x800000),
                             [])
        finally:
            kr.fcntl.ioctl = real
        self.assertEqual(seen, [kr.PAGE_IS_HUGE, kr.DETAIL_MASK])

    def test_merge(self):
        self.assertEqual(kr.merge([(4, 6), (0, 2), (2, 3)]), [(0, 3), (4, 6)])


class TranslateTest(unittest.TestCase):
    def test_by_vma_offset(self):
        # PIE text at 0x55..., file offset 0xcd000, congruent mod 2 MB,
        # its tail padded to 0x600000 in the file
        m = mapping(0x5555556cd000, 0x555555c00000, 0xcd000)
        self.assertEqual(kr.file_regions(m, [(0x555555800000,
                                              0x555555c00000)]),
                         [0x200000, 0x400000])

    def test_head_padded_mapping(self):
        # head padding: the mapping starts at the 2 MB boundary below the
        # text, with the file bytes before it (offset 0x200000, text at
        # 0x231000): the region is named by the mapping's offset
        m = mapping(0x600000, 0x1a00000, 0x200000, pmd_kb=20480)
        self.assertEqual(kr.file_regions(m, [(0x600000, 0x1a00000)]),
                         list(range(0x200000, 0x1600000, MB2)))

    def test_clipped_to_mapping(self):
        m = mapping(0x800000, 0xa00000, 0x400000)
        self.assertEqual(kr.file_regions(m, [(0x400000, 0xc00000)]),
                         [0x400000])

    def test_not_aligned_or_congruent(self):
        m = mapping(0x400000, 0x800000, 0x1000)
        with self.assertRaises(kr.RegionError):
            kr.file_regions(m, [(0x400000, 0x600000)])
        m = mapping(0x401000, 0x900000, 0x1000)
        with self.assertRaises(kr.RegionError):
            kr.file_regions(m, [(0x401000, 0x601000)])

    def test_checked_against_smaps(self):
        maps = [mapping(0x400000, 0x800000, 0, pmd_kb=4096),
                mapping(0x800000, 0x900000, 0x400000, perms='r--p'),
                mapping(0x7f0000000000, 0x7f0000400000, 0, '/lib/libx.so',
                        pmd_kb=2048)]
        scans = {0x400000: [(0x400000, 0x800000)],
                 0x7f0000000000: [(0x7f0000200000, 0x7f0000400000)]}
        got = kr.process_regions(maps, lambda s, e: scans.get(s, []))
        self.assertEqual(got, {'/usr/bin/prog': [0, MB2],
                               '/lib/libx.so': [MB2]})
        # one region fewer than FilePmdMapped says: loud
        scans[0x400000] = [(0x400000, 0x600000)]
        with self.assertRaisesRegex(kr.RegionError, 'FilePmdMapped 4096 kB'):
            kr.process_regions(maps, lambda s, e: scans.get(s, []))
        # with describe: what the kernel says of the huge ranges, appended
        with self.assertRaisesRegex(kr.RegionError,
                                    r'4096 kB.*; scanned again: 0x400000-'
                                    r'0x600000: present file$'):
            kr.process_regions(maps, lambda s, e: scans.get(s, []),
                               describe=lambda s, e: '0x400000-0x600000: '
                               'present file')

    def test_describe_scan(self):
        # the names of the categories, from a real scan of this process
        # (no huge range, most likely) and from a canned one
        with open('/proc/self/pagemap', 'rb') as f:
            try:
                got = kr.describe_scan(f.fileno(), 0x400000, 0x800000)
            except kr.RegionError as e:
                self.skipTest(str(e))
        self.assertIsInstance(got, str)
        real = kr.pagemap_scan_detail
        kr.pagemap_scan_detail = lambda fd, s, e: [
            (0x400000, 0x600000, kr.PAGE_IS_HUGE | kr.PAGE_IS_SWAPPED |
             kr.PAGE_IS_FILE), (0x600000, 0x800000, kr.PAGE_IS_HUGE)]
        try:
            self.assertEqual(
                kr.describe_scan(0, 0x400000, 0x800000),
                '0x400000-0x600000: not present (swap or migration entry) '
                'file; 0x600000-0x800000: no category')
            kr.pagemap_scan_detail = lambda fd, s, e: []
            self.assertEqual(kr.describe_scan(0, 0x400000, 0x800000),
                             'no huge range any more')
        finally:
            kr.pagemap_scan_detail = real

    def test_live_self(self):
        # this process: PAGEMAP_SCAN agrees with smaps (no huge text here,
        # most likely, but the ioctl and the check run for real)
        def read_smaps(pid):
            with open('/proc/%d/smaps' % pid) as f:
                return f.read()
        try:
            got = kr.read_regions(os.getpid(), read_smaps, ht.parse_smaps)
        except kr.RegionError as e:
            if 'Linux 6.7' in str(e):
                self.skipTest(str(e))
            raise
        self.assertIsNotNone(got)
        maps, regions = got
        self.assertTrue(kr.exec_file_maps(maps))
        for path, offs in regions.items():
            self.assertTrue(all(o % MB2 == 0 for o in offs), path)

    def test_disagreement(self):
        # the scan finds one region more than smaps says: a RegionError
        # after every try, unless the process is exiting (exit_mmap()
        # tears the mappings down under both readers): then no sample
        text = ('00400000-00800000 r-xp 00000000 08:01 12 /usr/bin/prog\n'
                'FilePmdMapped:      2048 kB\n')
        real = kr.pagemap_scan
        kr.pagemap_scan = lambda fd, s, e: [(0x400000, 0x800000)]
        try:
            with self.assertRaisesRegex(kr.RegionError, 'finds 2'):
                kr.read_regions(os.getpid(), lambda pid: text,
                                ht.parse_smaps, is_exiting=lambda pid: False)
            self.assertIsNone(kr.read_regions(
                os.getpid(), lambda pid: text, ht.parse_smaps,
                is_exiting=lambda pid: True))
        finally:
            kr.pagemap_scan = real
        self.assertFalse(kr.exiting(os.getpid()))
        self.assertTrue(kr.exiting(0x7ffffff0))

    def test_growing_is_no_disagreement(self):
        # the bench's make bench failures: a program's text being mapped a
        # PMD at a time (hugetext's first second), so each smaps read has
        # one PMD more than the last and the scan between two reads one
        # more than the first: no stable read, no sample, no RegionError
        reads = []

        def read_smaps(pid):
            reads.append(pid)
            return ('00400000-01400000 r-xp 00000000 08:01 12 /usr/bin/prog\n'
                    'FilePmdMapped:  %d kB\n' % (2048 * len(reads)))
        real = kr.pagemap_scan
        kr.pagemap_scan = lambda fd, s, e: [(0x400000,
                                             0x400000 + MB2 * (len(reads) + 1))]
        try:
            self.assertIsNone(kr.read_regions(os.getpid(), read_smaps,
                                              ht.parse_smaps,
                                              is_exiting=lambda pid: False))
            self.assertEqual(len(reads), 10)    # 5 tries, 2 reads each
            # once it stands still, the disagreement is reported
            reads[:] = [0] * 3
            kr.pagemap_scan = lambda fd, s, e: [(0x400000, 0x400000 + 5 * MB2)]
            n = len(reads)
            frozen = read_smaps(0)
            del reads[n:]
            with self.assertRaisesRegex(kr.RegionError, 'finds 5'):
                kr.read_regions(os.getpid(), lambda pid: frozen,
                                ht.parse_smaps, is_exiting=lambda pid: False)
        finally:
            kr.pagemap_scan = real

    def test_union(self):
        self.assertEqual(kr.union({'/a': [0]}, {'/a': [MB2], '/b': [0]}),
                         {'/a': [0, MB2], '/b': [0]})


PAD = 'hugetext=3 htknobs=hugetext_pad_threshold=4096,hugetext_pad_rodata=1'
MODES = [('hugetext', 'hugetext=3'), ('thp-always', 'hugetext=0'),
         ('hugetext-pad', PAD),
         ('cap2', PAD + ',khugepaged/max_nr_hugetext=2')]
P = '/usr/bin/prog'


class ForeignArchTest(unittest.TestCase):
    """Another arch's programs replay under its qemu-user from its rootfs:
    every guest path is looked up there, not on this host."""

    def test_paths(self):
        spec = {'argv': ['/usr/bin/gdb', '-batch', '/usr/lib/cc1',
                         '/opt/hugetext/x', '/tmp/pgdata']}
        own = bi.Runner(spec, '/r', '/t', '/l')
        a64 = bi.Runner(spec, '/r', '/t', '/l', foreign=True)
        self.assertEqual([own.path(a) for a in spec['argv']],
                         ['/usr/bin/gdb', '-batch', '/usr/lib/cc1',
                          '/r/opt/hugetext/x', '/t/run/pgdata'])
        self.assertEqual([a64.path(a) for a in spec['argv']],
                         ['/r/usr/bin/gdb', '-batch', '/r/usr/lib/cc1',
                          '/r/opt/hugetext/x', '/t/run/pgdata'])

    def test_option_paths(self):
        # --NAME=/path (mariadbd's --defaults-file) is looked up the same way
        spec = {'argv': ['/usr/sbin/mariadbd',
                         '--defaults-file=/opt/hugetext/mariadb.cnf',
                         '--datadir=/tmp/m', '--x=y']}
        own = bi.Runner(spec, '/r', '/t', '/l')
        a64 = bi.Runner(spec, '/r', '/t', '/l', foreign=True)
        self.assertEqual([own.path(a) for a in spec['argv']],
                         ['/usr/sbin/mariadbd',
                          '--defaults-file=/r/opt/hugetext/mariadb.cnf',
                          '--datadir=/t/run/m', '--x=y'])
        self.assertEqual(a64.path('--defaults-file=/etc/x'),
                         '--defaults-file=/r/etc/x')

    def test_foreign_tmp(self):
        # the replay's directory of another arch: not a path its root shadows
        import tempfile
        with tempfile.TemporaryDirectory() as root:
            self.assertEqual(bi.foreign_tmp('/work/x/out', root), '/work/x/out')
            os.makedirs(os.path.join(root, 'work'))
            with self.assertRaisesRegex(bi.BenchError, 'first component /work'):
                bi.foreign_tmp('/work/x/out', root)

    def test_qemu_prefix(self):
        self.assertEqual(
            bi.qemu_prefix('qemu-aarch64', '/r', ['/r/usr/bin/gdb', '-nx'],
                           {'A': 'b'}, ['p.so', 'out=j']),
            ['qemu-aarch64', '-L', '/r', '-0', '/r/usr/bin/gdb', '-E', 'A=b',
             '-plugin', 'p.so,out=j', '/r/usr/bin/gdb', '-nx'])
        self.assertEqual(
            bi.qemu_prefix('qemu-x86_64', None, ['/bin/true'], {}),
            ['qemu-x86_64', '-0', '/bin/true', os.path.realpath('/bin/true')])

    def test_host_file_under_root(self):
        import tempfile
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, 'usr', 'bin'))
            with open(os.path.join(root, 'usr', 'bin', 'prog'), 'wb') as f:
                f.write(b'arm64 code')
            got = bi.host_file('/usr/bin/prog', root)
            self.assertEqual(got[0], os.path.join(os.path.realpath(root),
                                                  'usr', 'bin', 'prog'))
            self.assertEqual(got[1]['size'], 10)
            self.assertIsNone(bi.host_file('/usr/bin/none', root))


class ClientTest(unittest.TestCase):
    """A server with a client (the guest's MariaDB + sysbench): the client
    runs beside it, natively, with its /tmp paths in the run's directory,
    and its failure fails the replay."""

    def run_spec(self, client_body, server_wait=30):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            root, tmp = os.path.join(d, 'root'), os.path.join(d, 'tmp')
            os.makedirs(os.path.join(root, 'opt', 'hugetext'))
            os.makedirs(tmp)
            client = os.path.join(root, 'opt', 'hugetext', 'client')
            with open(client, 'w') as f:
                f.write('#!/bin/sh\n' + client_body)
            os.chmod(client, 0o755)
            # the "server": waits for the client's stop file
            spec = {'argv': ['/bin/sh', '-c', 'i=0; while [ ! -e "$0" ]; do '
                             'i=$((i+1)); [ $i -lt %d ] || exit 3; '
                             'sleep 0.1; done' % (server_wait * 10),
                             '/tmp/stop'],
                    'client': ['/opt/hugetext/client', '/tmp/stop', '4']}
            r = bi.Runner(spec, root, tmp, os.path.join(d, 'log'))
            secs = r.run(lambda a, e: (a, dict(os.environ, **e)), 't')
            with open(os.path.join(d, 'log-t.log.client')) as f:
                return secs, f.read()

    def test_client_ends_server(self):
        secs, out = self.run_spec('echo "$2"; touch "$1"\n')
        self.assertEqual(out, '4\n')
        self.assertLess(secs, 20)

    def test_failed_client(self):
        with self.assertRaisesRegex(bi.BenchError, 'its client .* exited 5'):
            self.run_spec('touch "$1"; exit 5\n')
        with self.assertRaisesRegex(bi.BenchError, r'/bin/sh exited 3'):
            self.run_spec('exit 0\n', server_wait=1)


class RowsTest(unittest.TestCase):
    def test_mode_kind(self):
        self.assertEqual([bi.mode_kind(a) for _, a in MODES],
                         [('plain', None), ('plain', None), ('pad', None),
                          ('cap', 2)])
        self.assertEqual(bi.mode_kind('hugetext=3 htknobs='
                                      'hugetext_pad_threshold=0'),
                         ('plain', None))

    def test_head_regions(self):
        rset = ((P, 0x200000), (P, 0x400000), (P, 0x1800000), ('/l', 0))
        # text from 0x231000: the region at 0x200000 is the head's
        self.assertEqual(bi.head_regions(rset, {P: 0x231000}),
                         ((P, 0x200000),))
        # an aligned text start has no head region
        self.assertEqual(bi.head_regions(rset, {P: 0x400000}), ())

    def test_oracle(self):
        counts = {(P, 0): 5, (P, MB2): 50, (P, 2 * MB2): 50, ('/l', 0): 9}
        cand = ((P, 0), (P, MB2), (P, 2 * MB2), ('/l', 0))
        self.assertEqual(bi.oracle(cand, counts, 2), ((P, MB2), (P, 2 * MB2)))
        self.assertEqual(bi.oracle(cand, counts, 3),
                         (('/l', 0), (P, MB2), (P, 2 * MB2)))
        # ties: by path then offset; more slots than candidates: all
        self.assertEqual(bi.oracle(((P, 0), ('/a', 0)), {}, 1), (('/a', 0),))
        self.assertEqual(len(bi.oracle(cand, counts, 8)), 4)
        self.assertAlmostEqual(bi.share(((P, MB2),), counts, 200), 25.0)

    def test_translate(self):
        ident = {'size': 10, 'sha1': 'ab'}
        host = {P: ('/usr/lib/real/prog', ident)}
        self.assertEqual(bi.translate(((P, MB2),), {P: ident}, host.get),
                         ['file 0x200000 /usr/lib/real/prog'])
        with self.assertRaisesRegex(bi.BenchError, 'is not the host'):
            bi.translate(((P, 0),), {P: {'size': 10, 'sha1': 'cd'}},
                         host.get)
        with self.assertRaisesRegex(bi.BenchError, 'not on this host'):
            bi.translate((('/x', 0),), {'/x': ident}, host.get)
        with self.assertRaisesRegex(bi.BenchError, 'not 2 MB aligned'):
            bi.translate(((P, 4096),), {P: ident}, host.get)

    def test_plan_rows(self):
        recs = {m: {'pmd_regions': {P: [MB2]}} for m, _ in MODES}
        rows = bi.plan_rows(MODES, recs)
        self.assertEqual([r['row'] for r in rows],
                         ['4 KB', 'hugetext', 'thp-always', 'hugetext-pad',
                          'hugetext-pad, tail only', 'cap2', 'cap2, oracle'])
        self.assertEqual(rows[-1]['candidates'], 'hugetext-pad')
        self.assertEqual(rows[-1]['n'], 2)
        # a mode that did not run has no row; no padded mode, no oracle
        del recs['hugetext-pad']
        self.assertEqual([r['row'] for r in bi.plan_rows(MODES, recs)],
                         ['4 KB', 'hugetext', 'thp-always', 'cap2'])

    def model(self, name, l1, stlb):
        return {'name': name, 'l1_misses': l1, 'stlb_misses': stlb}

    def test_cells_and_verdicts(self):
        base = bi.model_cells({'models': [self.model('skylake', 100, 10)]},
                              1000, None)
        self.assertEqual(base['skylake']['l1_mpki'], 100.0)
        cells = bi.model_cells({'models': [self.model('skylake', 25, 0)]},
                               1000, base)
        self.assertEqual(cells['skylake']['l1_ratio'], 0.25)
        self.assertEqual(cells['skylake']['stlb_ratio'], 0.0)

        def row(name, kind, l1, sh, **kw):
            r = {'row': name, 'kind': kind, 'share': sh, 'set': (),
                 'huge_share': sh, 'cells': bi.model_cells(
                     {'models': [self.model('skylake', l1, 1)]}, 1000, base)}
            r.update(kw)
            return r
        rows = [row('4 KB', 'none', 100, 0.0),
                row('pad', 'pad', 30, 90.0),
                row('cap2', 'cap', 20, 45.0, n=2),
                row('cap2, oracle', 'oracle', 25, 50.0, n=2,
                    candidates='pad')]
        v = bi.cap_verdicts(rows, ['skylake'])
        self.assertEqual(len(v), 1)
        self.assertAlmostEqual(v[0]['share_ratio'], 90.0)
        self.assertTrue(v[0]['share_ok'])
        # results without cost inputs (the plugin before them): the
        # cost is n/a, never 0, and so is its comparison
        self.assertEqual(v[0]['models']['skylake'],
                         {'sampler': 20, 'oracle': 25, 'all': 30,
                          'sampler_lower': True, 'oracle_lower': True,
                          'cost_sampler': None, 'cost_oracle': None,
                          'cost_all': None, 'sampler_cost_lower': None,
                          'oracle_cost_lower': None})
        lines = bi.table([{'program': 'prog', 'rows': rows}], ['skylake'])
        self.assertEqual(len(lines), 2 + len(rows))
        self.assertIn('| prog | cap2 | 0 | 45.0 | 20 (0.2) | 1 (0.1) | '
                      'n/a |', lines[4])


# A fabricated plugin result (the JSON of itlb-plugin.so's out=), one set
# per row, 1,000,000 instructions.  skylake's cost inputs are the JSON's,
# not the model table's: the walk cost 30 is a test value.  Costs by hand,
# (STLB hits x 22 + walks x 30) / 1000 per 1000 instructions:
#   4 KB     800 x 22 + 200 x 30 = 23600 -> 23.6  (ratio 1)
#   all      290 x 22 +  10 x 30 =  6680 -> 6.68  (6680 / 23600 = 0.283)
#   cap2     50 x 22 + 200 x 30 =  7100 -> 7.1   (0.301): fewer L1 misses
#            than all (250 < 300) and yet a higher cost
#   oracle   275 x 22 +   5 x 30 =  6200 -> 6.2   (0.263): lower than all
# neoverse-n1 has no sourced cost (null): n/a everywhere.
FAKE_PLUGIN_JSON = '''{
  "kind": "itlb-model", "instructions": 1000000, "sets": [
%s
  ]
}'''


def fake_set(name, huge, sky, n1):
    def model(mname, l1, hits, walks, hc, wc):
        return ('{"name": "%s", "l1_misses": %d, "stlb_hits": %d, '
                '"stlb_misses": %d, "stlb_hit_cycles": %s, '
                '"walk_cycles": %s}' % (mname, l1, hits, walks, hc, wc))
    return ('   {"name": "%s", "huge_instructions": %d, "models": [%s, %s]}'
            % (name, huge, model('skylake', *sky, 22, 30),
               model('neoverse-n1', *n1, 'null', 'null')))


class CostTest(unittest.TestCase):
    """The cost column: cycles lost to instruction translation per 1000
    instructions, from the plugin's counts and cost inputs."""

    def test_formula(self):
        cost = bi.replay.cost_cycles
        m = {'l1_misses': 500, 'stlb_hits': 400, 'stlb_misses': 100,
             'stlb_hit_cycles': 22, 'walk_cycles': 30}
        self.assertEqual(cost(m), 400 * 22 + 100 * 30)
        self.assertAlmostEqual(bi.replay.cost_pki(m, 2000000), 5.9)
        # an unsourced cost with a count: n/a; with no count: no matter
        self.assertIsNone(cost(dict(m, walk_cycles=None)))
        self.assertIsNone(cost(dict(m, stlb_hit_cycles=None)))
        self.assertEqual(cost(dict(m, stlb_misses=0, walk_cycles=None)),
                         400 * 22)
        # a result from before the costs: no inputs, n/a
        old = {'l1_misses': 500, 'stlb_misses': 100}
        self.assertIsNone(cost(old))
        self.assertIsNone(bi.replay.cost_pki(old, 1000))
        # ... and its STLB hits are L1 misses - walks (exact in the model)
        self.assertEqual(bi.replay.stlb_hits(old), 400)
        self.assertEqual(bi.replay.fmt_cost(None), 'n/a')

    def rows(self):
        import json
        res = json.loads(FAKE_PLUGIN_JSON % ',\n'.join([
            fake_set('s0', 0, (1000, 800, 200), (3000, 2800, 200)),
            fake_set('s1', 900000, (300, 290, 10), (60, 50, 10)),
            fake_set('s2', 450000, (250, 50, 200), (900, 700, 200)),
            fake_set('s3', 500000, (280, 275, 5), (800, 795, 5))]))
        insns = res['instructions']
        base = {m['name']: m for m in res['sets'][0]['models']}
        rows = []
        for i, (name, kind, extra) in enumerate((
                ('4 KB', 'none', {}), ('pad', 'pad', {}),
                ('cap2', 'cap', {'n': 2}),
                ('cap2, oracle', 'oracle', {'n': 2, 'candidates': 'pad'}))):
            rset = res['sets'][i]
            r = {'row': name, 'kind': kind, 'set': [[P, MB2]] * i,
                 'share': 10.0 * i, 'instructions': insns,
                 'huge_share': 100.0 * rset['huge_instructions'] / insns,
                 'cells': bi.model_cells(rset, insns, base)}
            r.update(extra)
            rows.append(r)
        return rows

    def test_cells(self):
        rows = self.rows()
        sky = [r['cells']['skylake'] for r in rows]
        self.assertEqual([c['stlb_hits'] for c in sky], [800, 290, 50, 275])
        self.assertEqual([c['cost_cycles'] for c in sky],
                         [23600, 6680, 7100, 6200])
        for c, want in zip(sky, (23.6, 6.68, 7.1, 6.2)):
            self.assertAlmostEqual(c['cost_pki'], want)
        for c, want in zip(sky, (1.0, 6680 / 23600, 7100 / 23600,
                                 6200 / 23600)):
            self.assertAlmostEqual(c['cost_ratio'], want)
        for r in rows:
            n1 = r['cells']['neoverse-n1']
            self.assertEqual((n1['cost_cycles'], n1['cost_pki'],
                              n1['cost_ratio']), (None, None, None))

    def test_verdict_is_the_cost(self):
        rows = self.rows()
        v = bi.cap_verdicts(rows, ['skylake', 'neoverse-n1'])
        self.assertEqual(len(v), 1)
        sky = v[0]['models']['skylake']
        # fewer L1 misses than mapping everything, but more cycles
        self.assertTrue(sky['sampler_lower'])
        self.assertFalse(sky['sampler_cost_lower'])
        self.assertTrue(sky['oracle_cost_lower'])
        self.assertAlmostEqual(sky['cost_sampler'], 7.1)
        self.assertAlmostEqual(sky['cost_all'], 6.68)
        n1 = v[0]['models']['neoverse-n1']
        self.assertIsNone(n1['sampler_cost_lower'])
        self.assertIsNone(n1['cost_sampler'])

    def test_report(self):
        import json
        rows = self.rows()
        models = ['skylake', 'neoverse-n1']
        prog = {'program': 'prog', 'rows': rows, 'instructions': 1000000,
                'native_s': 1.0, 'replay_s': [10.0], 'sets_per_replay': [4, 0],
                'verdicts': bi.cap_verdicts(rows, models)}
        doc = {'note': bi.NOTE, 'models': models, 'programs': [prog]}
        # itlb.json: the cost and its inputs beside the MPKIs, n/a as null
        back = json.loads(json.dumps(doc))
        cell = back['programs'][0]['rows'][2]['cells']
        self.assertEqual(cell['skylake']['cost_cycles'], 7100)
        self.assertEqual(cell['skylake']['walk_cycles'], 30)
        self.assertIsNone(cell['neoverse-n1']['cost_pki'])
        lines = bi.report_lines(doc)
        text = '\n'.join(lines)
        # the heading: what the cost is, where its figures come from, and
        # that it is a model result under QEMU TCG
        self.assertIn('Model under QEMU TCG, not hardware', text)
        self.assertIn('`bench/itlb/itlb_models.c`', text)
        self.assertIn('skylake: STLB hit 22, walk 30; neoverse-n1: STLB hit '
                      'n/a, walk n/a', text)
        head = next(ln for ln in lines if ln.startswith('| program |'))
        self.assertIn('| skylake L1 MPKI (×4 KB) | skylake walks MPKI (×4 KB)'
                      ' | skylake cycles/1k insn (×4 KB) |', head)
        row = {ln.split(' | ')[1]: ln for ln in lines
               if ln.startswith('| prog |')}
        self.assertIn('| 1 (1) | 0.2 (1) | 23.6 (1) | 3 (1) | 0.2 (1) | '
                      'n/a |', row['4 KB'])
        self.assertIn('| 0.3 (0.3) | 0.01 (0.05) | 6.68 (0.283) | ',
                      row['pad'])
        self.assertIn('| 0.25 (0.25) | 0.2 (1) | 7.1 (0.301) | ',
                      row['cap2'])
        self.assertIn('| 6.2 (0.263) |', row['cap2, oracle'])
        verdict = next(ln for ln in lines if ln.startswith('- prog cap2:'))
        self.assertIn('skylake cost sampler 7.1, oracle 6.2, all 6.68 '
                      '(sampler not lower, oracle lower), L1 misses sampler '
                      '250, oracle 280, all 300', verdict)
        self.assertIn('neoverse-n1 cost sampler n/a, oracle n/a, all n/a '
                      '(sampler n/a, oracle n/a)', verdict)
        self.assertIn('not by L1 misses alone', text)


if __name__ == '__main__':
    unittest.main()


def assert_table_errors(test, reader, cases, error=None):
    """each (text, line) of cases, as a table file, makes reader raise
    TableError naming that line"""
    import tempfile
    for text, line in cases:
        with tempfile.NamedTemporaryFile('w', suffix='.list') as f:
            f.write(text)
            f.flush()
            with test.assertRaisesRegex(error or bm.TableError,
                                        r'\.list:%d: want a new name' % line):
                reader(f.name)


GOOD_PROGRAM = """
ORDER = 10
PACKAGES = ['pkg']
PROGRAMS = [{'name': 'prog', 'target': 'prog', 'cap': 30, 'arches': None,
             'title': 'a program', 'run': lambda: {'what': 'w', 'cmd': ['p']}}]
"""


class ProgramsTest(unittest.TestCase):
    """bench/programs: a directory a program, the one home of each."""

    def test_every_reader_has_every_program(self):
        progs = bi.bench_programs.read()
        names = [p['name'] for p in progs]
        self.assertEqual(names, ['cc1', 'gdb', 'llc', 'pg', 'jit', 'javac',
                                 'node', 'mariadb1', 'mariadb4'])
        self.assertIsNone(progs[names.index('jit')]['target'])
        self.assertEqual(progs[names.index('llc')]['target'],
                         'libLLVM-14.so.1')
        import report as br
        self.assertEqual(br.PROGRAMS, names)
        self.assertEqual(sorted(br.PROGRAM_TITLE), sorted(names))
        # the guest's bench has no program of its own: it runs run()
        with open(os.path.join(BENCH, 'guest', 'bench')) as f:
            guest = f.read()
        for n in names:
            self.assertNotIn("'%s'" % n, guest)
        # each program has its directory, install.sh and packages; the
        # rig's lists name none of the programs' packages
        rig = ''
        for f in ('scripts/deps.sh', 'scripts/userland.list'):
            with open(os.path.join(TOP, f)) as fh:
                rig += fh.read()
        for p in progs:
            d = os.path.join(BENCH, 'programs', p['dir'])
            self.assertTrue(os.path.isfile(os.path.join(d, 'install.sh')))
            for pkg in p['packages']:
                self.assertNotRegex(rig, r'(?m)(^|\s)%s(\s|$)'
                                    % pkg.replace('+', r'\+'), pkg)
        # each arch's rootfs has its programs: arm64's no llc, JVM, node
        with open(os.path.join(TOP, 'scripts', 'arches.list')) as f:
            arches = [ln.split()[0] for ln in f
                      if ln.strip() and not ln.lstrip().startswith('#')]
        for p in progs:
            for a in p['arches'] or []:
                self.assertIn(a, arches, p['name'])
        on = [p['name'] for p in progs
              if bi.bench_programs.runs_on(p, 'arm64')]
        self.assertEqual(on, ['cc1', 'gdb', 'pg', 'jit', 'mariadb1',
                              'mariadb4'])
        self.assertEqual(len([p for p in progs if bi.bench_programs.runs_on(
            p, 'x86_64')]), len(progs))
        import subprocess

        def cli(*args):
            return subprocess.run(
                [sys.executable, '-B', os.path.join(BENCH, 'programs')]
                + list(args), capture_output=True, text=True,
                check=True).stdout.split()
        self.assertEqual(cli('names', 'arm64'),
                         ['cc1,gdb,pg,jit,mariadb1,mariadb4'])
        self.assertEqual(cli('dirs', 'arm64'),
                         ['cc1', 'gdb', 'pg', 'jit', 'mariadb'])
        self.assertNotIn('nodejs', cli('packages', 'arm64'))
        self.assertEqual(cli('packages').count('sysbench'), 1)
        self.assertIn('llvm-14', cli('packages'))

    def test_malformed_entry(self):
        import tempfile
        bad = [GOOD_PROGRAM.replace("'cap': 30", "'cap': 'soon'"),
               GOOD_PROGRAM.replace("'cap': 30", "'cap': 0"),
               GOOD_PROGRAM.replace("'target': 'prog'", "'target': 'a/b'"),
               GOOD_PROGRAM.replace("'arches': None", "'arches': 'x86_64'"),
               GOOD_PROGRAM.replace("'arches': None", "'arches': ['ARM']"),
               GOOD_PROGRAM.replace("'title': 'a program', ", ''),
               GOOD_PROGRAM.replace("'title'", "'extra': 1, 'title'"),
               GOOD_PROGRAM.replace("ORDER = 10", ''),
               GOOD_PROGRAM.replace("ORDER = 10", "ORDER = '10'"),
               GOOD_PROGRAM.replace("['pkg']", "'pkg'"),
               GOOD_PROGRAM.replace("'run': lambda: {'what': 'w', "
                                    "'cmd': ['p']}", "'run': None")]
        for i, text in enumerate([GOOD_PROGRAM] + bad):
            with tempfile.TemporaryDirectory() as root:
                for d in ('a', 'b') if i == 0 else ('a',):
                    os.makedirs(os.path.join(root, d))
                    with open(os.path.join(root, d, 'program.py'), 'w') as f:
                        f.write(text if d == 'a' else text.replace(
                            "'prog'", "'other'"))
                    open(os.path.join(root, d, 'install.sh'), 'w').close()
                if i == 0:
                    got = bi.bench_programs.read(root)
                    self.assertEqual([(p['name'], p['dir']) for p in got],
                                     [('prog', 'a'), ('other', 'b')])
                    # the same name twice; no install.sh
                    with open(os.path.join(root, 'b', 'program.py'), 'w') as f:
                        f.write(text)
                    with self.assertRaisesRegex(bi.bench_programs.TableError,
                                                r"b/program\.py: program 'prog'"):
                        bi.bench_programs.read(root)
                    os.unlink(os.path.join(root, 'b', 'program.py'))
                    os.unlink(os.path.join(root, 'a', 'install.sh'))
                    with self.assertRaisesRegex(bi.bench_programs.TableError,
                                                'no install.sh'):
                        bi.bench_programs.read(root)
                    continue
                with self.assertRaisesRegex(bi.bench_programs.TableError,
                                            r'a/program\.py: (program .prog.: )?want', msg=text):
                    bi.bench_programs.read(root)


class ModesTableTest(unittest.TestCase):
    """bench/modes.list: the one list of the bench's modes."""

    def test_readers(self):
        modes = bm.read_modes()
        names = [m['name'] for m in modes]
        self.assertEqual(names[:3], ['hugetext', 'thp-always', 'default'])
        self.assertEqual(modes[1]['thp'], 'always')
        import report as br
        self.assertEqual(sorted(br.MODE_TITLE), sorted(names))
        # report_itlb.py's extra rows come from the table's command lines
        kinds = [bi.mode_kind(m['args']) for m in modes]
        self.assertIn(('pad', None), kinds)
        self.assertIn(('cap', 2), kinds)
        # run.sh reads the table, it has no modes of its own
        with open(os.path.join(BENCH, 'run.sh')) as f:
            sh = f.read()
        self.assertIn('bench/modes.py"', sh)
        self.assertNotIn('max_nr_hugetext=', sh)
        # what it reads: one NAME:KERNEL:COMMAND LINE:THP line per mode
        import subprocess
        out = subprocess.run(
            [sys.executable, os.path.join(BENCH, 'modes.py')],
            capture_output=True, text=True, check=True).stdout
        self.assertEqual(out.splitlines(), ['%s:%s:%s:%s:%s' % (
            m['name'], m['kernel'], m['arch'], m['args'], m['thp'])
            for m in modes])
        # every kernel is one of scripts/kernels.list, or one -stock
        with open(os.path.join(TOP, 'scripts', 'kernels.list')) as f:
            known = {ln.split()[0] for ln in f
                     if ln.strip() and not ln.lstrip().startswith('#')}
        for m in modes:
            self.assertIn(bm.kernel_family(m['kernel']),
                          known, m['name'])
        # each kernel family has its bar: hugetext against THP always
        bars = [(h['name'], a['name'])
                for h, a in bm.bars(modes)]
        self.assertEqual(bars, [('hugetext', 'thp-always'),
                                ('mainline', 'stock-always'),
                                ('arm64-hugetext', 'arm64-always')])
        # every arch is one of scripts/arches.list; a mode's baseline is
        # of its own arch
        with open(os.path.join(TOP, 'scripts', 'arches.list')) as f:
            arches = {ln.split()[0] for ln in f
                      if ln.strip() and not ln.lstrip().startswith('#')}
        for m in modes:
            self.assertIn(m['arch'], arches, m['name'])
        a64 = next(m for m in modes if m['name'] == 'arm64-hugetext')
        self.assertEqual(bm.baseline(modes, a64)['name'],
                         'arm64-default')
        self.assertEqual(bm.baseline(modes, modes[0])['name'],
                         'default')
        ml = next(m for m in modes if m['name'] == 'mainline')
        self.assertEqual(bm.baseline(modes, ml)['name'],
                         'stock-madvise')

    def test_malformed_line(self):
        assert_table_errors(self, bm.read_modes, (
            ('a 6.12 x86_64 madvise hugetext=3 | A\n'
             'a 6.12 x86_64 always hugetext=0 | again\n', 2),
            ('a 6.12 x86_64 sometimes hugetext=3 | A\n', 1),
            ('# c\na 6.12 x86_64 madvise hugetext=3\n', 2),
            ('a 6.12 x86_64 madvise | A\n', 1),
            ('a 6.12 x86_64 madvise hugetext=3 |\n', 1),
            ('a:b 6.12 x86_64 madvise hugetext=3 | A\n', 1),
            ('a x86_64 madvise hugetext=3 | A\n', 1),   # no kernel
            ('a 6.12 madvise hugetext=3 | A\n', 1),     # no arch
            ('a 6.12 ARM64 madvise hugetext=3 | A\n', 1),
            ('a 7.3-mine x86_64 madvise hugetext=3 | A\n', 1),
            ('a -stock x86_64 madvise hugetext=3 | A\n', 1)))

    def test_report_verdicts(self):
        # report.py's bar, a kernel each: hugetext's mode against
        # THP always on the same kernel, not across kernels
        import report as br

        def rec(mode, cov):
            return {'program': 'cc1', 'mode': mode, 'coverage_final': cov}
        got = br.verdicts([rec('hugetext', 100.0), rec('thp-always', 87.5),
                           rec('mainline', 100.0), rec('stock-always', 87.5),
                           rec('default', 0.0)])
        self.assertEqual([(v['kernel'], v['hugetext_mode'],
                           v['thp_always_mode'], v['ok']) for v in got],
                         [('6.12', 'hugetext', 'thp-always', True),
                          ('7.3', 'mainline', 'stock-always', True)])
        got = br.verdicts([rec('mainline', 50.0), rec('stock-always', 87.5)])
        self.assertEqual([(v['kernel'], v['ok']) for v in got],
                         [('7.3', False)])
