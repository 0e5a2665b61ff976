#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""--json: every command's JSON carries supported and version (the man
page's promise), on a kernel with hugetext and on one without; what it
says of a knob the kernel lacks is true."""

import json
import unittest

import test_hugetext as th


class TestJsonEverywhere(th.FixtureCase):
    def assertFields(self, p, rc, supported, *args):
        self.assertEqual(p.returncode, rc, (args, p.stderr))
        d = json.loads(p.stdout)
        self.assertIsInstance(d, dict, args)
        self.assertIs(d.get('supported'), supported, args)
        self.assertRegex(d.get('version', ''), r'^\d', args)
        return d

    def test_knobs(self):
        d = self.assertFields(self.hugetext('knobs', '--json'), 0, True)
        self.assertEqual([k['name'] for k in d['knobs']],
                         [k.name for k in th.KNOBS])
        self.assertEqual(d['pmd_size'], 2 * th.MB)
        self.assertFields(self.hugetext('knobs', '--format=json'), 0, True)


class TestJsonStock(TestJsonEverywhere):
    fixture = 'stock'

    def test_knobs(self):
        self.assertFields(self.hugetext('knobs', '--json'), 0, False)

    def test_bench(self):
        p = self.hugetext('bench', '--json', '-n', '1', '--no-perf', '--',
                          'true')
        d = self.assertFields(p, 3, False)
        self.assertEqual(d['runs_detail'], [])
        self.assertEqual(p.stderr.count('\n'), 1, p.stderr)

    def test_status_knob_meaning(self):
        # no knob "predates" anything on a kernel without the series
        d = self.assertFields(self.hugetext('status', '--json'), 3, False)
        for name, k in d['knobs'].items():
            self.assertEqual(k['meaning'], 'not provided: this kernel has '
                             'no hugetext', name)


class TestKnobMeaning(th.FixtureCase):
    def test_predates_only_where_the_older_knob_is(self):
        th.os.unlink(self.path(th.RODATA))
        d = json.loads(self.hugetext('status', '--json').stdout)
        self.assertIn('which predates it', d['knobs']['pad_rodata']['meaning'])
        # a kernel before padding: no tail padding either
        th.os.unlink(self.path(th.PAD))
        d = json.loads(self.hugetext('status', '--json').stdout)
        self.assertEqual(d['knobs']['pad_rodata']['meaning'],
                         'not provided by this kernel')
        # there but not a number
        self.put(th.MAXNR, 'garbage\n')
        d = json.loads(self.hugetext('status', '--json').stdout)
        self.assertEqual(d['knobs']['max_nr_hugetext']['meaning'],
                         'unreadable')


if __name__ == '__main__':
    unittest.main()
