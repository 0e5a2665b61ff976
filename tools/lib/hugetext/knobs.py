# SPDX-License-Identifier: GPL-2.0
"""The knob table (knobs.list, shipped in this package): every hugetext
knob's file, range, default and bad inputs, parsed once; what the
values mean."""

import importlib.resources
import os
import re
import sys

from .common import (
    ENABLED_MEANING, EXEC_FILE_ENABLED, PMD_SIZE_FILE, THP_DIR)
from .fs import emit_json, pmd_size, supported


# The knob table: every hugetext knob's file, name, range, default and bad
# inputs, the file knobs.list of this package (the one place; installed
# inside the tool's zipapp by tools/mkzipapp)
KNOB_TABLE_FILE = 'knobs.list'
# the counters the two series name differently (6.12 name, 7.3 name)
COUNTER_TABLE_FILE = 'counters.list'

# what each knob's values mean, and what a kernel without it does
KNOB_DOC = {
    'pad_rodata': '0: padding covers only bytes no segment maps (linker '
    'padding); 1: also read-only segments, which become executable '
    '(security trade-off)',
}
# (the knob a kernel that lacks this one has, what it does then)
KNOB_ABSENT = {
    'pad_rodata': ('pad_threshold', 'which predates it: tail padding only, '
                   'and that may cover read-only segments'),
}


class KnobValue:
    """A number of the knob table: N, or PMD, PMD+N, PMD-N: the PMD size
    (hpage_pmd_size) plus N, known only on the machine the knob is on (2 MB
    on x86-64 and arm64 with 4K pages, 32 MB with 16K, 512 MB with 64K)."""

    SYNTAX = re.compile(r'(?:(PMD)([+-][0-9]+)?|([0-9]+))')
    # a PMD size for checking the table itself (default <= max ...)
    CHECK_PMD = 2 << 20

    def __init__(self, pmd, n):
        self.pmd = pmd      # True: the PMD size plus n
        self.n = n

    @classmethod
    def parse(cls, text):
        m = cls.SYNTAX.fullmatch(text)
        if not m:
            return None
        if m.group(1):
            return cls(True, int(m.group(2) or 0))
        return cls(False, int(m.group(3)))

    def at(self, pmd):
        """The value on a machine whose PMD size is @pmd (None: unknown,
        then a ValueError for a PMD-relative value)."""
        if not self.pmd:
            return self.n
        if not pmd:
            raise ValueError('%s depends on the PMD size' % self)
        return pmd + self.n

    def human(self):
        """For people: 5, PMD size, PMD size - 1."""
        if not self.pmd:
            return str(self.n)
        return 'PMD size' + (' %s %d' % ('+' if self.n > 0 else '-',
                                        abs(self.n)) if self.n else '')

    def __str__(self):
        if not self.pmd:
            return str(self.n)
        return 'PMD' + ('%+d' % self.n if self.n else '')


class Knob:
    """A hugetext sysfs tunable, a line of the knob table: the name used on
    the command line, path, range, default, storm values, bad inputs.  The
    numbers are KnobValues: range(pmd), storm_values(pmd) and
    bad_values(pmd) give them on a machine of that PMD size."""

    def __init__(self, name, path, lo, hi, default, storm=(), bad=(),
                 paths73=()):
        self.name = name
        self.path = path
        # the 7.3 series' file(s): one, or one per bit ("always"/"prctl")
        self.paths73 = list(paths73)
        self.lo = lo
        self.hi = hi
        self.default = default
        self.storm = list(storm)     # KnobValues
        self.bad = list(bad)         # (KnobValue or None, suffix string)
        self.describe = KNOB_DESCRIBE.get(name, str)
        self.doc = KNOB_DOC.get(name)        # what the values mean, for set -h
        # what a kernel without it that has the other knob does
        self.absent = KNOB_ABSENT.get(name)

    @property
    def filename(self):
        return os.path.basename(self.path)

    def paths(self, fs):
        """The knob's files in the running kernel: [path] in the 6.12
        series, the 7.3 series' file or bit files in a kernel of that
        series (it has exec_file_enabled), even where it lacks this knob,
        so that a message names the file it lacks; [path] otherwise."""
        if not fs.exists(self.path) and self.paths73 and \
                fs.exists(EXEC_FILE_ENABLED):
            return self.paths73
        return [self.path]

    @property
    def needs_pmd(self):
        """Whether a value of the table depends on the PMD size."""
        return any(v.pmd for v in [self.lo, self.hi, self.default] +
                   self.storm + [b[0] for b in self.bad if b[0]])

    def range(self, pmd):
        return self.lo.at(pmd), self.hi.at(pmd)

    def range_text(self, pmd=None):
        """MIN..MAX as numbers where they are known, else as the table
        says (0..PMD-1), both when they depend on the PMD size."""
        expr = '%s..%s' % (self.lo.human(), self.hi.human())
        if not (self.lo.pmd or self.hi.pmd):
            return expr
        if not pmd:
            return expr
        return '%d..%d (%s)' % (self.lo.at(pmd), self.hi.at(pmd), expr)

    def storm_values(self, pmd):
        return [str(v.at(pmd)) for v in self.storm]

    def bad_values(self, pmd):
        return [(str(v.at(pmd)) if v else '') + s for v, s in self.bad]


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

