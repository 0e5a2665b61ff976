# SPDX-License-Identifier: GPL-2.0
"""The command line: "hugetext run" (prctl PR_SET_HUGETEXT) and the
parser that dispatches each subcommand to its module."""

import argparse
import errno
import os
import sys

from .common import (
    EXIT_ERROR, EXIT_OK, EXIT_UNSUPPORTED, EXIT_USAGE, HugetextError,
    PR_HUGETEXT_SET, PR_HUGETEXT_SYSTEM, PR_SET_HUGETEXT,
    VERSION)
from .knobs import knobs_main, knobs_set_argparser, mode_label, read_mode
from .fs import Fs, printable, supported
from .control import (
    disable_main, disable_set_argparser, enable_main, enable_set_argparser,
    set_main, set_set_argparser, status_main, status_set_argparser)
from .smaps import stat_main, stat_set_argparser
from .elf import check_main, check_set_argparser
from .rollback import rollback_main, rollback_set_argparser
from .bench import bench_main, bench_set_argparser


# "hugetext run"

def run_set_argparser(parser):
    g = parser.add_mutually_exclusive_group()
    g.add_argument('--off', action='store_true',
                   help='hugetext off for CMD, whatever the knob says '
                   '(hugetext_enabled; exec_file_enabled and '
                   'exec_anon_enabled on the 7.3 series)')
    g.add_argument('--mode', type=int, choices=range(4), metavar='MODE',
                   help='hugetext bits for CMD: 1 text, 2 JIT code, 3 both '
                   '(the default), 0 off')
    g.add_argument('--system', action='store_true',
                   help='CMD follows the knob (undoes an inherited '
                   'setting)')
    parser.add_argument('cmd', nargs=argparse.REMAINDER, metavar='-- CMD',
                        help='command to run')


def run_main(args, fs):
    """prctl(PR_SET_HUGETEXT) on this process, then exec CMD: the setting
    is kept over exec and inherited by CMD's children."""
    import ctypes
    cmd = args.cmd[1:] if args.cmd[:1] == ['--'] else args.cmd
    if not cmd:
        raise HugetextError('run: no command given (hugetext run [--off] -- '
                            'CMD ...)', EXIT_USAGE)
    if args.system:
        value = PR_HUGETEXT_SYSTEM
    else:
        mode = 0 if args.off else (3 if args.mode is None else args.mode)
        value = PR_HUGETEXT_SET | mode
    libc = ctypes.CDLL(None, use_errno=True)
    ul = ctypes.c_ulong
    if libc.prctl(PR_SET_HUGETEXT, ul(value), ul(0), ul(0), ul(0)) != 0:
        err = ctypes.get_errno()
        if err == errno.EPERM:
            # a kernel where hugetext_enabled bounds the setting (the 7.3
            # series): a bit the knob has off needs CAP_SYS_RESOURCE
            knob = read_mode(fs) if supported(fs) else None
            raise HugetextError(
                'run: prctl(PR_SET_HUGETEXT, mode %d): not permitted: '
                '%s is %s, and turning on what it has off '
                'needs CAP_SYS_RESOURCE (run as root, or raise the knob)'
                % (value & 3, mode_label(fs),
                   '(unreadable)' if knob is None else knob),
                EXIT_ERROR)
        if err != errno.EINVAL:
            raise HugetextError('run: prctl(PR_SET_HUGETEXT): %s'
                                % os.strerror(err), EXIT_ERROR)
        if value & 3:
            # opting in: the kernel cannot do what was asked
            raise HugetextError('run: this kernel has no per-process hugetext '
                                '(prctl PR_SET_HUGETEXT)', EXIT_UNSUPPORTED)
        # --off (--mode 0) or --system: CMD runs as it would without the
        # tool, which is what --system asks for, and what --off gets on a
        # kernel without hugetext.
        if supported(fs):
            knob = read_mode(fs)
            how = 'following %s %s' % (
                mode_label(fs), '(unreadable)' if knob is None else knob)
        else:
            how = 'without hugetext'
        print('hugetext: run: this kernel has no per-process hugetext (prctl '
              'PR_SET_HUGETEXT): %s runs as it would anyway, %s'
              % (cmd[0], how), file=sys.stderr, flush=True)
    try:
        os.execvp(cmd[0], cmd)
    except OSError as e:
        raise HugetextError('run: %s: %s' % (cmd[0], e.strerror), 127)


