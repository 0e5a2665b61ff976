#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests for bench/icount (the window instruction-count plugin, the guest
program fault-loop and the report).

The plugin is loaded by qemu-user (qemu-x86_64; qemu-aarch64 for the arm64
markers when it and aarch64-linux-gnu-gcc are installed), where every guest
instruction is a user one; kernel_base= moved into the test program's own
code checks the kernel/user split.  Skipped only when gcc, make or
qemu-x86_64 is missing (scripts/deps.sh installs qemu-user).

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
ICOUNT = os.path.join(os.path.dirname(HERE), 'icount')
sys.path.insert(0, ICOUNT)
sys.dont_write_bytecode = True
import icount_report  # noqa: E402

HAVE_GCC = shutil.which('gcc') is not None and shutil.which('make') is not None
HAVE_QEMU = shutil.which('qemu-x86_64') is not None
HAVE_A64 = (shutil.which('qemu-aarch64') is not None and
            shutil.which('aarch64-linux-gnu-gcc') is not None)
K = 1000          # iterations of the known loop: 1 + 2 * K instructions

_build = {}


def build(arch='x86_64'):
    """make -C bench/icount into a temporary OUT, once per guest arch."""
    if arch not in _build:
        d = tempfile.mkdtemp(prefix='icount-test-')
        subprocess.run(['make', '-s', '-C', ICOUNT, 'OUT=' + d,
                        'GUEST_ARCH=' + arch], check=True,
                       stdout=subprocess.DEVNULL)
        _build[arch] = d
    return _build[arch]


def tearDownModule():
    for d in _build.values():
        shutil.rmtree(d, ignore_errors=True)


# The probe: scenarios of known instruction counts between markers, in
# inline asm (x86-64), one per argv[1].  Static with glibc (the threads
# and the signal scenario need it).
PROBE_C = r'''
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "icount_marker.h"

#define S(t) ".byte 0x0f,0x1f,0x80\n\t.long " #t " | 0x48545300\n\t"
#define E(t) ".byte 0x0f,0x1f,0x80\n\t.long " #t " | 0x48544500\n\t"

static void loop(int k)		/* a window of 1 + 2k instructions */
{
	__asm__ volatile(S(7) "mov %0, %%ecx\n1:\tdec %%ecx\n\tjnz 1b\n\t"
			 E(7) :: "r"(k) : "ecx", "cc", "memory");
}

static void *thread_loop(void *arg)
{
	loop((int)(long)arg);
	return NULL;
}

static pthread_barrier_t bar;

/* a window open on each of two vCPUs at once: both are open when
 * either thread passes the barrier */
static void *thread_overlap(void *arg)
{
	if (arg) {
		ICOUNT_START(21);
		pthread_barrier_wait(&bar);
		ICOUNT_STOP(21);
	} else {
		ICOUNT_START(22);
		pthread_barrier_wait(&bar);
		ICOUNT_STOP(22);
	}
	return NULL;
}

static void *thread_start(void *arg)
{
	(void)arg;
	ICOUNT_START(20);
	return NULL;
}

static char *page;

static void on_segv(int sig)
{
	(void)sig;
	mprotect(page, 4096, PROT_READ);
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "";

	if (!strcmp(s, "basic")) {
		/* window 0: adjacent markers, nothing between */
		__asm__ volatile(S(5) E(5) ::: "memory");
		/* window 1: three instructions between */
		__asm__ volatile(S(6) "nop\n\tnop\n\tnop\n\t" E(6) ::: "memory");
		/* window 2: a loop, the markers in different TBs */
		loop(@K@);
		/* window 3: a jump between (two TBs): jmp + nop */
		__asm__ volatile(S(4) "jmp 1f\n1:\tnop\n\t" E(4) ::: "memory");
		/* a stop with no start; a start, a second start, a stop:
		 * the first is dropped, window 4 is the second's (1 nop) */
		__asm__ volatile(E(8) ::: "memory");
		__asm__ volatile(S(9) "nop\n\tnop\n\t" S(9) "nop\n\t" E(9)
				 ::: "memory");
		/* a tag mismatch: no window */
		__asm__ volatile(S(10) "nop\n\t" E(11) ::: "memory");
		/* window 5: the macros of icount_marker.h, tag 255 */
		ICOUNT_START(255);
		ICOUNT_STOP(255);
		/* window 6: the loop again, the same count */
		loop(@K@);
		/* left open at exit */
		ICOUNT_START(12);
		return 0;
	}
	if (!strcmp(s, "split")) {
		/* kernel_base=icount_split: 4 user, 6 kernel in one TB */
		__asm__ volatile(S(3) "nop\n\tnop\n\tnop\n\tnop\n\t"
				 ".globl icount_split\nicount_split:\n\t"
				 "nop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\t"
				 E(3) ::: "memory");
		return 0;
	}
	if (!strcmp(s, "threads")) {
		pthread_t a, b, c, d, e;

		/* two windows, each on its own vCPU (one per thread) */
		pthread_create(&a, NULL, thread_loop, (void *)10L);
		pthread_join(a, NULL);
		pthread_create(&b, NULL, thread_loop, (void *)20L);
		pthread_join(b, NULL);
		pthread_barrier_init(&bar, NULL, 2);
		pthread_create(&d, NULL, thread_overlap, (void *)1L);
		pthread_create(&e, NULL, thread_overlap, NULL);
		pthread_join(d, NULL);
		pthread_join(e, NULL);
		/* a start on one vCPU and a stop on another: no window */
		pthread_create(&c, NULL, thread_start, NULL);
		pthread_join(c, NULL);
		ICOUNT_STOP(20);
		return 0;
	}
	if (!strcmp(s, "fault")) {
		/* a load that faults in the middle of a TB: the handler
		 * makes the page readable and the load runs again */
		struct sigaction sa = { .sa_handler = on_segv };

		page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
		sigaction(SIGSEGV, &sa, NULL);
		__asm__ volatile(S(13) "nop\n\tmov (%0), %%eax\n\tnop\n\t"
				 "nop\n\tnop\n\t" E(13) "jmp 1f\n1:\n\t"
				 :: "r"(page) : "eax", "memory");
		return 0;
	}
	return 2;
}
'''.replace('@K@', str(K))


