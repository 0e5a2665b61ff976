#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests for bench/itlb (the iTLB model, its QEMU plugin and replay.py).

The model core is tested without QEMU: bench/itlb/itlb-trace reads a
synthetic fetch trace and prints exact miss counts per model.  The plugin
tests build a tiny static program whose instruction fetch stream is known
page by page and run it under qemu-x86_64 (skipped when qemu-user is not
installed: scripts/deps.sh installs it).  Everything is skipped when gcc is
missing.

Run from the repository root:
    python3 -m unittest discover -s bench/tests -v
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ITLB = os.path.join(os.path.dirname(HERE), 'itlb')
# replay.py, a module of bench/itlb
sys.path.insert(0, ITLB)
sys.dont_write_bytecode = True
import replay  # noqa: E402
MB2 = 2 << 20
PAGE = 4096
BASE = 0x400000          # 4 KB page number 0x400: set 0 of every table
HAVE_GCC = shutil.which('gcc') is not None and shutil.which('make') is not None
HAVE_QEMU = shutil.which('qemu-x86_64') is not None

_build = {}


def build():
    """Build the plugin and the trace driver once into a temporary OUT."""
    if 'dir' not in _build:
        d = tempfile.mkdtemp(prefix='itlb-test-')
        subprocess.run(['make', '-s', '-C', ITLB, 'OUT=' + d], check=True,
                       stdout=subprocess.DEVNULL)
        _build['dir'] = d
    return _build['dir']


def tearDownModule():
    if 'dir' in _build:
        shutil.rmtree(_build['dir'], ignore_errors=True)


def page4k(i):
    return '4k 0x%x' % (BASE + i * PAGE)


def page2m(i):
    return '2m 0x%x' % (BASE * 512 + i * MB2)


@unittest.skipUnless(HAVE_GCC, 'gcc (or make) missing: cannot build the '
                     'iTLB model')
