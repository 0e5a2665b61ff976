# SPDX-License-Identifier: GPL-2.0
"""make check's kselftest-one-source guard (scripts/kselftest.py): a
series tree whose selftest files differ from what kselftest/ makes
fails, one that has them as made passes; kselftest.py write makes them
so.  On a small repository of its own: a kernels.list of two kernels,
a shared source, one of each series, and a tree of each."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(TOP, 'scripts', 'kselftest.py')
MM = 'tools/testing/selftests/mm'


class OneSource(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp(prefix='ht-kselftest-')
        os.makedirs(os.path.join(self.top, 'scripts'))
        shutil.copy(os.path.join(TOP, 'scripts', 'kernels.list'),
                    os.path.join(self.top, 'scripts', 'kernels.list'))
        self.put('kselftest/hugetext_helpers.c', 'shared\n')
        self.put('kselftest/hugetext_helpers.h', 'shared header\n')
        self.put('kselftest/6.12/hugetext_names.h', '6.12 names\n')
        self.put('kselftest/7.3/hugetext_names.h', '7.3 names\n')
        for k, out in (('6.12', 'out'), ('7.3', 'out/7.3')):
            self.put(out + '/src/' + MM + '/Makefile', 'not ours\n')
            self.assertEqual(self.run_tool('write', k)[0], 0)

    def tearDown(self):
        shutil.rmtree(self.top)

    def put(self, rel, text):
        path = os.path.join(self.top, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)

    def run_tool(self, *args):
        p = subprocess.run([sys.executable, TOOL, '--top', self.top] + list(args),
                           capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr

    def assert_drift(self, kernel, what):
        rc, out = self.run_tool('check', kernel)
        self.assertEqual(rc, 1, out)
        self.assertIn(what, out)

    def test_equal_passes(self):
        for k in ('6.12', '7.3'):
            rc, out = self.run_tool('check', k)
            self.assertEqual(rc, 0, out)
            self.assertIn('3 files', out)

    def test_each_tree_gets_its_own_and_the_shared(self):
        with open(os.path.join(self.top, 'out/7.3/src', MM, 'hugetext_names.h')) as f:
            self.assertEqual(f.read(), '7.3 names\n')
        rc, out = self.run_tool('files', '6.12')
        self.assertEqual(sorted(out.split('\n')),
                         ['', 'kselftest/6.12/hugetext_names.h ' + MM + '/hugetext_names.h',
                          'kselftest/hugetext_helpers.c ' + MM + '/hugetext_helpers.c',
                          'kselftest/hugetext_helpers.h ' + MM + '/hugetext_helpers.h'])

    def test_a_tree_edited_fails(self):
        self.put('out/src/' + MM + '/hugetext_helpers.c', 'fixed in the tree only\n')
        self.assert_drift('6.12', 'hugetext_helpers.c: differs from kselftest/hugetext_helpers.c')
        rc, out = self.run_tool('check', '7.3')
        self.assertEqual(rc, 0, out)

    def test_kselftest_edited_fails_until_written(self):
        self.put('kselftest/7.3/hugetext_names.h', '7.3 names, renamed\n')
        self.assert_drift('7.3', 'differs from kselftest/7.3/hugetext_names.h')
        self.assertEqual(self.run_tool('write', '7.3')[0], 0)
        self.assertEqual(self.run_tool('check', '7.3')[0], 0)

    def test_a_file_only_in_the_tree_fails(self):
        self.put('out/src/' + MM + '/hugetext.c', 'the old single file\n')
        self.assert_drift('6.12', 'hugetext.c: in the tree, not made by kselftest/')
        self.assertEqual(self.run_tool('write', '6.12')[0], 0)
        self.assertFalse(os.path.exists(os.path.join(self.top, 'out/src', MM, 'hugetext.c')))
        self.assertTrue(os.path.exists(os.path.join(self.top, 'out/src', MM, 'Makefile')))

    def test_a_file_missing_from_the_tree_fails(self):
        os.unlink(os.path.join(self.top, 'out/src', MM, 'hugetext_helpers.h'))
        self.assert_drift('6.12', 'hugetext_helpers.h: missing')

    def test_a_second_copy_is_refused(self):
        self.put('kselftest/6.12/hugetext_helpers.c', 'a second copy\n')
        rc, out = self.run_tool('check', '6.12')
        self.assertEqual(rc, 1)
        self.assertIn('one source for each file', out)

    def test_an_unknown_kernel_is_refused(self):
        rc, out = self.run_tool('check', '6.1')
        self.assertEqual(rc, 1)
        self.assertIn('no such kernel', out)


if __name__ == '__main__':
    unittest.main()