@unittest.skipUnless(HAVE_GCC, 'gcc (or make) missing: cannot build '
                     'bench/icount')
@unittest.skipUnless(HAVE_QEMU, 'qemu-x86_64 missing: scripts/deps.sh '
                     'installs qemu-user')
class PluginTest(unittest.TestCase):
    """Exact window counts of known instruction sequences."""

    @classmethod
    def setUpClass(cls):
        cls.out = build()
        cls.tmp = tempfile.mkdtemp(prefix='icount-probe-')
        src = os.path.join(cls.tmp, 'probe.c')
        cls.probe = os.path.join(cls.tmp, 'probe')
        with open(src, 'w') as f:
            f.write(PROBE_C)
        subprocess.run(['gcc', '-O1', '-static', '-pthread', '-Wall',
                        '-Werror', '-I', ICOUNT, '-o', cls.probe, src],
                       check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_plugin(self, prog_args, plugin_args='', qemu='qemu-x86_64',
                   out=None, want_rc=0):
        out = out or self.out
        jfile = os.path.join(self.tmp, 'res.json')
        if os.path.exists(jfile):
            os.unlink(jfile)
        spec = os.path.join(out, 'icount-plugin.so') + ',out=' + jfile
        if plugin_args:
            spec += ',' + plugin_args
        p = subprocess.run([qemu, '-plugin', spec] + prog_args,
                           capture_output=True, text=True, timeout=120,
                           cwd=self.tmp)
        self.assertEqual(p.returncode, want_rc, p.stderr)
        with open(jfile) as f:
            return json.load(f), p.stdout

    def windows(self, res):
        return [(w['index'], w['tag'], w['kernel'], w['user'])
                for w in res['windows']]

    def test_basic_windows_exact(self):
        for count in ('tb', 'insn'):
            res, _ = self.run_plugin([self.probe, 'basic'],
                                     'count=' + count)
            self.assertEqual(res['count'], count)
            self.assertIn('not time', res['note'])
            self.assertEqual(self.windows(res), [
                (0, 5, 0, 0),
                (1, 6, 0, 3),
                (2, 7, 0, 1 + 2 * K),
                (3, 4, 0, 2),
                (4, 9, 0, 1),
                (5, 255, 0, 0),
                (6, 7, 0, 1 + 2 * K),
            ], count)
            self.assertEqual((res['unpaired_stops'], res['unpaired_starts'],
                              res['tag_mismatches'], res['open_at_exit']),
                             (1, 1, 1, 1), count)
            self.assertEqual({w['vcpu'] for w in res['windows']}, {0})
            self.assertFalse(res['lost'])
            self.assertEqual(res['target'], 'x86_64')
            self.assertFalse(res['system_emulation'])
            self.assertEqual(res['kernel_base'], '0xffff800000000000')
            self.assertEqual(res['args'][1:], ['count=' + count])
            # in qemu-user, nothing is at a kernel address
            self.assertEqual([v['kernel'] for v in res['vcpus']], [0])

    def test_kernel_user_split_by_address(self):
        nm = subprocess.run(['nm', self.probe], capture_output=True,
                            text=True, check=True).stdout
        addr = next(int(ln.split()[0], 16) for ln in nm.splitlines()
                    if ln.endswith(' icount_split'))
        for count in ('tb', 'insn'):
            res, _ = self.run_plugin([self.probe, 'split'],
                                     'count=%s,kernel_base=0x%x'
                                     % (count, addr))
            self.assertEqual(self.windows(res), [(0, 3, 6, 4)], count)
            self.assertEqual(res['kernel_base'], '0x%x' % addr)
        # one instruction later: 5 and 5 (each nop is 1 byte)
        res, _ = self.run_plugin([self.probe, 'split'],
                                 'kernel_base=0x%x' % (addr + 1))
        self.assertEqual(self.windows(res), [(0, 3, 5, 5)])

    def test_windows_are_per_vcpu(self):
        res, _ = self.run_plugin([self.probe, 'threads'])
        wins = res['windows']
        # two threads in turn, a known loop each
        self.assertEqual([(w['tag'], w['user']) for w in wins[:2]],
                         [(7, 21), (7, 41)])
        # two windows open at once on two vCPUs: each closes on its own
        # vCPU with its own tag (no start is dropped, no tag mismatch)
        self.assertEqual(sorted(w['tag'] for w in wins[2:]), [21, 22])
        self.assertEqual(len({w['vcpu'] for w in wins[2:]}), 2)
        self.assertTrue(all(w['user'] > 0 for w in wins[2:]))
        self.assertEqual(len(wins), 4)
        # no window is the main thread's (vCPU 0)
        self.assertNotIn(0, {w['vcpu'] for w in wins})
        self.assertEqual((res['unpaired_starts'], res['tag_mismatches']),
                         (0, 0))
        # the stop on the main thread's vCPU has no start there; the
        # start's window is left open on the other vCPU
        self.assertEqual(res['unpaired_stops'], 1)
        self.assertEqual(res['open_at_exit'], 1)

    def test_early_exit_of_a_tb(self):
        # count=insn: nop, the load's two attempts, 3 nops, and the
        # signal's handler and return; count=tb counts the faulting TB
        # whole: 3 nops, the stop marker and the jmp (5) once more
        tb, _ = self.run_plugin([self.probe, 'fault'], 'count=tb')
        insn, _ = self.run_plugin([self.probe, 'fault'], 'count=insn')
        self.assertEqual(len(tb['windows']), 1)
        self.assertEqual(len(insn['windows']), 1)
        t, i = tb['windows'][0]['user'], insn['windows'][0]['user']
        self.assertGreater(i, 6)           # the handler ran in the window
        self.assertEqual(t - i, 5)

    def test_bad_arguments_are_refused(self):
        for arg in ('kernel_base=12x', 'count=bb', 'bogus=1'):
            p = subprocess.run(['qemu-x86_64', '-plugin',
                                os.path.join(self.out, 'icount-plugin.so')
                                + ',' + arg, self.probe, 'split'],
                               capture_output=True, text=True, timeout=60)
            self.assertNotEqual(p.returncode, 0, arg)

    def test_markers_do_not_occur_in_libc(self):
        # fault-loop is static: glibc's code holds none of the marker's
        # byte patterns anywhere, only fault-loop's own 12 markers
        with open(os.path.join(self.out, 'fault-loop'), 'rb') as f:
            data = f.read()
        n = 0
        for i in range(len(data) - 6):
            if (data[i:i + 3] == b'\x0f\x1f\x80' and
                    data[i + 5:i + 7] == b'TH' and data[i + 4] in b'SE'):
                n += 1
        self.assertEqual(n, 12)

    def fault_loop(self, args, count='tb'):
        res, out = self.run_plugin([os.path.join(self.out, 'fault-loop')]
                                   + args, 'count=' + count)
        lines = [ln for ln in out.splitlines() if ln.startswith('window=')]
        return res, out, lines

    def test_fault_loop_anon_windows_join(self):
        res, out, lines = self.fault_loop(['-r', '3', 'anon', '64'])
        self.assertEqual(len(lines), 6)
        joined = icount_report.join(res, out)
        self.assertEqual([(j['index'], j['tag'], j['n']) for j in joined],
                         [(i, 0x82 if i % 2 == 0 else 2,
                           0 if i % 2 == 0 else 64) for i in range(6)])
        # user mode: identical repeats (window 0 also runs mmap's first
        # TB translations, which are not instructions: also identical)
        work = {j['user'] for j in joined if j['n']}
        empty = {j['user'] for j in joined if not j['n']}
        self.assertEqual(len(work), 1)
        self.assertEqual(len(empty), 1)
        self.assertGreater(min(work), min(empty))
        # the same windows, counted per instruction
        res2, out2, _ = self.fault_loop(['-r', '3', 'anon', '64'], 'insn')
        self.assertEqual(self.windows(res2), self.windows(res))

    def test_fault_loop_file_fetch_is_linear(self):
        # -x calls one return instruction per 4 KB page of the file: the
        # user count of a work window grows by the same amount per page,
        # exactly (N = 0 skips the loop's setup too, so only work
        # windows are compared)
        f = os.path.join(self.tmp, 'text.bin')
        work = {}
        for n in (10, 20, 30):
            res, out, lines = self.fault_loop(['-r', '2', 'file', '-f', f,
                                               '-e', 'try', '-x', str(n)])
            joined = icount_report.join(res, out)
            self.assertEqual(len(joined), 4)
            w = [j['user'] for j in joined if j['n'] == n]
            e = [j['user'] for j in joined if j['n'] == 0]
            self.assertEqual(len(set(w)), 1)
            self.assertEqual(len(set(e)), 1)
            self.assertTrue(all(j['resident'] >= 0 for j in joined))
            work[n] = w[0]
        self.assertEqual(work[30] - work[20], work[20] - work[10])
        self.assertGreaterEqual(work[20] - work[10], 10 * 2)  # call + ret
        self.assertEqual(os.path.getsize(f), 30 * 4096)
        # a read touch (no -x) counts a different, also constant amount
        res, out, _ = self.fault_loop(['-r', '2', 'file', '-f', f,
                                       '-e', 'try', '10'])
        w = [j['user'] for j in icount_report.join(res, out) if j['n']]
        self.assertEqual(len(set(w)), 1)
        self.assertNotEqual(w[0], work[10])
        # -R (MADV_RANDOM, outside the window) leaves the window's own
        # instructions as they are
        res, out, _ = self.fault_loop(['-r', '2', 'file', '-f', f, '-R',
                                       '-e', 'try', '10'])
        self.assertEqual({j['user'] for j in icount_report.join(res, out)
                          if j['n']}, {w[0]})

    def test_fault_loop_exec_windows(self):
        res, out, lines = self.fault_loop(['-r', '2', 'exec', '3'])
        joined = icount_report.join(res, out)
        self.assertEqual([j['n'] for j in joined], [0, 3, 0, 3])
        # qemu-user: each fork is a qemu process of its own (which
        # writes its JSON beside, res.json.PID) and the execve'd
        # icount-true runs natively, so only the parent's work counts
        self.assertGreater(joined[1]['user'], joined[0]['user'])

    def test_report(self):
        res, out, _ = self.fault_loop(['-r', '3', 'anon', '16'])
        jfile = os.path.join(self.tmp, 'r.json')
        ofile = os.path.join(self.tmp, 'r.out')
        with open(jfile, 'w') as f:
            json.dump(res, f)
        with open(ofile, 'w') as f:
            f.write(out)
        p = subprocess.run(['python3', os.path.join(ICOUNT,
                                                    'icount_report.py'),
                            '--json', jfile, ofile], capture_output=True,
                           text=True, check=True)
        doc = json.loads(p.stdout)
        self.assertIn('not time', doc['note'])
        (row,) = doc['rows']
        self.assertEqual((row['mode'], row['n'], row['repeats']),
                         ('anon', 16, 3))
        joined = icount_report.join(res, out)
        w = joined[1]['user'] - joined[0]['user']
        self.assertEqual(row['user_per_unit'], w / 16)
        self.assertEqual(row['kernel_per_unit'], 0)
        p = subprocess.run(['python3', os.path.join(ICOUNT,
                                                    'icount_report.py'),
                            jfile, ofile], capture_output=True, text=True,
                           check=True)
        self.assertIn('TCG instruction counts, not time', p.stdout)
        # a join whose tags disagree is refused
        bad = json.loads(json.dumps(res))
        bad['windows'][1]['tag'] = 3
        with self.assertRaises(ValueError):
            icount_report.join(bad, out)
        bad = json.loads(json.dumps(res))
        del bad['windows'][-1]
        with self.assertRaises(ValueError):
            icount_report.join(bad, out)


@unittest.skipUnless(HAVE_GCC, 'gcc (or make) missing')
@unittest.skipUnless(HAVE_A64, 'qemu-aarch64 or aarch64-linux-gnu-gcc '
                     'missing: the arm64 markers are not tested')
class Arm64Test(unittest.TestCase):
    """The arm64 markers through qemu-aarch64 and the cross-built
    fault-loop."""

    def test_arm64_markers(self):
        out = build('arm64')
        tmp = tempfile.mkdtemp(prefix='icount-a64-')
        try:
            src = os.path.join(tmp, 'p.c')
            prog = os.path.join(tmp, 'p')
            with open(src, 'w') as f:
                f.write('#include "icount_marker.h"\n'
                        'int main(void) {\n'
                        '  ICOUNT_START(0); ICOUNT_STOP(0);\n'
                        '  ICOUNT_START(200);\n'
                        '  __asm__ volatile("nop\\n\\tnop\\n\\tmov x9, #%d\\n'
                        '1:\\tsubs x9, x9, #1\\n\\tb.ne 1b" ::: "x9", "cc");\n'
                        '  ICOUNT_STOP(200);\n'
                        '  ICOUNT_START(37); ICOUNT_STOP(38);\n'
                        '  return 0; }\n' % K)
            subprocess.run(['aarch64-linux-gnu-gcc', '-O1', '-static',
                            '-Wall', '-Werror', '-I', ICOUNT, '-o', prog,
                            src], check=True)
            jfile = os.path.join(tmp, 'r.json')
            subprocess.run(['qemu-aarch64', '-plugin',
                            os.path.join(out, 'icount-plugin.so') +
                            ',out=' + jfile, prog], check=True, timeout=60)
            with open(jfile) as f:
                res = json.load(f)
            self.assertEqual(res['target'], 'aarch64')
            self.assertEqual(res['kernel_base'], '0xffff000000000000')
            self.assertEqual([(w['tag'], w['kernel'], w['user'])
                              for w in res['windows']],
                             [(0, 0, 0), (200, 0, 3 + 2 * K)])
            self.assertEqual(res['tag_mismatches'], 1)
            # glibc's arm64 code has none of the marker words
            subprocess.run(['qemu-aarch64', '-plugin',
                            os.path.join(out, 'icount-plugin.so') +
                            ',out=' + jfile,
                            os.path.join(out, 'fault-loop'), '-r', '1',
                            'anon', '4'], check=True, timeout=60,
                           capture_output=True)
            with open(jfile) as f:
                res = json.load(f)
            self.assertEqual([w['tag'] for w in res['windows']],
                             [0x82, 2])
            self.assertEqual(res['markers_translated'], 4)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    unittest.main()