# a bad value: a C string, "X"*N (X N times), or a PMD-relative number
# written in decimal (PMD, PMD+N, PMD-N), a C string appended if one
# follows without a space (PMD+1"\n")
KNOB_BAD_VALUE = re.compile(r'(?:(PMD(?:[+-][0-9]+)?)(?:"((?:[^"\\\n]|\\.)*)")?'
                            r'|"((?:[^"\\\n]|\\.)*)"(?:\*([0-9]+))?)'
                            r'(?:\s+|$)')
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
        f = line.split(None, 6)
        if len(f) < 6:
            raise ValueError('%s: want knob, knob73, name, range, default, '
                             'storm, bad values' % where)
        path, path73, name, rng, default, storm = f[:6]
        paths73 = [] if path73 == '-' else path73.split(',')
        if any(not p or p.startswith('/') for p in paths73):
            raise ValueError('%s: knob73 is - or relative files, '
                             'comma-separated' % where)
        m = re.fullmatch(r'([^.]+)\.\.(.+)', rng)
        lo, hi = (KnobValue.parse(m.group(1)), KnobValue.parse(m.group(2))
                  ) if m else (None, None)
        default = KnobValue.parse(default)
        if not (lo and hi and default):
            raise ValueError('%s: range MIN..MAX and default are decimal, '
                             'or PMD, PMD+N, PMD-N' % where)
        storm = [] if storm == '-' else [KnobValue.parse(v)
                                         for v in storm.split(',')]
        pmd = KnobValue.CHECK_PMD
        if None in storm or not all(
                lo.at(pmd) <= v.at(pmd) <= hi.at(pmd)
                for v in [default] + storm):
            raise ValueError('%s: default and storm values must be in %s'
                             % (where, rng))
        bad, rest = [], f[6] if len(f) > 6 else ''
        while rest:
            m = KNOB_BAD_VALUE.match(rest)
            if not m:
                raise ValueError('%s: bad values are "C strings", "X"*N or '
                                 'PMD+N: %.20s' % (where, rest))
            if m.group(1):
                bad.append((KnobValue.parse(m.group(1)),
                            parse_knob_value(m.group(2) or '', where)))
            else:
                bad.append((None, parse_knob_value(m.group(3), where) *
                            int(m.group(4) or 1)))
            rest = rest[m.end():]
        if path.startswith('/') or name in (k.name for k in knobs):
            raise ValueError('%s: knob %s: a relative path and a new name'
                             % (where, name))
        knobs.append(Knob(name, THP_DIR + '/' + path, lo, hi, default, storm,
                          bad, [THP_DIR + '/' + p for p in paths73]))
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


def knob_aliases(knobs):
    """Every name "set" takes for a knob: {name: (knob, bit)}.  The tool's
    name, the knob's file in either series, relative to THP_DIR and alone
    (pad_threshold, hugetext_pad_threshold, exec_pad_threshold,
    khugepaged/max_exec_regions, max_exec_regions); bit None, except for
    a bit file of the 7.3 series (exec_file_enabled: 0, exec_anon_enabled:
    1), which sets that bit alone."""
    out = {}
    for k in knobs:
        files = [(k.path, None)] + [
            (p, i if len(k.paths73) > 1 else None)
            for i, p in enumerate(k.paths73)]
        out[k.name] = (k, None)
        for path, bit in files:
            rel = path[len(THP_DIR) + 1:]
            out.setdefault(rel, (k, bit))
            out.setdefault(os.path.basename(rel), (k, bit))
    return out


