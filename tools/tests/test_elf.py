#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hugetext check (tools/lib/hugetext/elf.py): the numbers and segments
its text gives are the ones its JSON has, --pmd-size as it prints sizes."""

import json
import os
import unittest

import test_hugetext as th

MB = th.MB
RX, R = th.RX, th.R


class CheckCase(th.FixtureCase):
    def make(self, name, segments, size):
        path = os.path.join(self.tmp, name)
        with open(path, 'wb') as f:
            f.write(th.elf64_exec(segments, size))
            f.truncate(size)
        return path

    def check(self, path, *args):
        p = self.hugetext('check', '--json', path, *args)
        self.assertEqual(p.returncode, 0, p.stderr)
        text = self.hugetext('check', path, *args)
        self.assertEqual(text.returncode, 0, text.stderr)
        return json.loads(p.stdout)['files'][0], text.stdout


class TestCheckNumbers(CheckCase):
    def test_tail_padding_over_two_segments_names_both(self):
        # Debian's stress-ng: the tail padding would cover an RE segment
        # and then the R .rodata: the text names both, as covers does
        prog = self.make('prog', [th.PAD_TEXT,
                                  (RX, 0x6f0000, 0xaf0000, 0x10000, 0x10000),
                                  (R, 0x700000, 0xb00000, 0x100000,
                                   0x100000)], 0x900000)
        f, text = self.check(prog)
        tail = f['padding']['tail']
        self.assertEqual(tail['covers'], [1, 2])
        self.assertTrue(tail['needs_pad_rodata'])
        why = tail['refused_without_pad_rodata']
        self.assertIn('segments 1 (RE, p_vaddr 0xaf0000) and 2 (R, p_vaddr '
                      '0xb00000)', why)
        self.assertIn(why, text)

    def test_head_and_tail_on_small_pages(self):
        # cc1's layout: 0x1cf000 before its first full region, 0x1f4f15
        # after its last; "3.8M tail" was the two together
        prog = self.make('cc1', [(RX, 0x231000, 0x631000, 0x13c3f15,
                                  0x13c3f15)], 0x1600000)
        f, text = self.check(prog)
        s = f['segments'][0]
        self.assertEqual((s['huge_possible'], s['head'], s['tail'],
                          s['small_pages']),
                         (16 * MB, 0x1cf000, 0x1f4f15, 0x1cf000 + 0x1f4f15))
        self.assertIn('16M can be huge (8 x 2 MB), 1.8M head and 2.0M tail '
                      'on small pages', text)
        # not congruent: all of it
        bad = self.make('bad', [(RX, 0x231000, 0x632000, 0x13c3f15,
                                 0x13c3f15)], 0x1600000)
        f, text = self.check(bad)
        s = f['segments'][0]
        self.assertEqual((s['huge_possible'], s['head'], s['tail'],
                          s['small_pages']), (0, 0, 0, 0x13c3f15))
        self.assertIn('0 can be huge (0 x 2 MB), all of it on small pages',
                      text)

    def test_small_pages_where_the_last_page_fills_the_region(self):
        # the text ends in the last page before a 2 MB boundary: that
        # region is huge, the tail none; the head is what is on small pages
        prog = self.make('prog', [(RX, 0x1ff000, 0x5ff000, 0x400800,
                                   0x400800)], 0x900000)
        s = self.check(prog)[0]['segments'][0]
        self.assertEqual((s['huge_possible'], s['head'], s['tail'],
                          s['small_pages']), (4 * MB, 0x1000, 0, 0x1000))

    def test_pmd_size_in_hex(self):
        prog = self.make('prog', [th.PAD_TEXT], 0x900000)
        for v in ('0x200000', '2097152', '0X200000'):
            f, _ = self.check(prog, '--pmd-size', v)
            self.assertEqual(f['segments'][0]['huge_possible'], 4 * MB, v)
        for v in ('0x300000', '0', '-0x200000', '0x', '2M', '0x1' + '0' * 30,
                  '0x800'):
            p = self.hugetext('check', prog, '--pmd-size=' + v)
            self.assertEqual(p.returncode, 2, (v, p.stderr))
            self.assertEqual(p.stdout, '')
            self.assertEqual(p.stderr.count('\n'), 1, p.stderr)
            self.assertIn('is not a power of two from 0x1000 to '
                          '0x10000000000', p.stderr)


if __name__ == '__main__':
    unittest.main()
