#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tools/mkdeb, the tool's Debian package (make deb builds it beside the
kernel's): its fields, its files, that the tool it installs is the
tool, that it has nothing dpkg -r could leave behind.  With dpkg-deb
only: nothing is installed."""

import gzip
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

import test_hugetext as th

TOOLS = os.path.dirname(th.HERE)
MKDEB = os.path.join(TOOLS, 'mkdeb')


@unittest.skipUnless(shutil.which('dpkg-deb'), 'no dpkg-deb')
class TestDeb(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='hugetext-deb.')
        p = subprocess.run([sys.executable, MKDEB, cls.tmp],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        assert p.returncode == 0, p.stderr
        cls.deb = p.stdout.strip()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def dpkg_deb(self, *args):
        return subprocess.run(['dpkg-deb'] + list(args) + [self.deb],
                              stdout=subprocess.PIPE, check=True,
                              universal_newlines=True).stdout

    def test_fields(self):
        self.assertEqual(os.path.basename(self.deb), 'hugetext_%s_all.deb'
                         % th.ht_common.VERSION)
        fields = dict(line.split(': ', 1) for line in self.dpkg_deb(
            '--field').splitlines() if ': ' in line and line[0] != ' ')
        self.assertEqual(fields['Package'], 'hugetext')
        self.assertEqual(fields['Architecture'], 'all')
        self.assertEqual(fields['Depends'], 'python3 (>= 3.9)')
        self.assertEqual(fields['Version'], th.ht_common.VERSION)

    def test_files(self):
        got = sorted(line.split()[-1] for line in
                     self.dpkg_deb('--contents').splitlines()
                     if not line.startswith('d'))
        self.assertEqual(got, ['./usr/sbin/hugetext',
                               './usr/share/doc/hugetext/copyright',
                               './usr/share/man/man8/hugetext.8.gz'])
        # no maintainer scripts, no conffiles: dpkg -r removes it all
        ctrl = subprocess.run(['dpkg-deb', '--ctrl-tarfile', self.deb],
                              stdout=subprocess.PIPE, check=True).stdout
        with tempfile.TemporaryFile() as t:
            t.write(ctrl)
            t.seek(0)
            with tarfile.open(fileobj=t) as tar:
                names = [m.name for m in tar.getmembers() if m.isfile()]
        self.assertEqual(names, ['./control'])

    def test_installed_tool_is_the_tool(self):
        x = os.path.join(self.tmp, 'x')
        subprocess.run(['dpkg-deb', '-x', self.deb, x], check=True)
        tool = os.path.join(x, 'usr', 'sbin', 'hugetext')
        self.assertTrue(os.access(tool, os.X_OK))
        root = os.path.join(th.FIXTURES, 'patched')
        for args in (['status', '--json', '--root', root], ['set', '-h']):
            want = th.run(*args)
            got = subprocess.run([sys.executable, '-S', tool] + args,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE,
                                 universal_newlines=True)
            self.assertEqual((got.returncode, got.stdout),
                             (want.returncode, want.stdout), args)
        with gzip.open(os.path.join(x, 'usr', 'share', 'man', 'man8',
                                    'hugetext.8.gz')) as m, \
                open(os.path.join(TOOLS, 'hugetext.8'), 'rb') as f:
            self.assertEqual(m.read(), f.read())


if __name__ == '__main__':
    unittest.main()