KNOB_ALIASES = knob_aliases(KNOBS)


def read_knob(fs, knob):
    """The knob's value in the running kernel, None where unreadable or
    absent: a bit-file knob (the 7.3 series' exec_file_enabled and
    exec_anon_enabled) reads as the number its bits make."""
    paths = knob.paths(fs)
    if len(paths) == 1:
        return fs.read_int(paths[0])
    v = 0
    for i, p in enumerate(paths):
        word = fs.read_opt(p)
        if word is None or word.strip() not in ('[always] prctl',
                                                'always [prctl]'):
            return None
        v |= (1 << i) if word.strip().startswith('[always]') else 0
    return v


def knob_meaning(fs, knob, v):
    """What value @v (read_knob()) of the knob means, or why there is
    none."""
    if v is not None:
        return knob.describe(v)
    if not supported(fs):
        return 'not provided: this kernel has no hugetext'
    if fs.exists(knob.paths(fs)[0]):
        return 'unreadable'
    other, what = knob.absent or (None, None)
    if other and read_knob(fs, KNOB_BY_NAME[other]) is not None:
        return 'not provided by this kernel, ' + what
    return 'not provided by this kernel'


def knob_writes(fs, knob, v):
    """What writing number @v to the knob in the running kernel writes:
    [(path, value)]; a bit-file knob's, each bit as "always"/"prctl"."""
    paths = knob.paths(fs)
    if len(paths) == 1:
        return [(paths[0], v)]
    return [(p, 'always' if int(v) >> i & 1 else 'prctl')
            for i, p in enumerate(paths)]


def write_knob_value(fs, knob, v):
    """Write number @v to the knob in the running kernel; OSError as the
    kernel refuses it."""
    for path, val in knob_writes(fs, knob, v):
        fs.write(path, val)


def knob_label(fs, knob):
    """The knob's file name(s) in the running kernel, for messages:
    hugetext_enabled, exec_file_enabled/exec_anon_enabled."""
    return '/'.join(os.path.basename(p) for p in knob.paths(fs))


def read_mode(fs):
    """The system's hugetext mode, 0..3 (bit 0 file text, bit 1 JIT
    code); None where unreadable."""
    return read_knob(fs, KNOB_BY_NAME['enabled'])


def mode_label(fs):
    return knob_label(fs, KNOB_BY_NAME['enabled'])


def parse_counter_table(text, source=COUNTER_TABLE_FILE):
    """counters.list as [(name, name73)], in order; ValueError, with
    FILE:LINE, on a malformed line."""
    pairs = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith('#'):
            continue
        f = line.split()
        if len(f) != 2 or not all(re.fullmatch(r'[a-z0-9_]+', x) for x in f):
            raise ValueError('%s:%d: want a counter\'s name and its 7.3 '
                             'name' % (source, n))
        pairs.append((f[0], f[1]))
    return pairs


def load_counters():
    source = '%s (package %s)' % (COUNTER_TABLE_FILE, __package__)
    try:
        text = importlib.resources.files(__package__).joinpath(
            COUNTER_TABLE_FILE).read_text()
        return parse_counter_table(text, source)
    except OSError as e:
        sys.exit('hugetext: cannot read the counter table %s: %s'
                 % (source, e.strerror))
    except ValueError as e:
        sys.exit('hugetext: %s' % e)


# (6.12 name, 7.3 name): for the selftests' header (--format=c)
COUNTER_PAIRS = load_counters()

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


def knob_file(k, path=None):
    """The knob's file (or @path) relative to THP_DIR."""
    return (path or k.path)[len(THP_DIR) + 1:]


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


def c_name(k):
    """The knob's macro in hugetext_knobs.h: KNOB_ and its name."""
    return 'KNOB_' + k.name.upper()


def c_opt_string(s):
    return c_string(s) if s is not None else 'NULL'


def c_num(v):
    return '{ %d, %d }' % (v.pmd, v.n)


