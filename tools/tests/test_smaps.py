#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hugetext stat (tools/lib/hugetext/smaps.py): its numbers' bounds, the
processes it selects, its lines for odd process names, its errors."""

import json
import os
import subprocess
import sys
import unittest
from unittest import mock

import test_hugetext as th

from hugetext import fs as ht_fs  # noqa: E402  (test_hugetext's sys.path)
from hugetext import smaps as ht_smaps  # noqa: E402


class TestStatInput(th.FixtureCase):
    def assertUsage(self, *args):
        p = self.hugetext('stat', *args)
        self.assertEqual(p.returncode, 2, (args, p.stderr))
        self.assertEqual(p.stdout, '')
        self.assertEqual(p.stderr.count('\n'), 1, p.stderr)
        self.assertTrue(p.stderr.startswith('hugetext: '), p.stderr)
        return p.stderr

    def test_interval_bounds(self):
        # time.sleep() refused these (OverflowError, EINVAL): refused here
        for ms in ('99999999999999999999', '9223372036854', '86400001',
                   '0'):
            err = self.assertUsage('--interval', ms, '--count', '2')
            self.assertIn('%s is not a whole number of milliseconds from 1 '
                          'to 86400000' % ms, err)
        p = self.hugetext('stat', '--interval', '1', '--count', '1',
                          '--json')
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_long_pid_echoed_as_given(self):
        pid = '1' * 41
        err = self.assertUsage('--pid', pid)
        self.assertIn("invalid PID '%s'" % pid, err)
        self.assertIn("invalid PID '4194305'", self.assertUsage(
            '--pid', '4194305'))

    def test_comm_with_newline_printed_escaped(self):
        self.put('proc/1234/comm', 'c\nc1\x1b\n')
        p = self.hugetext('stat', '--pid', '1234')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('PID 1234 (c\\nc1\\x1b) ', p.stdout)
        self.assertNotIn('\x1b', p.stdout)
        self.assertFalse(p.stdout.startswith('c1'))
        d = json.loads(self.hugetext('stat', '--pid', '1234',
                                     '--json').stdout)
        self.assertEqual(d['processes'][0]['comm'], 'c\nc1\x1b')
        p = self.hugetext('stat', '--rollup')
        self.assertIn(' c\\nc1\\x1b ', p.stdout)
        # a name's own blanks are kept, and --comm finds it
        self.put('proc/1234/comm', ' cc1 \n')
        d = json.loads(self.hugetext('stat', '--comm', ' cc1 ',
                                     '--json').stdout)
        self.assertEqual([p['comm'] for p in d['processes']], [' cc1 '])

    def test_cgroup_v2_at_unified(self):
        # systemd's hybrid layout: cgroup v2 at /sys/fs/cgroup/unified;
        # --cgroup takes the path /proc/PID/cgroup prints ("0::/httest")
        cg = self.path('sys/fs/cgroup/unified/httest')
        os.makedirs(cg)
        self.put('sys/fs/cgroup/unified/httest/cgroup.procs', '2345\n')
        d = json.loads(self.hugetext('stat', '--cgroup', '/httest',
                                     '--json').stdout)
        self.assertEqual([p['pid'] for p in d['processes']], [2345])
        # and wherever /proc/mounts says cgroup2 is
        os.makedirs(self.path('cg2/httest2'))
        self.put('cg2/httest2/cgroup.procs', '1234\n')
        self.put('proc/mounts', 'cgroup2 /cg2 cgroup2 rw 0 0\n')
        d = json.loads(self.hugetext('stat', '--cgroup', '/httest2',
                                     '--json').stdout)
        self.assertEqual([p['pid'] for p in d['processes']], [1234])


class TestStatPermission(th.FixtureCase):
    """A process whose smaps cannot be read, named with --pid."""

    def snapshot(self, euid):
        class Refusing(ht_fs.Fs):
            def read(self, p):
                if p.endswith('/smaps'):
                    raise PermissionError(13, 'Permission denied', p)
                return super().read(p)

        args = mock.Mock(
            pid=['1234'], comm=[], cgroup=[], all=False, rollup=False)
        fs = Refusing(self.root)
        with mock.patch('os.geteuid', return_value=euid), \
                mock.patch.object(ht_fs.Fs, 'live', True):
            with self.assertRaises(ht_fs.HugetextError) as e:
                ht_smaps.stat_snapshot(args, fs, 2 << 20)
        return e.exception.msg

    def test_root_is_not_told_to_be_root(self):
        msg = self.snapshot(0)
        self.assertNotIn('must be root', msg)
        self.assertIn('although running as root', msg)
        self.assertIn('must be root or the owner', self.snapshot(1000))


class TestStatLive(unittest.TestCase):
    """The running system's /proc."""

    def test_own_process_left_out(self):
        with open('/proc/self/comm') as f:
            comm = f.read().rstrip('\n')
        env = dict(os.environ)
        env.pop('HUGETEXT_ROOT', None)
        p = subprocess.Popen([sys.executable, '-S', th.TOOL, 'stat',
                              '--comm', comm, '--json'],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True, env=env)
        out, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 0, err)
        got = [q['pid'] for q in json.loads(out)['processes']]
        self.assertIn(os.getpid(), got)
        self.assertNotIn(p.pid, got)


if __name__ == '__main__':
    unittest.main()
