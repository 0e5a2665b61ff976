# SPDX-License-Identifier: GPL-2.0
"""make check's guards against passing by running nothing: each way the
tables can fail to join (scripts/check-tables.py) and a comparison of zero
cases (scripts/thp-compare.py), each on a copy of the real tables with one
line changed."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLES = ['scripts/kernels.list', 'scripts/arches.list', 'scripts/boots.list',
          'scripts/thpcmp.list', 'selftests/list', 'selftests/Makefile']


class Tables(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='ht-tables-')
        for t in TABLES:
            os.makedirs(os.path.join(self.tmp, os.path.dirname(t)), exist_ok=True)
            shutil.copy(os.path.join(TOP, t), os.path.join(self.tmp, t))
        os.symlink(os.path.join(TOP, 'patches'), os.path.join(self.tmp, 'patches'))
        os.symlink(os.path.join(TOP, 'kselftest'), os.path.join(self.tmp, 'kselftest'))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_check(self):
        p = subprocess.run([sys.executable, os.path.join(TOP, 'scripts/check-tables.py'),
                            '--top', self.tmp], capture_output=True, text=True)
        return p.returncode, p.stdout

    def edit(self, table, old, new, count=1):
        path = os.path.join(self.tmp, table)
        with open(path) as f:
            text = f.read()
        self.assertIn(old, text)
        with open(path, 'w') as f:
            f.write(text.replace(old, new, count))

    def append(self, table, line):
        with open(os.path.join(self.tmp, table), 'a') as f:
            f.write(line + '\n')

    def refused(self, what):
        rc, out = self.run_check()
        self.assertEqual(rc, 1, out)
        self.assertIn(what, out)

    def test_real_tables_join(self):
        rc, out = self.run_check()
        self.assertEqual(rc, 0, out)
        self.assertIn('they join', out)

    def test_tag_selects_no_test(self):
        self.append('scripts/boots.list',
                    'orphan 2 bzImage 900 - hugetext=1 htrun=check:nosuchtag')
        self.refused("tag 'nosuchtag' selects no line")

    def test_one_tag_of_a_plus_list_selects_nothing(self):
        self.edit('scripts/boots.list', 'htrun=check:boot1b', 'htrun=check:boot1b+typo')
        self.refused("tag 'typo' selects no line")

    def test_boot_without_tests(self):
        self.append('scripts/boots.list', 'idle 2 bzImage 900 - hugetext=1')
        self.refused("boot 'idle' runs no test")

    def test_boot_on_unknown_kernel(self):
        self.append('scripts/boots.list',
                    'ghost 2 6.6/bzImage 900 - hugetext=1 htrun=check:boot1')
        self.refused("kernel '6.6/bzImage' is not an image make check builds")

    def test_duplicate_boot(self):
        self.append('scripts/boots.list', 'hugetext1 2 bzImage 900 - htrun=check:boot1')
        self.refused("boot 'hugetext1' already on line")

    def test_unknown_test(self):
        self.append('selftests/list', 'hugetext_nosuch boot1 300')
        self.refused("test 'hugetext_nosuch' is not built")

    def test_test_run_by_no_boot(self):
        self.append('selftests/list', 'hugetext_knobs nobootever 300')
        self.refused("is run by no boot")

    def test_kselftest_filter_matches_nothing(self):
        self.edit('selftests/list', '-t boot_param', '-t boot_parm')
        self.refused("no test 'boot_parm'")

    def test_kselftest_filter_of_another_program(self):
        # vs_punch is a case of hugetext_collapse.c, not of hugetext_settings.c
        # (mm_hugetext_settings, the bigpmd line's program)
        self.edit('selftests/list', '-t boot_param -t big_pmd', '-t boot_param -t vs_punch')
        self.refused("no test 'vs_punch' in kselftest/hugetext_settings.c")

    def test_kselftest_filter_of_its_program(self):
        self.append('selftests/list', 'mm_hugetext_collapse bigpmd 300 -t vs_punch -f dirty_open')
        rc, out = self.run_check()
        self.assertEqual(rc, 0, out)

    def test_kselftest_program_not_built(self):
        # the rule that builds the first series' programs names another prefix
        self.edit('selftests/Makefile', '$(OUT)/mm_hugetext_%:', '$(OUT)/mm_hugetext_x%:')
        self.refused('the kselftest program mm_hugetext_collapse (kselftest/hugetext_collapse.c) '
                     'is not built')
        self.refused("test 'mm_hugetext_fault' is not built by selftests/Makefile")

    def test_bad_timeout(self):
        self.edit('selftests/list', 'hugetext_execstorm   execstorm                  300',
                  'hugetext_execstorm   execstorm                  5m')
        self.refused("timeout '5m' is not N or +N")

    def test_comparison_of_unknown_boot(self):
        self.edit('scripts/thpcmp.list', 'hugetext0  nohugetext', 'hugetext0  nohugetext2')
        self.refused("boot 'nohugetext2' is not in scripts/boots.list")

    def test_comparison_of_boot_without_thpcmp(self):
        self.edit('scripts/thpcmp.list', 'hugetext0  nohugetext', 'hugetext0  hugetext1')
        self.refused("boot 'hugetext1' does not run hugetext_thpcmp.sh")

    def test_duplicate_comparison(self):
        self.append('scripts/thpcmp.list',
                    'thp-selftests-same-with-hugetext-off hugetext0 nohugetext')
        self.refused("step 'thp-selftests-same-with-hugetext-off' already on line")


class ZeroCases(unittest.TestCase):
    def compare(self, a, b):
        with tempfile.TemporaryDirectory() as d:
            pa, pb = os.path.join(d, 'a.tap'), os.path.join(d, 'b.tap')
            with open(pa, 'w') as f:
                f.write(a)
            with open(pb, 'w') as f:
                f.write(b)
            return subprocess.run([sys.executable, os.path.join(TOP, 'scripts/thp-compare.py'),
                                   pa, pb], capture_output=True, text=True)

    CASE = '# thpcmp: anon: Collapse fully populated PTE table.... OK\n'

    def test_equal_cases_pass(self):
        p = self.compare(self.CASE, self.CASE)
        self.assertEqual(p.returncode, 0, p.stdout)

    def test_zero_cases_fail(self):
        p = self.compare('', '')
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn('no cases', p.stdout)

    def test_one_side_empty_fails(self):
        p = self.compare(self.CASE, '# nothing ran\n')
        self.assertEqual(p.returncode, 1, p.stdout)


if __name__ == '__main__':
    unittest.main()
