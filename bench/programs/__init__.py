# SPDX-License-Identifier: GPL-2.0
"""The programs of make bench: one directory each, bench/programs/NAME/.

A directory is the whole of a program (or of a few that share a binary,
as MariaDB's two client counts do); adding a program is adding one:

  program.py   what it is and how it runs:
                 ORDER     where its programs come in the guest's runs and
                           the reports (ascending; ties by directory name)
                 PACKAGES  the Debian packages it needs: installed on this
                           machine by scripts/deps.sh, fetched for another
                           arch by scripts/fetch-userland.sh
                 PROGRAMS  [{'name', 'target', 'cap', 'arches', 'title',
                           'run'}]: its short name (htbench=,
                           HUGETEXT_BENCH_PROGRAMS=, the reports); the file
                           whose executable mappings are measured (its
                           name, the end of the mapped path; None: the
                           process's anonymous executable memory, a JIT's
                           code); the seconds of guest time it may run
                           before it is stopped (a hang); the arches of
                           scripts/arches.list whose rootfs has it (None:
                           all); its title in the report and plots; and
                           run(), called in the guest, which returns its
                           command: {'what', 'cmd'} and optionally
                           'stdin', 'env', 'copy' (a tree copied fresh
                           before each run), 'user' and 'client' (see
                           bench/guest/bench)
  install.sh   how it gets into an arch's rootfs: sourced, in a subshell,
               by scripts/mkrootfs.sh (its variables and helpers: root, H,
               cross, CROSS, libdir, top, out, copy_with_libs, and dir,
               this directory) for each arch whose rootfs has one of its
               programs
  other files  its inputs and helpers, which install.sh installs

The guest's bench (bench/guest/bench) and scripts/mkrootfs.sh install this
package as /opt/hugetext/programs; the tests use what the programs
install too (cc1, gdb, the JVM, node).  Standard library only."""

import importlib.util
import os
import re
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
# the guest's directory of the bench and of the programs' installed files
GUEST = '/opt/hugetext'
NAME = re.compile(r'^[a-z][a-z0-9_]*$')


class TableError(Exception):
    pass


def read(root=HERE):
    """[{'name', 'target' (None: anonymous code), 'cap', 'arches' (None:
    all), 'title', 'run', 'dir', 'packages'}], in ORDER (ties by directory
    name).  TableError, naming the directory or its program.py, on a
    malformed entry."""
    entries = []
    for d in sorted(os.listdir(root)):
        where = os.path.join(root, d, 'program.py')
        if not os.path.isfile(where):
            continue
        if not NAME.match(d):
            raise TableError('%s/%s: a program directory is named '
                             '[a-z][a-z0-9_]*' % (root, d))
        spec = importlib.util.spec_from_file_location('bench_program_' + d,
                                                      where)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        order = getattr(mod, 'ORDER', None)
        pkgs = getattr(mod, 'PACKAGES', None)
        defs = getattr(mod, 'PROGRAMS', None)
        if (not isinstance(order, int) or not isinstance(pkgs, list)
                or not all(isinstance(p, str) and p for p in pkgs)
                or not isinstance(defs, list) or not defs):
            raise TableError('%s: want ORDER (an int), PACKAGES (a list of '
                             'Debian package names) and PROGRAMS (a '
                             'non-empty list)' % where)
        if not os.path.isfile(os.path.join(root, d, 'install.sh')):
            raise TableError('%s: no install.sh beside it' % where)
        entries.append((order, d, where, pkgs, defs))
    progs = []
    for _, d, where, pkgs, defs in sorted(entries, key=lambda e: e[:2]):
        for p in defs:
            arches = p.get('arches') if isinstance(p, dict) else None
            if (not isinstance(p, dict)
                    or set(p) != {'name', 'target', 'cap', 'arches', 'title',
                                  'run'}
                    or not isinstance(p['name'], str)
                    or not NAME.match(p['name'])
                    or p['name'] in (q['name'] for q in progs)
                    or not (p['target'] is None
                            or (isinstance(p['target'], str) and p['target']
                                and '/' not in p['target']))
                    or not isinstance(p['cap'], int) or p['cap'] <= 0
                    or not (arches is None or (
                        isinstance(arches, list) and arches
                        and all(isinstance(a, str) and NAME.match(a)
                                for a in arches)))
                    or not isinstance(p['title'], str) or not p['title']
                    or not callable(p['run'])):
                raise TableError(
                    '%s: program %r: want a new name, target (a file name '
                    'or None), cap (seconds), arches (None or names of '
                    'scripts/arches.list), title and run, nothing else'
                    % (where, p.get('name') if isinstance(p, dict) else p))
            progs.append(dict(p, dir=d, packages=list(pkgs)))
    return progs


def runs_on(prog, arch):
    """Has arch's rootfs the program (its arches)?"""
    return prog['arches'] is None or arch in prog['arches']


# --- helpers for the programs' run(), in the guest ---

def guest_file(name):
    """A file the programs' install.sh put in the guest's /opt/hugetext."""
    return os.path.join(GUEST, name)


def read_text(path, default=None):
    """PATH's text, or @default when it cannot be read."""
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def count_in(path, needle):
    """How often needle occurs in file path (0: no such file, as for
    programs another arch's rootfs does not have)."""
    return read_text(path, '').count(needle)


def text_section(path):
    """Address of the .text section of ELF64 little-endian file PATH (gdb
    reads a file's code from its sections, so not from the gaps between)."""
    with open(path, 'rb') as f:
        data = f.read()
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)

    def shdr(i):
        # name, type, flags, addr, offset, size
        return struct.unpack_from('<IIQQQQ', data, shoff + i * shentsize)
    strtab = shdr(shstrndx)[4]
    for i in range(shnum):
        h = shdr(i)
        name = data[strtab + h[0]:data.index(b'\0', strtab + h[0])]
        if name == b'.text':
            return h[3]
    raise ValueError('%s: no .text section' % path)


def text_mb(path):
    """MB (rounded) of the executable PT_LOAD segments of ELF file path (the
    hugetext tool's reader, whose package the guest has on its path), or
    '?' when it cannot be read."""
    from hugetext import elf
    try:
        phdrs = elf.read_elf(path)[2]
    except (ValueError, elf.NotRegularFile):
        return '?'
    size = sum(p['filesz'] for p in phdrs if p['type'] == 1 and p['flags'] & 1)
    return '%d' % round(size / (1 << 20))