class ModelTest(unittest.TestCase):
    """Exact miss counts of the model core for synthetic traces."""

    def trace(self, lines, models=('skylake', 'goldencove', 'neoverse-n1',
                                   'goldencove-fa2m')):
        exe = os.path.join(build(), 'itlb-trace')
        args = [exe]
        for m in models:
            args += ['-m', m]
        p = subprocess.run(args, input='\n'.join(lines) + '\n',
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        res = {}
        for line in p.stdout.splitlines():
            name, *kv = line.split()
            res[name] = {k: int(v) for k, v in (x.split('=') for x in kv)}
        self.assertEqual(sorted(res), sorted(models))
        # every L1 miss is looked up in the second level: it hits there
        # (an STLB hit, the cost column's refill) or walks
        for name, r in res.items():
            self.assertEqual(r['l2_hit'] + r['l2_miss'], r['l1_miss'], name)
        return res

    def check(self, res, model, **want):
        got = {k: res[model][k] for k in want}
        self.assertEqual(got, want, model)

    def test_table_lists_the_cited_geometries(self):
        p = subprocess.run([os.path.join(build(), 'itlb-trace'), '-l'],
                           capture_output=True, text=True, check=True)
        rows = {line.split()[0]: line.split()[1:4]
                for line in p.stdout.splitlines()}
        self.assertEqual(rows['skylake'],
                         ['l1_4k=128/8', 'l1_2m=8/8', 'l2=1536/12'])
        self.assertEqual(rows['goldencove'],
                         ['l1_4k=256/8', 'l1_2m=32/8', 'l2=2048/16'])
        self.assertEqual(rows['neoverse-n1'],
                         ['l1_4k=48/48', 'l1_2m=0/0', 'l2=1280/5'])
        # the cost inputs: only Skylake's STLB-hit refill has a sourced
        # figure (the hugetext design's 22 cycles); the rest are n/a
        costs = {m: c for m, c in self.table_costs().items()}
        self.assertEqual(costs, {'skylake': (22, None),
                                 'goldencove': (None, None),
                                 'neoverse-n1': (None, None),
                                 'goldencove-fa2m': (None, None)})

    def table_costs(self):
        """{model: (stlb_hit_cycles, walk_cycles)} from itlb-trace -l,
        None for na."""
        p = subprocess.run([os.path.join(build(), 'itlb-trace'), '-l'],
                           capture_output=True, text=True, check=True)
        out = {}
        for line in p.stdout.splitlines():
            f = line.split()
            kv = dict(x.split('=') for x in f[4:6])
            out[f[0]] = tuple(None if kv[k] == 'na' else int(kv[k])
                              for k in ('stlb_hit_cycles', 'walk_cycles'))
        return out

    def test_stlb_hits_and_cost(self):
        # 9 pages 64 KB apart, 5 rounds: Skylake's L1 set 0 (8 ways)
        # misses every lookup, the STLB holds all 9 after the first round:
        # 45 L1 misses = 9 walks + 36 STLB hits.  N1's 48 entries hold
        # them: 9 L1 misses, all walks, no STLB hit.
        res = self.trace([page4k(16 * i) for _ in range(5) for i in range(9)],
                         models=('skylake', 'neoverse-n1'))
        self.check(res, 'skylake', l1_miss=45, l2_hit=36, l2_miss=9)
        self.check(res, 'neoverse-n1', l1_miss=9, l2_hit=0, l2_miss=9)
        # the report's cost from these counts and the table's inputs:
        # Skylake has walks and no sourced walk cost, so n/a, not 36 x 22
        costs = self.table_costs()

        def model(name):
            r = res[name]
            return {'l1_misses': r['l1_miss'], 'stlb_hits': r['l2_hit'],
                    'stlb_misses': r['l2_miss'],
                    'stlb_hit_cycles': costs[name][0],
                    'walk_cycles': costs[name][1]}
        self.assertIsNone(replay.cost_cycles(model('skylake')))
        self.assertIsNone(replay.cost_cycles(model('neoverse-n1')))
        # with a walk cost given (30: a test value, not a sourced one)
        self.assertEqual(replay.cost_cycles(dict(model('skylake'),
                                                 walk_cycles=30)),
                         36 * 22 + 9 * 30)
        self.assertAlmostEqual(replay.cost_pki(dict(model('skylake'),
                                                    walk_cycles=30), 4500),
                               1000.0 * (36 * 22 + 9 * 30) / 4500)
        # N1 with an N1 walk cost: its 9 walks only (no STLB-hit cost
        # needed, as there is no STLB hit)
        self.assertEqual(replay.cost_cycles(dict(model('neoverse-n1'),
                                                 walk_cycles=30)), 9 * 30)
        # a unified L1 (N1): 41 small + 8 huge pages thrash its 48
        # entries, every L1 miss after the first round hits the L2 TLB
        cyc = [page4k(i) for i in range(41)] + [page2m(i) for i in range(8)]
        res = self.trace(cyc * 3, models=('neoverse-n1',))
        self.check(res, 'neoverse-n1', l1_miss=147, l2_hit=98, l2_miss=49)

    def test_working_set_that_fits_has_only_compulsory_misses(self):
        # 128 consecutive pages, 5 rounds: Skylake's 16 sets x 8 ways hold
        # all of them; Golden Cove's 256 too; N1 (48) does not.
        res = self.trace([page4k(i) for _ in range(5) for i in range(128)])
        self.check(res, 'skylake', lookups=640, l1_miss=128, l2_miss=128)
        self.check(res, 'goldencove', l1_miss=128, l2_miss=128)
        # N1: 128 pages cycle through 48 LRU entries: every lookup misses,
        # the 1280-entry L2 holds them all
        self.check(res, 'neoverse-n1', l1_miss=640, l2_miss=128)
        res = self.trace([page4k(i) for _ in range(5) for i in range(256)],
                         models=('goldencove',))
        self.check(res, 'goldencove', l1_miss=256, l2_miss=256)
        res = self.trace([page4k(i) for _ in range(5) for i in range(48)],
                         models=('neoverse-n1',))
        self.check(res, 'neoverse-n1', l1_miss=48, l2_miss=48)

    def test_fully_associative_entries_plus_one_always_misses(self):
        # N1 L1: 49 pages cycled through 48 LRU entries
        res = self.trace([page4k(i) for _ in range(4) for i in range(49)])
        self.check(res, 'neoverse-n1', lookups=196, l1_miss=196, l2_miss=49)
        # Skylake 2M iTLB: 8 entries, 9 huge pages cycled
        res = self.trace([page2m(i) for _ in range(4) for i in range(9)])
        self.check(res, 'skylake', l1_miss=36, l1_miss_2m=36, l2_miss=9,
                   l2_miss_2m=9)
        # ... 8 huge pages fit
        res = self.trace([page2m(i) for _ in range(4) for i in range(8)])
        self.check(res, 'skylake', l1_miss=8, l2_miss=8)

    def test_set_associative_entries_plus_one(self):
        # 129 consecutive pages: Skylake's set 0 gets 9 pages for 8 ways
        # and misses on each of them every round; the other sets hit
        res = self.trace([page4k(i) for _ in range(4) for i in range(129)])
        self.check(res, 'skylake', l1_miss=129 + 3 * 9, l2_miss=129)
        # Golden Cove: 257 pages, 32 sets: set 0 gets 9
        res = self.trace([page4k(i) for _ in range(4) for i in range(257)],
                         models=('goldencove',))
        self.check(res, 'goldencove', l1_miss=257 + 3 * 9, l2_miss=257)

    def test_one_huge_page_covers_512_small_pages(self):
        # the same 2 MB of code fetched 4 KB page by 4 KB page, twice
        small = [page4k(i) for _ in range(2) for i in range(512)]
        big = ['2m 0x%x' % (BASE * 512 + i * PAGE)
               for _ in range(2) for i in range(512)]
        res = self.trace(small)
        self.check(res, 'skylake', l1_miss=512 + 512, l2_miss=512)
        res = self.trace(big)
        for m in res:
            # one lookup: the repeated visits of the same page are skipped
            self.check(res, m, lookups=1, l1_miss=1, l1_miss_2m=1,
                       l2_miss=1)

    def test_set_conflict_evicts_from_l1_and_hits_stlb(self):
        # 9 pages 64 KB apart: all in Skylake L1 set 0 (16 sets, 8 ways),
        # every lookup misses L1; STLB (128 sets) holds all 9: STLB hits
        res = self.trace([page4k(16 * i) for _ in range(5) for i in range(9)],
                         models=('skylake',))
        self.check(res, 'skylake', lookups=45, l1_miss=45, l2_miss=9)
        # 9 pages 68 KB apart spread over 9 sets: no conflict
        res = self.trace([page4k(17 * i) for _ in range(5) for i in range(9)],
                         models=('skylake',))
        self.check(res, 'skylake', l1_miss=9, l2_miss=9)

    def test_stlb_set_conflict(self):
        # pages 512 KB apart share L1 set 0 and STLB set 0 (12 ways)
        res = self.trace([page4k(128 * i) for _ in range(3) for i in range(13)],
                         models=('skylake',))
        self.check(res, 'skylake', l1_miss=39, l2_miss=39)
        res = self.trace([page4k(128 * i) for _ in range(3) for i in range(12)],
                         models=('skylake',))
        self.check(res, 'skylake', l1_miss=36, l2_miss=12)
        # N1 L2: 5 ways, 256 sets: pages 1 MB apart, 6 of them conflict
        res = self.trace([page4k(256 * i) for _ in range(3) for i in range(6)],
                         models=('neoverse-n1',))
        self.check(res, 'neoverse-n1', l1_miss=6, l2_miss=6)   # fits L1
        res = self.trace([page4k(256 * i) for _ in range(3) for i in range(49)],
                         models=('neoverse-n1',))
        self.check(res, 'neoverse-n1', l1_miss=147, l2_miss=147)

    def test_replacement_is_lru_not_fifo(self):
        # fill 48 entries, touch page 0 again, bring in page 48: LRU
        # evicts page 1 (FIFO would evict page 0); page 0 then hits
        lines = [page4k(i) for i in range(48)]
        lines += [page4k(0), page4k(48), page4k(0), page4k(1)]
        res = self.trace(lines, models=('neoverse-n1',))
        self.check(res, 'neoverse-n1', l1_miss=50)

    def test_split_versus_unified_l1(self):
        # 41 small + 8 huge pages cycled: Skylake keeps them in separate
        # structures (both fit); N1's 48 shared entries thrash
        cyc = [page4k(i) for i in range(41)] + [page2m(i) for i in range(8)]
        res = self.trace(cyc * 3)
        self.check(res, 'skylake', l1_miss=49, l1_miss_2m=8, l2_miss=49)
        self.check(res, 'neoverse-n1', l1_miss=147, l1_miss_2m=24,
                   l2_miss=49)
        cyc = [page4k(i) for i in range(40)] + [page2m(i) for i in range(8)]
        res = self.trace(cyc * 3)
        self.check(res, 'neoverse-n1', l1_miss=48, l2_miss=48)

    def test_golden_cove_2m_associativity_variants(self):
        # 9 huge pages 8 MB apart: one set of the 8-way (4-set) reading,
        # nothing for the fully associative 32-entry reading
        res = self.trace(['2m 0x%x' % (i * 4 * MB2) for _ in range(2)
                          for i in range(9)])
        self.check(res, 'goldencove', l1_miss_2m=18, l2_miss=9)
        self.check(res, 'goldencove-fa2m', l1_miss_2m=9, l2_miss=9)

    def test_repeated_page_is_one_lookup(self):
        res = self.trace([page4k(3)] * 3 + [page4k(4), page4k(3)])
        self.check(res, 'skylake', lookups=3, l1_miss=2, l2_miss=2)

    def test_bad_trace_line_is_rejected(self):
        p = subprocess.run([os.path.join(build(), 'itlb-trace')],
                           input='4k 0x1000\n1g 0x0\n', capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn('line 2', p.stderr)
        p = subprocess.run([os.path.join(build(), 'itlb-trace'), '-m', 'x'],
                           input='', capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)


# A static program whose code is 1 + NFUNC pages: _start (one page) calls
# NFUNC functions, each alone in its own page, ROUNDS times over.
NFUNC = 100
ROUNDS = 5
PROG_C = r'''
#define PG __attribute__((aligned(4096), noinline, used))
%(funcs)s
static int (*const fns[])(void) = { %(names)s };
PG void _start(void)
{
	int s = 0;
	for (int r = 0; r < %(rounds)d; r++)
		for (unsigned i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
			s += fns[i]();
	__asm__ volatile("syscall" :: "a"(60), "D"(s & 0) : "memory");
	for (;;)
		;
}
''' % {'funcs': '\n'.join('PG int f%d(void) { return %d; }' % (i, i)
                          for i in range(NFUNC)),
       'names': ', '.join('f%d' % i for i in range(NFUNC)),
       'rounds': ROUNDS}


@unittest.skipUnless(HAVE_GCC, 'gcc (or make) missing: cannot build the '
                     'iTLB plugin')
@unittest.skipUnless(HAVE_QEMU, 'qemu-x86_64 missing: scripts/deps.sh '
                     'installs qemu-user')
class PluginTest(unittest.TestCase):
    """The plugin on a program with a known page-level fetch stream."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='itlb-prog-')
        src = os.path.join(cls.tmp, 'pages.c')
        cls.prog = os.path.join(cls.tmp, 'pages')
        with open(src, 'w') as f:
            f.write(PROG_C)
        subprocess.run(['gcc', '-O1', '-static', '-nostdlib', '-fno-pie',
                        '-no-pie', '-fno-stack-protector', '-o', cls.prog,
                        src], check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_plugin(self, regions=''):
        rfile = os.path.join(self.tmp, 'regions.txt')
        jfile = os.path.join(self.tmp, 'out.json')
        with open(rfile, 'w') as f:
            f.write(regions)
        plugin = os.path.join(build(), 'itlb-plugin.so')
        p = subprocess.run(['qemu-x86_64', '-plugin',
                            '%s,regions=%s,out=%s' % (plugin, rfile, jfile),
                            self.prog], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(jfile) as f:
            return json.load(f)

    def models(self, res):
        return {m['name']: m for m in res['models']}

    def test_small_pages_exact_misses(self):
        res = self.run_plugin()
        m = self.models(res)
        pages = NFUNC + 1
        self.assertEqual(res['huge_instructions'], 0)
        # Skylake / Golden Cove: 101 consecutive pages fit L1
        for name in ('skylake', 'goldencove'):
            self.assertEqual((m[name]['l1_misses'], m[name]['stlb_misses']),
                             (pages, pages), name)
        # N1: _start's page is touched between any two function pages and
        # stays resident; 100 function pages cycle through 47 entries
        self.assertEqual(m['neoverse-n1']['l1_misses'], 1 + NFUNC * ROUNDS)
        self.assertEqual(m['neoverse-n1']['stlb_misses'], pages)
        # STLB hits, the cost's other count: none on Skylake / Golden
        # Cove (every miss is a first touch), 400 on N1
        self.assertEqual(m['skylake']['stlb_hits'], 0)
        self.assertEqual(m['neoverse-n1']['stlb_hits'],
                         1 + NFUNC * ROUNDS - pages)
        # the cost inputs of the model table, null where not sourced
        self.assertEqual({n: (x['stlb_hit_cycles'], x['walk_cycles'])
                          for n, x in m.items()},
                         {'skylake': (22, None), 'goldencove': (None, None),
                          'neoverse-n1': (None, None),
                          'goldencove-fa2m': (None, None)})
        # page visits: _start, then (function, _start) per call
        self.assertEqual(m['skylake']['lookups'], 1 + 2 * NFUNC * ROUNDS)
        # all code comes from the one 2 MB file region at offset 0
        self.assertEqual(len(res['regions']), 1)
        r = res['regions'][0]
        self.assertEqual((r['name'], r['offset'], r['huge']),
                         (os.path.realpath(self.prog), 0, False))
        self.assertEqual(r['instructions'], res['instructions'])
        self.assertGreater(res['instructions'], 4 * NFUNC * ROUNDS)

    def test_file_region_huge(self):
        res = self.run_plugin('file 0 %s\n' % self.prog)
        self.assertEqual(res['huge_instructions'], res['instructions'])
        for m in res['models']:
            self.assertEqual((m['l1_misses'], m['l1_misses_2m'],
                              m['stlb_misses'], m['lookups']),
                             (1, 1, 1, 1), m['name'])
        self.assertTrue(res['regions'][0]['huge'])
        # another file's region changes nothing
        res = self.run_plugin('file 0 /bin/sh\nfile 0x200000 %s\n'
                              % self.prog)
        self.assertEqual(res['huge_instructions'], 0)
        self.assertEqual(self.models(res)['skylake']['l1_misses'], NFUNC + 1)

    def test_va_region_huge(self):
        # static non-PIE: code at 0x401000...; a guest-address range
        res = self.run_plugin('va 0x400000 0x600000\n')
        self.assertEqual(res['huge_instructions'], res['instructions'])
        self.assertEqual(self.models(res)['skylake']['l1_misses'], 1)

    def test_region_sets_one_run(self):
        # three sets in one run give each set's counts of its own run
        res = self.run_plugin('set small\nset file\nfile 0 %s\n'
                              'set other\nfile 0 /bin/sh\n' % self.prog)
        self.assertEqual([s['name'] for s in res['sets']],
                         ['small', 'file', 'other'])
        sets = {s['name']: {m['name']: m for m in s['models']}
                for s in res['sets']}
        huge = {s['name']: s['huge_instructions'] for s in res['sets']}
        self.assertEqual(huge, {'small': 0, 'file': res['instructions'],
                                'other': 0})
        for name in ('small', 'other'):
            self.assertEqual(sets[name]['skylake']['l1_misses'], NFUNC + 1)
            self.assertEqual(sets[name]['neoverse-n1']['l1_misses'],
                             1 + NFUNC * ROUNDS)
        for m in sets['file'].values():
            self.assertEqual((m['l1_misses'], m['stlb_misses']), (1, 1))
        # the top level is set 0; a region says in which sets it is huge
        self.assertEqual(self.models(res)['skylake']['l1_misses'], NFUNC + 1)
        self.assertEqual(res['regions'][0]['huge_sets'], 2)
        self.assertFalse(res['regions'][0]['huge'])

    def test_replay_driver(self):
        # the program's text is < 2 MB: no full region
        self.assertEqual(replay.full_regions(self.prog), [])
        rfile = os.path.join(self.tmp, 'huge.txt')
        with open(rfile, 'w') as f:
            f.write('# the first 2 MB of the program\n@exe 0x0\n')
        p = subprocess.run(
            ['python3', os.path.join(ITLB, 'replay.py'), '--plugin',
             os.path.join(build(), 'itlb-plugin.so'), '--models',
             'skylake', '--json', '--huge', 'none', '--huge', rfile, '--',
             self.prog], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertIn('not hardware', doc['note'])
        got = [(r['huge'], r['result']['models'][0]['l1_misses'])
               for r in doc['runs']]
        self.assertEqual(got, [('none', NFUNC + 1), (rfile, 1)])
        self.assertEqual(doc['runs'][1]['regions'],
                         ['file 0x0 %s' % os.path.realpath(self.prog)])
        # the table: STLB hits and the cost, labelled as a model result;
        # 'none' has 101 walks and Skylake no sourced walk cost: n/a
        p = subprocess.run(
            ['python3', os.path.join(ITLB, 'replay.py'), '--plugin',
             os.path.join(build(), 'itlb-plugin.so'), '--models',
             'skylake', '--huge', 'none', '--', self.prog],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertIn('not hardware', lines[0])
        self.assertTrue(lines[1].startswith('cost: cycles lost'))
        self.assertIn('cyc/1k', lines[3])
        row = next(ln.split() for ln in lines if ln.startswith('none'))
        self.assertEqual(row[1:7], ['skylake', str(doc['runs'][0]['result']
                                                   ['instructions']),
                                    str(NFUNC + 1), row[4], '0',
                                    str(NFUNC + 1)])
        self.assertEqual(row[8], 'n/a')


@unittest.skipUnless(HAVE_GCC, 'gcc missing')
class FullRegionsTest(unittest.TestCase):
    """replay.py's all-full region choice on a synthetic ELF header."""

    def test_full_regions(self):
        import struct
        ehdr = bytearray(64)
        ehdr[:6] = b'\x7fELF\x02\x01'
        struct.pack_into('<Q', ehdr, 32, 64)           # e_phoff
        struct.pack_into('<HH', ehdr, 54, 56, 3)       # phentsize, phnum

        def ph(typ, flags, off, size):
            b = bytearray(56)
            struct.pack_into('<IIQ', b, 0, typ, flags, off)
            struct.pack_into('<Q', b, 32, size)
            return bytes(b)
        data = bytes(ehdr) + ph(1, 5, 0x1000, 0x500000) + \
            ph(1, 6, 0x600000, 0x400000) + ph(1, 5, 0x800000, 0x200000)
        with tempfile.NamedTemporaryFile(suffix='.elf') as f:
            f.write(data)
            f.flush()
            # text [0x1000, 0x501000): only [2M, 4M) is full; the data
            # segment (RW) is ignored; [8M, 10M) is exactly one region
            self.assertEqual(replay.full_regions(f.name),
                             [0x200000, 0x800000])


if __name__ == '__main__':
    unittest.main()
