#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every error the tool prints, in one table: what is run, on which tree,
and the whole line it must print.  A reword is one row here.  Each row
also checks that the error is one line on stderr, nothing on stdout, the
exit code, and that the tree is as it was (bad input changes nothing)."""

import os
import unittest
from unittest import mock

import test_hugetext as th

from hugetext import control as ht_control  # noqa: E402
from hugetext import fs as ht_fs  # noqa: E402

THP = '/sys/kernel/mm/transparent_hugepage/'
HINT = " (see 'hugetext %s -h')"   # bad usage ends with it
NO_HUGETEXT = ('this kernel has no hugetext support (no /sys/kernel/mm/'
               'transparent_hugepage/hugetext_enabled)')

# (fixture, edits {file: text, or None to remove it}, environment, args,
#  exit code, the line after "hugetext: ")
MESSAGES = [
    (None, {}, {'HUGETEXT_ROOT': '/nonexistent'}, ['status'], 2,
     "HUGETEXT_ROOT=/nonexistent: not a directory (see 'hugetext -h')"),
    (None, {}, {}, ['--root', '/nonexistent', 'status'], 2,
     "--root /nonexistent: not a directory (see 'hugetext -h')"),
    ('patched', {}, {}, ['stat', '--bogus'], 2,
     'stat: unrecognized arguments: --bogus' + HINT % 'stat'),
    ('patched', {}, {}, ['set', 'enabled', '4'], 2,
     'value for enabled out of range: 4 (allowed 0..3)' + HINT % 'set'),
    ('patched', {}, {}, ['set', 'enabled', 'x'], 2,
     "invalid value for enabled: 'x' (expected a decimal integer 0..3)" +
     HINT % 'set'),
    ('patched', {}, {}, ['set', 'pad_threshold', '2097152'], 2,
     'value for pad_threshold out of range: 2097152 (allowed 0..2097151 '
     '(0..PMD size - 1))' + HINT % 'set'),
    ('patched', {}, {}, ['set', 'bogus', '1'], 2,
     "unknown knob 'bogus' (one of enabled, pad_threshold, pad_rodata, "
     "max_nr_hugetext, sample_millisecs, or its file's name)" +
     HINT % 'set'),
    ('patched', {}, {}, ['set', 'exec_file_enabled', '1'], 2,
     "invalid value for exec_file_enabled: '1' (expected always or prctl)" +
     HINT % 'set'),
    ('patched', {THP + 'hugetext_pad_rodata': None}, {},
     ['set', 'pad_rodata', '1'], 3,
     'this kernel does not provide pad_rodata (no ' + THP +
     'hugetext_pad_rodata)'),
    ('mainline', {THP + 'exec_pad_rodata': None}, {},
     ['set', 'pad_rodata', '1'], 3,
     'this kernel does not provide pad_rodata (no ' + THP +
     'exec_pad_rodata)'),
    ('stock', {}, {}, ['set', 'pad_threshold', '0'], 3, NO_HUGETEXT),
    ('stock', {}, {}, ['enable', '1'], 3, NO_HUGETEXT),
    ('stock', {}, {}, ['status'], 3, NO_HUGETEXT),
    ('stock', {}, {}, ['rollback'], 3,
     NO_HUGETEXT + '; nothing to roll back, nothing changed'),
    ('stock', {}, {}, ['bench', '--no-perf', '--', 'true'], 3, NO_HUGETEXT),
    ('patched', {}, {}, ['stat', '--count', '2'], 2,
     '--count needs --interval' + HINT % 'stat'),
    ('patched', {}, {}, ['stat', '--interval', '0'], 2,
     'stat: argument --interval: 0 is not a whole number of milliseconds '
     'from 1 to 86400000' + HINT % 'stat'),
    ('patched', {}, {}, ['stat', '--interval', '1', '--count',
                         '9' * 50], 2,
     'stat: argument --count: %s is not a whole number of snapshots from 1 '
     'to 1000000000' % ('9' * 50) + HINT % 'stat'),
    ('patched', {}, {}, ['stat', '--pid', '9999'], 1,
     'no such process: 9999'),
    ('patched', {}, {}, ['stat', '--pid', '0'], 2,
     "--pid: invalid PID '0' (a PID is a decimal number from 1 to 4194304)"
     + HINT % 'stat'),
    ('patched', {}, {}, ['stat', '--pid', ' '], 2,
     "--pid ' ': no PID given" + HINT % 'stat'),
    ('patched', {}, {}, ['stat', '--comm', 'postgres'], 1,
     'no process named postgres'),
    ('patched', {}, {}, ['stat', '--cgroup', 'nope'], 1,
     '--cgroup nope: no cgroup.procs in /sys/fs/cgroup/nope, '
     '/sys/fs/cgroup/unified/nope'),
    ('patched', {THP + 'hpage_pmd_size': None}, {}, ['stat'], 1,
     'cannot read PMD size from ' + THP + 'hpage_pmd_size (kernel without '
     'transparent huge pages?)'),
    ('patched', {}, {}, ['check', '/dev/null'], 2,
     '/dev/null: not a regular file (character device)'),
    ('patched', {}, {}, ['check', '/nonexistent'], 1,
     '/nonexistent: No such file or directory'),
    ('patched', {}, {}, ['check', '--pmd-size', '3', '/bin/sh'], 2,
     'check: argument --pmd-size: 3 is not a power of two from 0x1000 to '
     '0x10000000000 (decimal or 0x hex)' + HINT % 'check'),
    ('patched', {}, {}, ['bench'], 2,
     'no command given: hugetext bench [-n N] -- CMD' + HINT % 'bench'),
    ('patched', {}, {}, ['bench', '-n', '0', '--', 'true'], 2,
     '-n must be at least 1' + HINT % 'bench'),
    ('patched', {}, {}, ['bench', '--mode', '5', '--', 'true'], 2,
     "invalid --mode '5' (1..3, file, anon, all)" + HINT % 'bench'),
    ('patched', {}, {}, ['bench', '--', '/nonexistent/cmd'], 2,
     'command not found: /nonexistent/cmd' + HINT % 'bench'),
    ('patched', {THP + 'hugetext_enabled': 'x\n'}, {},
     ['bench', '--no-perf', '--', 'true'], 1,
     'cannot read hugetext_enabled, so bench could not put it back after '
     'the runs; nothing run'),
    ('patched', {}, {}, ['run'], 2,
     'run: no command given (hugetext run [--off] -- CMD ...)' +
     HINT % 'run'),
]

FIXTURE_CASES = {'patched': th.FixtureCase, 'stock': th.FixtureCase,
                 'mainline': th.MainlineFixtureCase}


def tree(root):
    """{file: bytes} of a tree, to see that nothing changed."""
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, 'rb') as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


class TestMessages(unittest.TestCase):
    def test_every_message(self):
        for fixture, edits, env, args, rc, msg in MESSAGES:
            with self.subTest(args=args, fixture=fixture):
                self.one(fixture, edits, env, args, rc, msg)

    def one(self, fixture, edits, env, args, rc, msg):
        root = None
        if fixture:
            case = FIXTURE_CASES[fixture]('run')
            case.fixture = 'stock' if fixture == 'stock' else 'patched'
            case.setUp()
            self.addCleanup(case.tearDown)
            for rel, text in edits.items():
                if text is None:
                    os.unlink(case.path(rel.lstrip('/')))
                else:
                    case.put(rel.lstrip('/'), text)
            root = case.root
            before = tree(root)
        if env:
            p = th.run(*args, env=env)
        else:
            p = th.run(*args, root=root)
        # check's first line (the kernel) is on stdout before the error
        out = '' if args[0] != 'check' else p.stdout
        self.assertEqual((p.returncode, p.stdout, p.stderr),
                         (rc, out, 'hugetext: %s\n' % msg))
        if root:
            self.assertEqual(tree(root), before)

    def test_every_usage_error_has_the_hint(self):
        # argparse's errors too: each ends with the command's -h
        for args, prog in (
                (['frobnicate'], 'hugetext'), ([], 'hugetext'),
                (['status', '--bogus'], 'hugetext status'),
                (['stat', '--pid', 'x'], 'hugetext stat'),
                (['set'], 'hugetext set'), (['check'], 'hugetext check'),
                (['knobs', '--format=yaml'], 'hugetext knobs'),
                (['rollback', 'x'], 'hugetext rollback'),
                (['enable', '9'], 'hugetext enable'),
                (['bench', '-n', 'x'], 'hugetext bench'),
                (['run', '--mode', '7', 'true'], 'hugetext run')):
            p = th.run(*args, root=os.path.join(th.FIXTURES, 'patched'))
            self.assertEqual(p.returncode, 2, args)
            self.assertEqual(p.stderr.count('\n'), 1, p.stderr)
            self.assertTrue(p.stderr.endswith(" (see '%s -h')\n" % prog),
                            (args, p.stderr))


class TestMessagesInProcess(th.FixtureCase):
    """Errors that need a kernel the tests cannot make: root refused."""

    def test_root_refused_is_not_told_to_be_root(self):
        class Refusing(ht_fs.Fs):
            def write(self, p, value, append=False):
                raise PermissionError(30, 'Read-only file system', p)

        fs = Refusing(self.root)
        for euid, want in ((1000, 'must be root'),
                           (0, 'refused although running as root')):
            with mock.patch('os.geteuid', return_value=euid), \
                    mock.patch.object(ht_fs.Fs, 'live', True):
                with self.assertRaises(ht_fs.HugetextError) as e:
                    ht_control.write_one(fs, THP + 'hugetext_enabled', '1')
            self.assertIn(want, e.exception.msg)
            if euid == 0:
                self.assertNotIn('must be root', e.exception.msg)

    def test_bench_restore_failed_is_said(self):
        import argparse
        import contextlib
        import io
        from hugetext import bench as ht_bench
        args = argparse.Namespace(cmd=['--', 'true'], n=1, mode='1',
                                  sample_ms=100, no_perf=True, json=False)
        writes = mock.Mock(side_effect=[None, None, None,
                                        PermissionError(13, 'denied')])
        out, err = io.StringIO(), io.StringIO()
        with mock.patch.object(ht_bench, 'write_knob_value', writes), \
                contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            rc = ht_bench.bench_main(args, ht_fs.Fs(self.root))
        self.assertEqual(writes.call_count, 4)
        self.assertEqual(rc, 1)
        self.assertIn('could not restore hugetext_enabled to 1: denied',
                      err.getvalue())
        self.assertTrue(out.getvalue().endswith(
            'hugetext mode NOT restored to 1 (the write failed)\n'))

    def test_bench_command_killed(self):
        p = self.hugetext('bench', '-n', '1', '--no-perf', '--', 'sh', '-c',
                          'kill -9 $$')
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr, 'hugetext: command failed (killed by '
                         'signal 9): sh -c kill -9 $$\n')
        self.assertEqual(self.read(th.ENABLED), '1')


if __name__ == '__main__':
    unittest.main()