SUBCOMMANDS = [
    ('status', 'show kernel support, knobs, khugepaged and counters',
     status_set_argparser, status_main),
    ('enable', 'set hugetext_enabled to MODE',
     enable_set_argparser, enable_main),
    ('disable', 'set hugetext_enabled to 0',
     disable_set_argparser, disable_main),
    ('set', 'set a hugetext knob', set_set_argparser, set_main),
    ('knobs', 'print the knob table (names, files, ranges, defaults, bad '
     'inputs) as text, json, sh or c', knobs_set_argparser, knobs_main),
    ('stat', 'per-process huge page coverage of executable mappings',
     stat_set_argparser, stat_main),
    ('check', 'check whether ELF files can get huge text pages',
     check_set_argparser, check_main),
    ('rollback', 'turn hugetext off, split the huge pages of executable '
     'mappings, drop caches',
     rollback_set_argparser, rollback_main),
    ('bench', 'time a command with hugetext on and off, its page cache '
     'evicted before each run',
     bench_set_argparser, bench_main),
    ('run', 'run a command with its own hugetext setting (prctl '
     'PR_SET_HUGETEXT, inherited by its children)',
     run_set_argparser, run_main),
]


def usage_hint(prog):
    """What every usage error ends with."""
    return " (see '%s -h')" % prog


class Parser(argparse.ArgumentParser):
    def error(self, message):
        """Bad usage: one line on stderr, exit 2 (not usage + error)."""
        sub = self.prog[len('hugetext'):].strip()
        self.exit(EXIT_USAGE, 'hugetext: %s%s%s\n'
                  % (sub + ': ' if sub else '', message,
                     usage_hint(self.prog)))


def build_parser():
    root_help = 'read /proc and /sys below DIR (default $HUGETEXT_ROOT or /)'
    parser = Parser(prog='hugetext',
                    description='Inspect and control huge pages for '
                    'executable text (hugetext kernel series).',
                    epilog='exit codes: 0 ok, 1 error, 2 bad usage or input, '
                    '3 kernel lacks hugetext')
    parser.add_argument('--version', action='version',
                        version='hugetext ' + VERSION)
    parser.add_argument('--root', metavar='DIR', help=root_help)
    sub = parser.add_subparsers(dest='command', metavar='COMMAND',
                                parser_class=Parser)
    parser.commands = {}
    for name, help_, set_argparser, main in SUBCOMMANDS:
        p = parser.commands[name] = sub.add_parser(name, help=help_,
                                                   description=help_)
        p.add_argument('--root', metavar='DIR', default=argparse.SUPPRESS,
                       help=root_help)
        set_argparser(p)
        p.set_defaults(func=main)
    return parser


def main(argv=None):
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if not getattr(args, 'func', None):
        parser.error('no command given')
    if extra:
        # the command's own error, hint and all, not the top parser's
        parser.commands[args.command].error(
            'unrecognized arguments: %s' % ' '.join(extra))
    root, where = args.root, '--root %s'
    if not root and os.environ.get('HUGETEXT_ROOT'):
        root, where = os.environ['HUGETEXT_ROOT'], 'HUGETEXT_ROOT=%s'
    if root and not os.path.isdir(root):
        raise HugetextError((where + ': not a directory') % printable(root) +
                            usage_hint('hugetext'), EXIT_USAGE)
    try:
        return args.func(args, Fs(root or '/'))
    except HugetextError as e:
        # bad usage or input found by the command: the same hint as
        # argparse's errors
        if e.code == EXIT_USAGE:
            e.msg += usage_hint('hugetext ' + args.command)
        raise


def run():
    try:
        rc = main()
    except HugetextError as e:
        print('hugetext: %s' % e.msg, file=sys.stderr)
        rc = e.code
    except KeyboardInterrupt:
        print('hugetext: interrupted', file=sys.stderr)
        rc = 130
    except BrokenPipeError:
        # Output piped into e.g. head: stay quiet.
        try:
            sys.stdout = open(os.devnull, 'w')
        except OSError:
            pass
        rc = EXIT_OK
    except OSError as e:
        where = ' ' + e.filename if getattr(e, 'filename', None) else ''
        print('hugetext:%s %s' % (where + ':' if where else '',
                                  e.strerror or e), file=sys.stderr)
        rc = EXIT_ERROR
    sys.exit(rc)


if __name__ == '__main__':
    run()
