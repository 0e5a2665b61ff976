#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests for `hugetext run` (prctl PR_SET_HUGETEXT, then exec): its usage
errors, and what it does on a kernel without the prctl (the host's, unless
it has the series; hugetext_tool.sh checks the patched kernel in the
guest)."""

import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.environ.get('HUGETEXT_TOOL') or os.path.join(
    os.path.dirname(HERE), 'hugetext')
FIXTURES = os.path.join(HERE, 'fixtures')
# as in tools/hugetext: the first numbers mainline leaves free
PR_SET_HUGETEXT, PR_GET_HUGETEXT = 82, 83


def tool(*args):
    env = dict(os.environ)
    env.pop('HUGETEXT_ROOT', None)
    return subprocess.run([sys.executable, TOOL] + list(args),
                          capture_output=True, text=True, timeout=60,
                          env=env)


def kernel_has_prctl():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    u = ctypes.c_ulong
    return libc.prctl(PR_GET_HUGETEXT, u(0), u(0), u(0), u(0)) >= 0


class RunUsage(unittest.TestCase):
    def one_line_exit_2(self, p):
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertEqual(p.stdout, '')

    def test_no_command(self):
        self.one_line_exit_2(tool('run'))
        self.one_line_exit_2(tool('run', '--'))

    def test_conflicting_options(self):
        self.one_line_exit_2(tool('run', '--off', '--mode', '1', '--', 'true'))
        self.one_line_exit_2(tool('run', '--off', '--system', '--', 'true'))

    def test_bad_mode(self):
        for m in ('4', '-1', 'x', '1.0', ''):
            self.one_line_exit_2(tool('run', '--mode', m, '--', 'true'))

    @unittest.skipIf(kernel_has_prctl(), 'the running kernel has the prctl')
    def test_stock_kernel_opt_in_fails(self):
        # asking for hugetext: the kernel cannot give it, CMD does not run
        for args in ([], ['--mode', '3'], ['--mode', '1'], ['--mode', '2']):
            p = tool('run', *args, '--', 'echo', 'ran')
            self.assertEqual(p.returncode, 3, (args, p.stderr))
            self.assertEqual(p.stderr, 'hugetext: run: this kernel has no '
                             'per-process hugetext (prctl PR_SET_HUGETEXT)\n')
            self.assertEqual(p.stdout, '', 'CMD must not run without the '
                             'prctl')

    @unittest.skipIf(kernel_has_prctl(), 'the running kernel has the prctl')
    def test_stock_kernel_off_and_system_run(self):
        # hugetext off, or following the knob: what CMD gets anyway, so
        # one line of notice and CMD runs, its exit status the tool's
        for args in (['--off'], ['--system'], ['--mode', '0']):
            p = tool('run', *args, '--', 'echo', 'ran')
            self.assertEqual((p.returncode, p.stdout), (0, 'ran\n'),
                             (args, p.stderr))
            self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
            self.assertRegex(p.stderr, r'^hugetext: run: this kernel has no '
                             r'per-process hugetext \(prctl PR_SET_HUGETEXT'
                             r'\): echo runs as it would anyway, ')
            p = tool('run', *args, '--', 'sh', '-c', 'exit 7')
            self.assertEqual((p.returncode, p.stdout), (7, ''), args)
            self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
        p = tool('run', '--off', '--', 'no-such-command-hugetext')
        self.assertEqual(p.returncode, 127, p.stderr)
        self.assertEqual(len(p.stderr.splitlines()), 2, p.stderr)
        self.assertIn('no-such-command-hugetext', p.stderr.splitlines()[1])

    @unittest.skipIf(kernel_has_prctl(), 'the running kernel has the prctl')
    def test_stock_kernel_notice_says_what_applies(self):
        # the notice names what CMD follows: no hugetext at all, or (a
        # hugetext kernel before the prctl; here a fixture tree) the knob
        stock = os.path.join(FIXTURES, 'stock')
        patched = os.path.join(FIXTURES, 'patched')
        for root, tail in ((stock, 'without hugetext'),
                           (patched, 'following hugetext_enabled 1')):
            p = tool('--root', root, 'run', '--off', '--', 'true')
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stderr, 'hugetext: run: this kernel has no '
                             'per-process hugetext (prctl PR_SET_HUGETEXT): '
                             'true runs as it would anyway, %s\n' % tail)

    @unittest.skipUnless(kernel_has_prctl(), 'the running kernel lacks it')
    def test_patched_kernel(self):
        get = ('import ctypes; u = ctypes.c_ulong; print(ctypes.CDLL(None)'
               '.prctl(%d, u(0), u(0), u(0), u(0)))' % PR_GET_HUGETEXT)
        for args, want in ((['--off'], '4'), (['--mode', '1'], '5'),
                           ([], '7'), (['--system'], '0')):
            p = tool('run', *args, '--', sys.executable, '-c', get)
            self.assertEqual((p.returncode, p.stdout.strip(), p.stderr),
                             (0, want, ''), args)
        p = tool('run', '--', 'no-such-command-hugetext')
        self.assertEqual(p.returncode, 127, p.stderr)


if __name__ == '__main__':
    unittest.main()