def format_knobs_c(knobs, counters):
    """hugetext_knobs.h: every knob's file as a macro (KNOB_ENABLED ...),
    and, where HUGETEXT_KNOB_TABLE is defined (hugetext_util.c), the table:
    numbers as { pmd, n } (PMD-relative ones are worked out at run time,
    on the guest's PMD size)."""
    out = ['/* Generated by "hugetext knobs --format=c" from the knob table '
           '(knobs.list): do not edit. */',
           '#ifndef HUGETEXT_KNOBS_H', '#define HUGETEXT_KNOBS_H', '',
           '/* each knob\'s file, relative to THP_DIR */']
    out += ['#define %s "%s"' % (c_name(k), knob_file(k)) for k in knobs]
    out += ['#define NR_KNOB_SPECS %d' % len(knobs), '',
            '#ifdef HUGETEXT_KNOB_TABLE',
            '/* a number: pmd ? the PMD size + n : n */',
            'struct knob_num {', '\tint pmd;', '\tlong n;', '};',
            '/* a bad value: pmd ? the PMD size + n in decimal, then s : s */',
            'struct knob_bad {', '\tint pmd;', '\tlong n;',
            '\tconst char *s;', '};', '',
            'struct knob_spec {',
            '\tconst char *file;\t/* relative to THP_DIR */',
            '\t/* the 7.3 series\' file, or its bit files ("always"/"prctl")',
            '\t * comma-separated; NULL: none */',
            '\tconst char *file73;',
            '\tstruct knob_num min, max, def;',
            '\tint nbad;',
            '\tconst struct knob_bad *bad;',
            '};', '']
    for i, k in enumerate(knobs):
        out.append('static const struct knob_bad knob_bad_%d[] = {\t/* %s */'
                   % (i, k.name))
        for v, s in k.bad:
            out.append('\t{ %d, %d, %s },' % (1 if v else 0, v.n if v else 0,
                                              c_string(s)))
        out += ['};', '']
    out.append('static const struct knob_spec knob_specs[] = {')
    for i, k in enumerate(knobs):
        f73 = ','.join(knob_file(k, p) for p in k.paths73) or None
        out.append('\t{ %s, %s, %s, %s, %s, %d, knob_bad_%d },'
                   % (c_name(k), c_opt_string(f73), c_num(k.lo), c_num(k.hi),
                      c_num(k.default), len(k.bad), i))
    out += ['};', '',
            '/* the counters the 7.3 series names otherwise '
            '(counters.list) */',
            'static const char *const counter_names[][2] = {']
    out += ['\t{ "%s", "%s" },' % p for p in counters]
    out += ['};', '#define NR_COUNTER_NAMES %d' % len(counters),
            '#endif', '', '#endif']
    return '\n'.join(out) + '\n'


def format_knobs_sh(knobs, pmd, fs):
    """Shell assignments: HUGETEXT_KNOB_FILES (every knob's file in the
    running kernel, relative to THP_DIR) and HUGETEXT_KNOB_STORM
    (FILE=V1,V2,... for each knob with storm values, on this machine's PMD
    size; a bit file's: always,prctl)."""
    paths = [(k, k.paths(fs)) for k in knobs]
    files = ' '.join(knob_file(k, p) for k, ps in paths for p in ps)
    storm = ' '.join('%s=%s' % (knob_file(k, p), 'always,prctl' if len(ps) > 1
                                else ','.join(k.storm_values(pmd)))
                     for k, ps in paths if k.storm for p in ps)
    return "HUGETEXT_KNOB_FILES='%s'\nHUGETEXT_KNOB_STORM='%s'\n" % (files,
                                                                      storm)


def knobs_main(args, fs):
    if args.format == 'c':
        # numbers stay PMD-relative: the header is built on one machine
        # and run on another
        sys.stdout.write(format_knobs_c(KNOBS, COUNTER_PAIRS))
        return 0
    if args.format in ('sh', 'json') and any(k.needs_pmd for k in KNOBS):
        pmd = pmd_size(fs)      # an error where it is unknown
    else:
        pmd = fs.read_int(PMD_SIZE_FILE)
    if args.format == 'sh':
        sys.stdout.write(format_knobs_sh(KNOBS, pmd, fs))
    elif args.format == 'json':
        emit_json(fs, {'pmd_size': pmd, 'knobs': [
            {'name': k.name, 'file': knob_file(k), 'path': k.path,
             'files73': [knob_file(k, p) for p in k.paths73],
             'range': '%s..%s' % (k.lo, k.hi),
             'min': k.lo.at(pmd), 'max': k.hi.at(pmd),
             'default': k.default.at(pmd), 'storm': k.storm_values(pmd),
             'bad': k.bad_values(pmd)} for k in KNOBS]})
    else:
        for k in KNOBS:
            print('%-18s %-38s %s, default %s' % (
                k.name, knob_file(k), k.range_text(pmd), k.default))
    return 0
