# SPDX-License-Identifier: GPL-2.0
"""The I/O layer: every access to /proc and /sys goes through Fs, so that
tests can point the tool at a saved tree (--root DIR, HUGETEXT_ROOT=DIR);
formatting helpers."""

import json
import os
import re

from .common import (
    EXEC_FILE_ENABLED, EXIT_UNSUPPORTED, HUGETEXT_ENABLED, HugetextError,
    PMD_SIZE_FILE, VERSION)


# I/O layer: every access to /proc and /sys goes through here.
# --------------------------------------------------------------------------

class Fs:
    def __init__(self, root):
        self.root = root or '/'

    def path(self, p):
        return os.path.join(self.root, p.lstrip('/'))

    def exists(self, p):
        return os.path.exists(self.path(p))

    def read(self, p):
        with open(self.path(p), 'r', errors='replace') as f:
            return f.read()

    def read_bytes(self, p):
        with open(self.path(p), 'rb') as f:
            return f.read()

    def read_opt(self, p):
        """Stripped contents of p, or None if it cannot be read."""
        try:
            return self.read(p).strip()
        except OSError:
            return None

    def read_int(self, p):
        v = self.read_opt(p)
        if v is None:
            return None
        try:
            return int(v.split()[0])
        except (ValueError, IndexError):
            return None

    def write(self, p, value, append=False):
        # No O_CREAT: writing a knob that does not exist must fail, just as
        # it does in sysfs.  O_TRUNC and O_APPEND are ignored by sysfs,
        # procfs and debugfs; O_APPEND keeps every command written to
        # split_huge_pages in a test tree.
        flags = os.O_WRONLY | (os.O_APPEND if append else os.O_TRUNC)
        fd = os.open(self.path(p), flags)
        try:
            os.write(fd, str(value).encode())
        finally:
            os.close(fd)

    def listdir(self, p):
        return os.listdir(self.path(p))

    @property
    def live(self):
        """Whether this is the running system's /proc and /sys (no --root
        elsewhere): then the tool's own process is in /proc."""
        return os.path.realpath(self.root) == '/'


def pmd_size(fs):
    v = fs.read_int(PMD_SIZE_FILE)
    if not v or v <= 0:
        raise HugetextError('cannot read PMD size from %s '
                            '(kernel without transparent huge pages?)'
                            % PMD_SIZE_FILE)
    return v


def supported(fs):
    """A kernel with either series: hugetext_enabled (6.12), or the 7.3
    series' exec_file_enabled."""
    return fs.exists(HUGETEXT_ENABLED) or fs.exists(EXEC_FILE_ENABLED)


def require_supported(fs):
    if not supported(fs):
        raise HugetextError('this kernel has no hugetext support (no %s)'
                            % HUGETEXT_ENABLED, EXIT_UNSUPPORTED)


def human(n):
    """Bytes in binary units: 0, 4K, 1.5M, 20M, 1.2G."""
    if n is None:
        return '-'
    for unit, shift in (('G', 30), ('M', 20), ('K', 10)):
        if n >= 1 << shift:
            v = n / (1 << shift)
            if v >= 100 or v == int(v):
                return '%d%s' % (round(v), unit)
            return '%.1f%s' % (v, unit)
    return '%dB' % n if n else '0'


def pmd_name(pmd):
    """'2 MB' for 2097152; used in messages instead of a hard-coded size."""
    if pmd % (1 << 20) == 0:
        return '%d MB' % (pmd >> 20)
    if pmd % (1 << 10) == 0:
        return '%d KB' % (pmd >> 10)
    return '%d bytes' % pmd


def print_json(obj, one_line=False):
    if one_line:
        print(json.dumps(obj, sort_keys=True), flush=True)
    else:
        print(json.dumps(obj, indent=2, sort_keys=True))


def emit_json(fs, obj, one_line=False):
    """Every JSON output carries supported (the kernel has hugetext) and
    version (of this tool)."""
    obj.setdefault('supported', supported(fs))
    obj.setdefault('version', VERSION)
    print_json(obj, one_line)


def bracketed(s):
    """'always [madvise] never' -> 'madvise'."""
    if s is None:
        return None
    m = re.search(r'\[([^\]]+)\]', s)
    return m.group(1) if m else s


ROOT_WRITE_REFUSED = ('refused although running as root: a read-only /sys '
                      'or /proc, as in a container, or a security module')


def denied(fs, need='must be root', as_root=ROOT_WRITE_REFUSED):
    """Why a read or write was refused (EACCES, EPERM, EROFS), in words:
    @need where the tool does not run as root on the live system, else
    @as_root: why the kernel refused root too."""
    return as_root if fs.live and os.geteuid() == 0 else need


def bounded_int(lo, hi, what):
    """An argparse type: a decimal integer lo..hi (@what: its unit and
    what the bound is, for the message)."""
    def parse(text):
        v = parse_uint(text)
        if v is None or not lo <= v <= hi:
            import argparse
            raise argparse.ArgumentTypeError(
                '%s is not a whole number of %s from %d to %d'
                % (printable(text), what, lo, hi))
        return v
    return parse


def printable(s):
    """s for a line of text: control characters (a newline in a process's
    name, an escape sequence) written as Python escapes, \\n, \\x1b."""
    return ''.join(c if c.isprintable() else repr(c)[1:-1] for c in s)


def parse_uint(text):
    """Strict decimal parser: rejects '', '-1', '1x', ' 1', '+1', '1_0'."""
    if not isinstance(text, str) or not re.fullmatch(r'[0-9]+', text):
        return None
    if len(text.lstrip('0')) > 40:      # out of every range, and of int()'s
        return 10 ** 40
    return int(text)


def pids(fs):
    return sorted(int(d) for d in fs.listdir('/proc') if d.isdigit())


def khugepaged_running(fs):
    return any(read_comm(fs, pid) == 'khugepaged' for pid in pids(fs))


def read_comm(fs, pid):
    """/proc/PID/comm without the newline the kernel adds (a name may hold
    blanks and newlines of its own); None where it cannot be read."""
    try:
        text = fs.read('/proc/%d/comm' % pid)
    except OSError:
        return None
    return text[:-1] if text.endswith('\n') else text


def vmstat_counters(fs):
    out = {}
    text = fs.read_opt('/proc/vmstat') or ''
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 2:
            continue
        name, val = parts
        if name.startswith(('hugetext_', 'thp_exec_', 'thp_file_',
                            'thp_collapse_')):
            try:
                out[name] = int(val)
            except ValueError:
                continue
    return out
