# SPDX-License-Identifier: GPL-2.0
"""The "hugetext status" command and the knob writers: "enable", "disable",
"set"."""

import errno

from .common import (
    ENABLED_NAMES, EXIT_OK, EXIT_UNSUPPORTED, EXIT_USAGE, HugetextError,
    KHP_DIR, PMD_SIZE_FILE, THP_DIR, VERSION)
from .knobs import (
    KHUGEPAGED_KNOBS, KNOBS, KNOB_ALIASES, KNOB_BY_NAME, knob_label,
    knob_meaning, knob_writes, read_knob)
from .fs import (
    bracketed, denied, khugepaged_running, parse_uint, pmd_name, pmd_size,
    print_json,
    require_supported, supported, vmstat_counters)


def status_set_argparser(parser):
    parser.add_argument('--json', action='store_true',
                        help='print machine-readable JSON')


def collect_status(fs):
    st = {'supported': supported(fs), 'version': VERSION}
    knobs = {}
    pmd = fs.read_int(PMD_SIZE_FILE)
    for k in KNOBS:
        v = read_knob(fs, k)
        paths = k.paths(fs)
        knobs[k.name] = {
            'file': paths[0],
            # the 7.3 series' bit files (exec_file_enabled, ...) where
            # the kernel has them, else [file]
            'files': paths,
            'value': v,
            'present': fs.exists(paths[0]),
            'meaning': knob_meaning(fs, k, v),
            # null where it depends on a PMD size not known here
            'range': (list(k.range(pmd)) if pmd or not k.needs_pmd
                      else None),
            'default': k.default.at(pmd) if pmd or not k.default.pmd
            else None,
        }
    st['knobs'] = knobs
    st['pmd_size'] = pmd
    st['thp'] = {
        'enabled': bracketed(fs.read_opt(THP_DIR + '/enabled')),
        'defrag': bracketed(fs.read_opt(THP_DIR + '/defrag')),
        'hpage_pmd_size': st['pmd_size'],
    }
    kh = {'running': khugepaged_running(fs)}
    for name in KHUGEPAGED_KNOBS:
        kh[name] = fs.read_int(KHP_DIR + '/' + name)
    st['khugepaged'] = kh
    st['counters'] = vmstat_counters(fs)
    return st


def format_status(st):
    lines = []
    pmd = st['pmd_size']
    lines.append('hugetext: supported (kernel has the hugetext series)')
    lines.append('PMD size: %s' % ('%d (%s)' % (pmd, pmd_name(pmd))
                                  if pmd else 'unknown'))
    lines.append('')
    lines.append('hugetext knobs:')
    for name, k in st['knobs'].items():
        val = '-' if k['value'] is None else str(k['value'])
        meaning = k['meaning']
        if len(k['files']) > 1 and k['value'] is not None:
            # the 7.3 series' bit files, each "always" or "prctl"
            meaning += ' (%s)' % ', '.join(
                '%s %s' % (f.rsplit('/', 1)[1],
                           'always' if k['value'] >> i & 1 else 'prctl')
                for i, f in enumerate(k['files']))
        lines.append('  %-20s %-8s %s' % (name, val, meaning))
    lines.append('')
    lines.append('transparent huge pages:')
    for name in ('enabled', 'defrag'):
        lines.append('  %-20s %s' % (name, st['thp'][name] or '-'))
    lines.append('')
    lines.append('khugepaged:')
    kh = st['khugepaged']
    lines.append('  %-20s %s' % ('running', 'yes' if kh['running'] else 'no'))
    for name in KHUGEPAGED_KNOBS:
        v = kh[name]
        lines.append('  %-20s %s' % (name, '-' if v is None else v))
    lines.append('')
    lines.append('counters (/proc/vmstat):')
    if not st['counters']:
        lines.append('  (none)')
    width = max([len(n) for n in st['counters']] + [18])
    for name in sorted(st['counters'],
                       key=lambda n: (not n.startswith(('hugetext_',
                                                        'thp_exec_')), n)):
        lines.append('  %-*s %d' % (width, name, st['counters'][name]))
    return '\n'.join(lines)


def status_main(args, fs):
    st = collect_status(fs)
    if not st['supported']:
        if args.json:
            print_json(st)
        require_supported(fs)
    if args.json:
        print_json(st)
    else:
        print(format_status(st))
    return EXIT_OK


# --------------------------------------------------------------------------
# enable / disable / set
# --------------------------------------------------------------------------

