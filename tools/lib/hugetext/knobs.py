# SPDX-License-Identifier: GPL-2.0
"""The knob table (knobs.list, shipped in this package): every hugetext
knob's file, range, default and bad inputs, parsed once; what the
values mean."""

import importlib.resources
import json
import os
import re
import sys

from .common import ENABLED_MEANING, THP_DIR


# The knob table: every hugetext knob's file, name, range, default and bad
# inputs, the file knobs.list of this package (the one place; installed
# inside the tool's zipapp by tools/mkzipapp)
KNOB_TABLE_FILE = 'knobs.list'

# what each knob's values mean, and what a kernel without it does
KNOB_DOC = {
    'pad_rodata': '0: padding covers only bytes no segment maps (linker '
    'padding); 1: also read-only segments, which become executable '
    '(security trade-off)',
}
KNOB_ABSENT = {
    'pad_rodata': 'which predates it: tail padding only, and that may cover '
    'read-only segments',
}


class Knob:
    """A hugetext sysfs tunable, a line of the knob table: the name used on
    the command line, path, range, default, storm values, bad inputs."""

    def __init__(self, name, path, lo, hi, default, storm=(), bad=()):
        self.name = name
        self.path = path
        self.lo = lo
        self.hi = hi
        self.default = default
        self.storm = list(storm)
        self.bad = list(bad)
        self.describe = KNOB_DESCRIBE.get(name, str)
        self.doc = KNOB_DOC.get(name)        # what the values mean, for set -h
        self.absent = KNOB_ABSENT.get(name)  # what a kernel without it does

    @property
    def filename(self):
        return os.path.basename(self.path)


def _describe_enabled(v):
    return ENABLED_MEANING.get(v, 'unknown mode')


def _describe_pad(v):
    if v == 0:
        return 'off'
    return 'pad text up to %d bytes to reach a PMD boundary' % v


def _describe_pad_rodata(v):
    if v == 0:
        return 'padding covers only bytes no segment maps (linker padding)'
    if v == 1:
        return ('padding also covers read-only segments, which become '
                'executable (security trade-off)')
    return 'unknown value'


def _describe_max_nr(v):
    if v == 0:
        return 'no cap'
    return ('at most %d PMD-mapped code regions (file text and JIT code) per '
            'process, the hottest' % v)


def _describe_sample(v):
    return 'the cap samples which text is hot every %d ms' % v


KNOB_DESCRIBE = {
    'enabled': _describe_enabled,
    'pad_threshold': _describe_pad,
    'pad_rodata': _describe_pad_rodata,
    'max_nr_hugetext': _describe_max_nr,
    'sample_millisecs': _describe_sample,
}

KNOB_BAD_VALUE = re.compile(r'"((?:[^"\\\n]|\\.)*)"(?:\*([0-9]+))?(?:\s+|$)')
KNOB_ESCAPES = {'n': '\n', 't': '\t', '\\': '\\', '"': '"'}


def parse_knob_value(lit, where):
    """The string a C string literal of the table stands for."""
    out, chars = [], iter(lit)
    for c in chars:
        if c == '\\':
            e = next(chars)
            if e not in KNOB_ESCAPES:
                raise ValueError('%s: unknown escape \\%s' % (where, e))
            c = KNOB_ESCAPES[e]
        out.append(c)
    return ''.join(out)


def parse_knob_table(text, source=KNOB_TABLE_FILE):
    """The knob table's lines as Knob objects, in order.  ValueError, with
    FILE:LINE, on a malformed line."""
    knobs = []
    for n, line in enumerate(text.splitlines(), 1):
        where = '%s:%d' % (source, n)
        if not line.strip() or line.lstrip().startswith('#'):
            continue
        f = line.split(None, 5)
        if len(f) < 5:
            raise ValueError('%s: want knob, name, range, default, storm, '
                             'bad values' % where)
        path, name, rng, default, storm = f[:5]
        m = re.fullmatch(r'([0-9]+)\.\.([0-9]+)', rng)
        if not m or not re.fullmatch(r'[0-9]+', default):
            raise ValueError('%s: range MIN..MAX and default are decimal'
                             % where)
        lo, hi, default = int(m.group(1)), int(m.group(2)), int(default)
        storm = [] if storm == '-' else storm.split(',')
        if not lo <= default <= hi or not all(
                re.fullmatch(r'[0-9]+', v) and lo <= int(v) <= hi
                for v in storm):
            raise ValueError('%s: default and storm values must be in %s'
                             % (where, rng))
        bad, rest = [], f[5] if len(f) > 5 else ''
        while rest:
            m = KNOB_BAD_VALUE.match(rest)
            if not m:
                raise ValueError('%s: bad values are "C strings" or "X"*N: '
                                 '%.20s' % (where, rest))
            bad.append(parse_knob_value(m.group(1), where) *
                       int(m.group(2) or 1))
            rest = rest[m.end():]
        if path.startswith('/') or name in (k.name for k in knobs):
            raise ValueError('%s: knob %s: a relative path and a new name'
                             % (where, name))
        knobs.append(Knob(name, THP_DIR + '/' + path, lo, hi, default, storm,
                          bad))
    if not knobs:
        raise ValueError('%s: no knobs' % source)
    return knobs


