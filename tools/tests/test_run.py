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
PR_GET_HUGETEXT = 75


def tool(*args):
    return subprocess.run([sys.executable, TOOL] + list(args),
                          capture_output=True, text=True, timeout=60)


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
    def test_stock_kernel(self):
        p = tool('run', '--', 'echo', 'ran')
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn('no per-process hugetext', p.stderr)
        self.assertEqual(p.stdout, '', 'CMD must not run without the prctl')

    @unittest.skipUnless(kernel_has_prctl(), 'the running kernel lacks it')
    def test_patched_kernel(self):
        p = tool('run', '--off', '--', sys.executable, '-c',
                 'import ctypes; u = ctypes.c_ulong; print(ctypes.CDLL(None)'
                 '.prctl(75, u(0), u(0), u(0), u(0)))')
        self.assertEqual((p.returncode, p.stdout.strip()), (0, '4'), p.stderr)
        p = tool('run', '--', 'no-such-command-hugetext')
        self.assertEqual(p.returncode, 127, p.stderr)


if __name__ == '__main__':
    unittest.main()
