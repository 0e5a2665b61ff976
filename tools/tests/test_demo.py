#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make demo's report() (scripts/guest/demo report PID NAME) on the host,
with the tool under test (HUGETEXT_TOOL, else tools/hugetext) reading the
host's /proc: one whole line while the process runs, nothing and no
traceback whatever moment it exits."""

import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
DEMO = os.path.join(TOP, 'scripts', 'guest', 'demo')
TOOL = os.environ.get('HUGETEXT_TOOL') or os.path.join(TOP, 'tools',
                                                       'hugetext')
SLEEP = '/bin/sleep'
LINE = r'^sleep text +[0-9.]+ MB at 0x[0-9a-f]+ \(start mod 2 MB = .*' \
    r'coverage [0-9]+%\n$'


@unittest.skipUnless(os.path.exists(SLEEP), 'no ' + SLEEP)
class TestDemoReport(unittest.TestCase):
    def report(self, pid, tool='%s %s' % (sys.executable, TOOL)):
        p = subprocess.run(['sh', DEMO, 'report', str(pid), 'sleep'],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=60,
                           env=dict(os.environ, HUGETEXT_DEMO_TOOL=tool))
        self.assertEqual(p.stderr, '')
        return p

    def sleeper(self):
        p = subprocess.Popen([SLEEP, '60'])
        self.addCleanup(p.wait)
        self.addCleanup(p.kill)
        for _ in range(100):     # until it runs sleep, not Python's fork
            with open('/proc/%d/maps' % p.pid) as f:
                if '/sleep' in f.read():
                    return p
            time.sleep(0.02)
        self.fail('sleep did not start')

    def assertNoLine(self, p):
        self.assertEqual((p.returncode, p.stdout), (1, ''))

    def test_running(self):
        p = self.report(self.sleeper().pid)
        self.assertEqual(p.returncode, 0)
        self.assertRegex(p.stdout, LINE)

    def test_exited_before_the_sample(self):
        # gone between "kill -0" and the sample: the tool says "no such
        # process" on stderr (thrown away) and prints no JSON
        s = self.sleeper()
        s.kill()
        s.wait()
        self.assertNoLine(self.report(s.pid))

    def test_exited_not_reaped(self):
        # a zombie: its smaps is empty, the JSON has no mappings
        s = self.sleeper()
        s.send_signal(signal.SIGKILL)
        for _ in range(100):
            with open('/proc/%d/stat' % s.pid) as f:
                if f.read().rsplit(')', 1)[1].split()[0] == 'Z':
                    break
            time.sleep(0.02)
        self.assertNoLine(self.report(s.pid))

    def test_tool_cut_off_mid_output(self):
        # the sample interrupted while the JSON was written
        s = self.sleeper()
        with tempfile.NamedTemporaryFile('w', suffix='.sh',
                                         delete=False) as f:
            f.write('"$@" | head -c 100; exit 1\n')
        self.addCleanup(os.unlink, f.name)
        self.assertNoLine(self.report(s.pid, 'sh %s %s %s' % (
            f.name, sys.executable, TOOL)))


if __name__ == '__main__':
    unittest.main()