def knob_table_text():
    """The knob table's text, as shipped with the package (a file beside
    this module, or a member of the zipapp)."""
    return importlib.resources.files(__package__).joinpath(
        KNOB_TABLE_FILE).read_text()


def load_knobs():
    source = '%s (package %s)' % (KNOB_TABLE_FILE, __package__)
    try:
        text = knob_table_text()
    except OSError as e:
        sys.exit('hugetext: cannot read the knob table %s: %s'
                 % (source, e.strerror))
    try:
        return parse_knob_table(text, source)
    except ValueError as e:
        sys.exit('hugetext: %s' % e)


KNOBS = load_knobs()
KNOB_BY_NAME = {k.name: k for k in KNOBS}

KHUGEPAGED_KNOBS = ['pages_to_scan', 'scan_sleep_millisecs', 'full_scans',
                    'pages_collapsed', 'max_ptes_none']


# --------------------------------------------------------------------------
# "hugetext knobs": the table for people, machines, shell and C.  The one
# parser of knobs.list: the selftests take their C header from here
# (--format=c) and the guest's shell tests their knob lists (--format=sh).

KNOB_FORMATS = ('text', 'json', 'sh', 'c')


def knobs_set_argparser(parser):
    parser.add_argument('--format', choices=KNOB_FORMATS, default='text',
                        help='text (default), json, sh (variables for eval) '
                        'or c (the selftests\' hugetext_knobs.h)')
    parser.add_argument('--json', dest='format', action='store_const',
                        const='json', help='the same as --format=json')


def knob_file(k):
    """The knob's file relative to THP_DIR."""
    return k.path[len(THP_DIR) + 1:]


def c_string(s):
    """A C string literal for s, in pieces of about 64 characters."""
    esc = {'\n': '\\n', '\t': '\\t', '\\': '\\\\', '"': '\\"'}
    tokens = [esc.get(c, c) if ' ' <= c <= '~' or c in esc
              else '\\%03o' % ord(c) for c in s]
    pieces = ['']
    for t in tokens:
        if len(pieces[-1]) >= 64:
            pieces.append('')
        pieces[-1] += t
    return '\n\t\t'.join('"%s"' % p for p in pieces)


def format_knobs_c(knobs):
    out = ['/* Generated by "hugetext knobs --format=c" from the knob table '
           '(knobs.list): do not edit. */',
           '#ifndef HUGETEXT_KNOBS_H', '#define HUGETEXT_KNOBS_H', '',
           'struct knob_spec {',
           '\tconst char *file;\t/* relative to THP_DIR */',
           '\tlong min, max, def;',
           '\tint nbad;',
           '\tconst char *const *bad;',
           '};', '']
    for i, k in enumerate(knobs):
        out.append('static const char *const knob_bad_%d[] = {\t/* %s */'
                   % (i, k.name))
        out += ['\t%s,' % c_string(b) for b in k.bad]
        out += ['};', '']
    out.append('static const struct knob_spec knob_specs[] = {')
    for i, k in enumerate(knobs):
        out.append('\t{ "%s", %d, %d, %d, %d, knob_bad_%d },'
                   % (knob_file(k), k.lo, k.hi, k.default, len(k.bad), i))
    out += ['};', '#define NR_KNOB_SPECS %d' % len(knobs), '', '#endif']
    return '\n'.join(out) + '\n'


def format_knobs_sh(knobs):
    """Shell assignments: HUGETEXT_KNOB_FILES (every knob's file, relative
    to THP_DIR) and HUGETEXT_KNOB_STORM (FILE=V1,V2,... for each knob with
    storm values)."""
    files = ' '.join(knob_file(k) for k in knobs)
    storm = ' '.join('%s=%s' % (knob_file(k), ','.join(k.storm))
                     for k in knobs if k.storm)
    return "HUGETEXT_KNOB_FILES='%s'\nHUGETEXT_KNOB_STORM='%s'\n" % (files,
                                                                      storm)


def knobs_main(args, fs):
    if args.format == 'c':
        sys.stdout.write(format_knobs_c(KNOBS))
    elif args.format == 'sh':
        sys.stdout.write(format_knobs_sh(KNOBS))
    elif args.format == 'json':
        print(json.dumps([{'name': k.name, 'file': knob_file(k),
                           'path': k.path, 'min': k.lo, 'max': k.hi,
                           'default': k.default, 'storm': k.storm,
                           'bad': k.bad} for k in KNOBS], indent=2))
    else:
        for k in KNOBS:
            print('%-18s %-38s %s..%s (default %s)' % (
                k.name, knob_file(k), k.lo, k.hi, k.default))
    return 0
