#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The knob writers and status (tools/lib/hugetext/control.py): the names
"set" takes, what status says of a knob the kernel lacks."""

import unittest

import test_hugetext as th
from test_hugetext import ENABLED, MAXNR, PAD, RODATA

THP = 'sys/kernel/mm/transparent_hugepage/'


class TestSetNames(th.FixtureCase):
    """set takes the tool's names and the knobs' files of either series
    (README: "the hugetext tool and the tests take either")."""

    def test_either_series_names(self):
        for name, value, rel in (
                ('exec_pad_threshold', '4096', PAD),
                ('hugetext_pad_threshold', '8192', PAD),
                ('exec_pad_rodata', '1', RODATA),
                ('khugepaged/max_exec_regions', '4', MAXNR),
                ('max_exec_regions', '5', MAXNR),
                ('khugepaged/max_nr_hugetext', '6', MAXNR),
                ('hugetext_enabled', 'all', ENABLED)):
            p = self.hugetext('set', name, value)
            self.assertEqual(p.returncode, 0, (name, p.stderr))
            self.assertEqual(self.read(rel),
                             '3' if value == 'all' else value, name)

    def test_bit_file_name_on_6_12(self):
        # exec_anon_enabled is bit 1 of hugetext_enabled (1 here)
        p = self.hugetext('set', 'exec_anon_enabled', 'always')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.read(ENABLED), '3')
        p = self.hugetext('set', 'exec_file_enabled', 'prctl')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.read(ENABLED), '2')

    def test_bad_names_and_words_change_nothing(self):
        before = self.read(ENABLED)
        for args in (['bogus', '1'], ['exec_file_enabled', '1'],
                     ['exec_anon_enabled', 'never'],
                     ['exec_pad_threshold', '-1']):
            p = self.hugetext('set', *args)
            self.assertEqual(p.returncode, 2, (args, p.stderr))
            self.assertEqual(p.stdout, '')
            self.assertEqual(p.stderr.count('\n'), 1, p.stderr)
            self.assertEqual(self.read(ENABLED), before)


class TestSetNames73(th.MainlineFixtureCase):
    def test_bit_file_alone(self):
        p = self.hugetext('set', 'exec_anon_enabled', 'always')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, 'exec_anon_enabled: always [prctl] -> '
                         'always\n')
        self.assertEqual(self.read(THP + 'exec_file_enabled'),
                         '[always] prctl\n')
        p = self.hugetext('set', 'exec_pad_threshold', '4096')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.read(THP + 'exec_pad_threshold'), '4096')


if __name__ == '__main__':
    unittest.main()