def write_knob(fs, knob, value, bit=None):
    """Validate value, write it, read it back, print 'file: old -> new';
    @bit: of a knob that is a file a bit (the 7.3 series' enabled), write
    that bit's file alone."""
    v = parse_uint(value)
    shown = value if len(value) <= 40 else '%s... (%d characters)' % (
        value[:20], len(value))
    # a range from the PMD size needs it (an error where it is unknown)
    pmd = pmd_size(fs) if knob.needs_pmd else None
    if v is None:
        raise HugetextError('invalid value for %s: %r (expected a decimal '
                            'integer %s)' % (knob.name, shown,
                                             knob.range_text(pmd)),
                            EXIT_USAGE)
    lo, hi = knob.range(pmd)
    if not lo <= v <= hi:
        raise HugetextError('value for %s out of range: %s (allowed %s)'
                            % (knob.name, shown, knob.range_text(pmd)),
                            EXIT_USAGE)
    require_supported(fs)
    writes = knob_writes(fs, knob, v)
    if bit is not None and len(writes) > 1:
        writes = writes[bit:bit + 1]
    if not fs.exists(writes[0][0]):
        raise HugetextError('this kernel does not provide %s (no %s)'
                            % (knob.name, writes[0][0]), EXIT_UNSUPPORTED)
    for path, val in writes:
        write_one(fs, path, val)
    return EXIT_OK


def write_one(fs, path, val):
    """Write val to the knob file path, read it back, print 'file: old ->
    new'."""
    old = fs.read_opt(path)
    try:
        fs.write(path, val)
    except OSError as e:
        if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise HugetextError('cannot write %s: %s (%s)'
                                % (path, e.strerror, denied(fs)))
        if e.errno == errno.EOPNOTSUPP:
            pmd = fs.read_int(PMD_SIZE_FILE)
            raise HugetextError(
                'kernel rejected %s for %s: %s (it keeps hugetext off where '
                'a PMD is too large; PMD size here: %s)'
                % (val, path, e.strerror,
                   pmd_name(pmd) if pmd else 'unknown'), EXIT_UNSUPPORTED)
        raise HugetextError('kernel rejected %s for %s: %s'
                            % (val, path, e.strerror))
    new = fs.read_opt(path)
    print('%s: %s -> %s' % (path.rsplit('/', 1)[1], old, new))


def enable_set_argparser(parser):
    parser.add_argument('mode', metavar='MODE',
                        help='0..3, or file (1), anon (2), all (3)')


def enable_main(args, fs):
    mode = args.mode
    if mode in ENABLED_NAMES:
        mode = str(ENABLED_NAMES[mode])
    return write_knob(fs, KNOB_BY_NAME['enabled'], mode)


def disable_set_argparser(parser):
    pass


def disable_main(args, fs):
    return write_knob(fs, KNOB_BY_NAME['enabled'], '0')


BIT_WORDS = ('always', 'prctl')


def set_set_argparser(parser):
    parser.add_argument('knob', metavar='KNOB',
                        help='one of: %s; or the knob\'s file in either '
                        'series (%s); a bit file (%s) takes %s' % (
                            ', '.join(KNOB_BY_NAME),
                            ', '.join(n for n, (k, b) in KNOB_ALIASES.items()
                                      if n != k.name and '/' not in n),
                            ', '.join(n for n, (k, b) in KNOB_ALIASES.items()
                                      if b is not None and '/' not in n),
                            ' or '.join(BIT_WORDS)))
    parser.add_argument('value', metavar='VALUE',
                        help='decimal value; ranges: ' + ', '.join(
                            '%s %s%s' % (k.name, k.range_text(),
                                         ' (default %s%s)' % (
                                             k.default, '; ' + k.doc
                                             if k.doc else ''))
                            for k in KNOBS))


def set_main(args, fs):
    if args.knob not in KNOB_ALIASES:
        raise HugetextError('unknown knob %r (one of %s, or its file\'s name)'
                            % (args.knob, ', '.join(KNOB_BY_NAME)),
                            EXIT_USAGE)
    knob, bit = KNOB_ALIASES[args.knob]
    value = args.value
    if bit is not None:
        # one bit of the mode, as the 7.3 series' file of that bit has it
        if value not in BIT_WORDS:
            raise HugetextError('invalid value for %s: %r (expected %s)'
                                % (args.knob, value, ' or '.join(BIT_WORDS)),
                                EXIT_USAGE)
        require_supported(fs)
        mode = read_knob(fs, knob)
        if mode is None:
            raise HugetextError('cannot read %s' % knob_label(fs, knob))
        value = str(mode | 1 << bit if value == 'always'
                    else mode & ~(1 << bit))
    elif knob.name == 'enabled' and value in ENABLED_NAMES:
        value = str(ENABLED_NAMES[value])
    return write_knob(fs, knob, value, bit)
