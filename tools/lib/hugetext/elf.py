# SPDX-License-Identifier: GPL-2.0
"""The "hugetext check" command: whether an ELF file can be 2 MB-mapped,
its padding, the link flags that fix it."""

import argparse
import mmap
import os
import re
import stat
import struct
import sys

from .common import (
    EXIT_ERROR, EXIT_OK, EXIT_USAGE, HUGETEXT_ENABLED)
from .knobs import _describe_enabled
from .fs import emit_json, human, pmd_name, pmd_size, printable
from .smaps import aligned_range, aligned_regions, kernel_context


ET_NAMES = {0: 'NONE', 1: 'REL', 2: 'EXEC', 3: 'DYN', 4: 'CORE'}
PT_LOAD = 1
PT_INTERP = 3
PF_X = 1
PF_W = 2
# binfmt_elf refuses program header tables larger than this
PHDR_TABLE_MAX = 65536

FILE_KINDS = [(stat.S_ISDIR, 'directory'), (stat.S_ISCHR, 'character device'),
              (stat.S_ISBLK, 'block device'), (stat.S_ISFIFO, 'FIFO'),
              (stat.S_ISSOCK, 'socket')]


class NotRegularFile(Exception):
    """check refuses it (exit 2): reading a device or a FIFO may never end."""


def file_kind(mode):
    return next((name for test, name in FILE_KINDS if test(mode)),
                'not a regular file')


def parse_elf(read):
    """Return (e_type, bits, [phdr dicts]) or raise ValueError(reason).

    read(offset, n) returns at most n bytes at offset: only the ELF header
    and the program header table are read, never the whole file."""
    data = read(0, 64)
    if len(data) < 16 or data[:4] != b'\x7fELF':
        raise ValueError('not an ELF file')
    ei_class, ei_data = data[4], data[5]
    if ei_data == 1:
        end = '<'
    elif ei_data == 2:
        end = '>'
    else:
        raise ValueError('bad ELF data encoding %d' % ei_data)
    if ei_class == 2:
        ehdr, phdr = end + '16sHHIQQQIHHHHHH', end + 'IIQQQQQQ'
    elif ei_class == 1:
        ehdr, phdr = end + '16sHHIIIIIHHHHHH', end + 'IIIIIIII'
    else:
        raise ValueError('bad ELF class %d' % ei_class)
    if len(data) < struct.calcsize(ehdr):
        raise ValueError('truncated ELF header')
    h = struct.unpack_from(ehdr, data)
    e_type, e_phoff, e_phentsize, e_phnum = h[1], h[5], h[9], h[10]
    if e_phnum and e_phentsize < struct.calcsize(phdr):
        raise ValueError('bad program header size %d' % e_phentsize)
    if e_phnum * e_phentsize > PHDR_TABLE_MAX:
        raise ValueError('program header table of %d bytes (the kernel '
                         'refuses more than %d)' % (e_phnum * e_phentsize,
                                                    PHDR_TABLE_MAX))
    table = read(e_phoff, e_phnum * e_phentsize) if e_phnum else b''
    phdrs = []
    for i in range(e_phnum):
        off = i * e_phentsize
        if off + struct.calcsize(phdr) > len(table):
            raise ValueError('truncated program headers')
        p = struct.unpack_from(phdr, table, off)
        if ei_class == 2:
            p_type, p_flags, p_offset, p_vaddr, _, p_filesz, p_memsz, \
                p_align = p
        else:
            p_type, p_offset, p_vaddr, _, p_filesz, p_memsz, p_flags, \
                p_align = p
        phdrs.append({'type': p_type, 'flags': p_flags, 'offset': p_offset,
                      'vaddr': p_vaddr, 'filesz': p_filesz, 'memsz': p_memsz,
                      'align': p_align})
    return e_type, 64 if ei_class == 2 else 32, phdrs


def read_elf(path):
    """(e_type, bits, phdrs, file size) with bounded reads.  Refuses
    anything but a regular file before opening it (a FIFO would block, a
    device could be endless or have side effects)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(file_kind(st.st_mode))
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as e:
        raise ValueError(e.strerror or str(e))
    try:
        st = os.fstat(fd)       # it may have been replaced meanwhile
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(file_kind(st.st_mode))
        try:
            e_type, bits, phdrs = parse_elf(
                lambda off, n: os.pread(fd, n, off))
        except OSError as e:
            raise ValueError(e.strerror or str(e))
    finally:
        os.close(fd)
    return e_type, bits, phdrs, st.st_size


def page_start(x, page):
    return x - x % page


def page_align(x, page):
    return -(-x // page) * page


def fix_hint(pmd):
    return ('relink with -Wl,-z,max-page-size=%#x -Wl,-z,common-page-size=%#x,'
            ' or put ". = ALIGN(%#x);" before .text in the linker script'
            % (pmd, pmd, pmd))


def analyse_segment(e_type, ph, pmd, page, file_size=None):
    lo = ph['offset'] - ph['offset'] % page
    hi = ph['offset'] + ph['filesz']
    size = hi - lo
    # The mapping is page-granular: it ends at the page boundary after the
    # text (bytes of the file, as far as the file goes), so a text ending in
    # the last page before a PMD boundary still fills that region.
    map_hi = page_align(hi, page)
    if file_size is not None:
        map_hi = max(hi, min(map_hi, page_align(file_size, page)))
    delta = (ph['vaddr'] - ph['offset']) % pmd
    seg = {'offset': ph['offset'], 'vaddr': ph['vaddr'],
           'filesz': ph['filesz'], 'memsz': ph['memsz'],
           'align': ph['align'], 'text_size': size}
    if e_type == 2:
        congruent = delta == 0
        seg['congruent'] = congruent
        seg['reason'] = ('fixed address: p_vaddr %s p_offset mod PMD'
                         % ('==' if congruent else '!='))
    else:
        by_align = ph['align'] >= pmd and ph['align'] % pmd == 0
        congruent = by_align or delta == 0
        seg['congruent'] = congruent
        if by_align:
            seg['reason'] = ('p_align %#x >= PMD: every kernel maps it '
                             'PMD-aligned' % ph['align'])
        elif congruent:
            seg['reason'] = ('p_vaddr == p_offset mod PMD: a hugetext kernel '
                             'places it congruently (p_align %#x < PMD)'
                             % ph['align'])
        else:
            seg['reason'] = ('p_vaddr - p_offset = %#x mod PMD: no load '
                             'address makes it congruent' % delta)
    full = aligned_regions(lo, map_hi, pmd) * pmd
    seg['huge_possible'] = full if congruent else 0
    seg['huge_if_fixed'] = ((map_hi - lo) // pmd) * pmd
    # text on small pages: all of it, or the head before the first full
    # region and the tail after the last (none where the last region ends
    # past the text, in its last page)
    first, last = aligned_range(lo, map_hi, pmd)
    seg['head'] = first - lo if seg['huge_possible'] else 0
    seg['tail'] = max(0, hi - last) if seg['huge_possible'] else 0
    seg['small_pages'] = (seg['head'] + seg['tail'] if seg['huge_possible']
                          else size)
    advice = []
    if size < pmd:
        seg['verdict'] = 'too-small'
        advice.append('smaller than %s: no huge page possible'
                      % pmd_name(pmd))
    elif not congruent:
        seg['verdict'] = 'fix'
        advice.append('text cannot be congruent mod PMD; ' + fix_hint(pmd))
    elif seg['huge_possible'] < seg['huge_if_fixed']:
        seg['verdict'] = 'improvable'
        advice.append('text does not start on a PMD boundary, %s more could '
                      'be huge; %s' % (
                          human(seg['huge_if_fixed'] - seg['huge_possible']),
                          fix_hint(pmd)))
    else:
        seg['verdict'] = 'ok'
        if e_type != 2 and ph['align'] < pmd:
            advice.append('optional: link with -Wl,-z,max-page-size=%#x so '
                          'kernels without hugetext align it too' % pmd)
    seg['advice'] = advice
    return seg


def text_phdr(phdrs):
    """The text segment as binfmt_elf picks it: the largest executable
    PT_LOAD (the first of equals)."""
    text = None
    for ph in phdrs:
        if ph['type'] == PT_LOAD and ph['flags'] & PF_X and \
                (text is None or ph['filesz'] > text['filesz']):
            text = ph
    return text


PAD_RODATA_NOTE = 'only linker padding is covered unless hugetext_pad_rodata=1'


def seg_flags(p):
    return ''.join(c for c, bit in (('R', 4), ('W', PF_W), ('E', PF_X))
                   if p['flags'] & bit) or '-'


def pad_prerequisite(e_type, bits, phdrs, congruent):
    """None if the kernel considers padding this file's text at all (at
    either end), else why not."""
    text = text_phdr(phdrs)
    if text is None:
        return 'no executable segment'
    if bits != 64:
        return 'only 64-bit programs are padded'
    if e_type == 3 and not any(p['type'] == PT_INTERP for p in phdrs):
        return ('an ET_DYN without PT_INTERP (a shared library) is mapped '
                'by ld.so: only programs are padded, at exec')
    if text['filesz'] != text['memsz']:
        return 'the text segment has a bss part (p_memsz != p_filesz)'
    if not congruent:
        return 'the text is not congruent'
    return None


def _refused(reason, by_segment=False):
    return {'ok': False, 'needed': True, 'reason': reason,
            'by_segment': by_segment}


def _cover_refusal(covered, rodata, delta, extra):
    """Why padding may not cover the PT_LOADs covered ([(index, phdr)]),
    or None.  extra(phdr) is the end's own last test: (refuses, why)."""
    names = ['%d (%s, p_vaddr %#x)' % (i, seg_flags(p), p['vaddr'])
             for i, p in covered]
    if covered and not rodata:
        # every one it would cover: the one that would become executable
        # is not always the first
        return 'would cover segment%s %s; %s' % (
            's' if len(names) > 1 else '', _and(names), PAD_RODATA_NOTE)
    for (i, p), name in zip(covered, ['segment ' + n for n in names]):
        if p['flags'] & PF_W:
            return 'would cover %s, a writable segment' % name
        if p['memsz'] != p['filesz']:
            return 'would cover %s, a segment with a bss part' % name
        if p['vaddr'] - p['offset'] != delta:
            return ('would cover %s, at whose addresses the program maps '
                    'other bytes of the file (its p_vaddr - p_offset '
                    "differs from the text's)" % name)
        refuses, why = extra(p)
        if refuses:
            return 'would cover %s, %s' % (name, why)
    return None


def pad_tail(phdrs, text, size, pmd, page, rodata):
    """The kernel's tail padding of text with hugetext_pad_rodata = rodata,
    whatever the threshold: a dict with ok (it pads), needed, reason,
    by_segment (refused for what it would cover), bytes, partial (text
    bytes in the last region), range (ELF addresses) and covers (indexes
    of the other PT_LOADs it covers)."""
    if text['offset'] + text['filesz'] > size:
        return _refused('the text segment ends past the end of the file')
    start = page_start(text['offset'], page)
    end = page_align(text['offset'] + text['filesz'], page)
    tail = end % pmd
    if not tail:
        return {'ok': False, 'needed': False, 'by_segment': False,
                'reason': 'the text ends on a %s boundary' % pmd_name(pmd)}
    if end - tail < start:
        return _refused('the text lies inside one %s region of the file, '
                        'which padding cannot complete' % pmd_name(pmd))
    pad = pmd - tail
    if end + pad > size:
        return _refused('the padding would reach past the end of the file')
    delta = text['vaddr'] - text['offset']
    lo, hi = end + delta, end + delta + pad
    loads = [(i, p) for i, p in enumerate(phdrs) if p['type'] == PT_LOAD]
    img_end = max(page_align(p['vaddr'] + p['memsz'], page)
                  for _, p in loads)
    if hi > img_end:
        return _refused('the padding would reach past the end of the image '
                        '(%#x)' % img_end)
    covered = [(i, p) for i, p in loads if p is not text and
               page_start(p['vaddr'], page) < hi and
               page_align(p['vaddr'] + p['memsz'], page) > lo]
    why = _cover_refusal(covered, rodata, delta, lambda p: (
        page_start(p['vaddr'], page) < lo, 'which starts below the padding '
        '(in the last page of the text)'))
    if why:
        return _refused(why, True)
    return {'ok': True, 'needed': True, 'by_segment': False, 'bytes': pad,
            'partial': tail, 'range': [lo, hi],
            'covers': [i for i, _ in covered]}


def pad_head(phdrs, text, size, pmd, page, rodata):
    """The kernel's head padding of text, as pad_tail(): the mapping starts
    at the PMD boundary below the text, with the bytes before it in the
    file."""
    start = page_start(text['offset'], page)
    end = page_align(text['offset'] + text['filesz'], page)
    head = start % pmd
    if not head:
        return {'ok': False, 'needed': False, 'by_segment': False,
                'reason': 'the text starts on a %s boundary'
                % pmd_name(pmd)}
    if -(-start // pmd) * pmd > end:
        return _refused('the text lies inside one %s region of the file, '
                        'which padding cannot complete' % pmd_name(pmd))
    if head > start:
        return _refused('the padding would start before the file')
    to = page_start(text['vaddr'], page)
    frm = to - head
    loads = [(i, p) for i, p in enumerate(phdrs) if p['type'] == PT_LOAD]
    if loads[0][1] is text:
        return _refused('the text is the first PT_LOAD: the kernel pads the '
                        'head only when another PT_LOAD precedes it')
    img_start = min(page_start(p['vaddr'], page)
                    for _, p in loads if p is not text)
    if frm < img_start:
        return _refused('the padding would reach below the start of the '
                        'image (%#x)' % img_start)
    delta = text['vaddr'] - text['offset']
    text_start = page_align(text['vaddr'], page)
    covered = [(i, p) for i, p in loads if p is not text and
               page_start(p['vaddr'], page) < to and
               page_align(p['vaddr'] + p['memsz'], page) > frm]
    why = _cover_refusal(covered, rodata, delta, lambda p: (
        page_align(p['vaddr'] + p['memsz'], page) > text_start,
        'which reaches into the text'))
    if why:
        return _refused(why, True)
    return {'ok': True, 'needed': True, 'by_segment': False, 'bytes': head,
            'partial': pmd - head, 'range': [frm, to],
            'covers': [i for i, _ in covered]}


def _and(items):
    return items[0] if len(items) == 1 else \
        ', '.join(items[:-1]) + ' and ' + items[-1]


def pad_end(kind, r0, r1, pmd, kern):
    """One end ('tail' or 'head') for check: r0, r1 are pad_tail() or
    pad_head() with hugetext_pad_rodata 0 and 1; kern the running
    kernel."""
    pname = pmd_name(pmd)
    e = {'possible': r1['ok'], 'needed': r1['needed'],
         'bytes': r1.get('bytes', 0), 'partial': r1.get('partial'),
         'max_threshold': r1.get('partial'), 'range': r1.get('range'),
         'covers': r1.get('covers', []),
         'needs_pad_rodata': r1['ok'] and not r0['ok'],
         'refused_for_segment': not r1['ok'] and r1['by_segment'],
         'applies_now': False}
    if not r1['ok']:
        e['reason'] = r1['reason']
        e['refused_without_pad_rodata'] = None
        e['now'] = ('nothing to pad' if not r1['needed'] else
                    'not padded by any kernel')
        return e
    lo, hi = r1['range']
    if kind == 'tail':
        what = ('the last %s region holds %#x bytes of text; the %#x bytes '
                'that follow it in the file complete it (addresses %#x-%#x)'
                % (pname, r1['partial'], r1['bytes'], lo, hi))
    else:
        what = ('the first %s region holds %#x bytes of text; the %#x bytes '
                'before it in the file complete it (addresses %#x-%#x)'
                % (pname, r1['partial'], r1['bytes'], lo, hi))
    if e['needs_pad_rodata']:
        e['refused_without_pad_rodata'] = r0['reason']
        e['reason'] = ('%s; it %s (with it, the covered bytes become '
                       'executable)' % (what, r0['reason']))
    else:
        e['refused_without_pad_rodata'] = None
        e['reason'] = '%s: linker padding, no segment maps it' % what
    # What stops this kernel (the knobs are read, nothing is written).
    why = []
    thr, rod = kern['pad_threshold'], kern['pad_rodata']
    if not kern['supported']:
        why.append('this kernel has no hugetext')
    else:
        if not (kern['enabled'] or 0) & 1:
            why.append('%s %s: file text off' % (kern['knob'],
                                                 kern['enabled']))
        if thr is None:
            why.append('this kernel has no hugetext_pad_threshold (it '
                       'predates padding)')
        elif not thr:
            why.append('pad_threshold is 0 (off)')
        elif r1['partial'] < thr:
            why.append('the %s %#x is below pad_threshold %d' % (
                'tail' if kind == 'tail' else 'text in the first region',
                r1['partial'], thr))
        if thr is not None and rod is None:
            if kind == 'head':
                why.append('this kernel predates head padding (it has no '
                           'hugetext_pad_rodata)')
        elif thr is not None and not rod and e['needs_pad_rodata']:
            why.append('it needs pad_rodata 1, this kernel has 0')
    old = kern['supported'] and thr is not None and rod is None
    if not why:
        e['applies_now'] = True
        e['now'] = ('padded on this kernel (pad_threshold %d, %s): +1 '
                    'region' % (thr, 'pad_rodata %d' % rod if not old else
                                'no pad_rodata: the kernel predates it, its '
                                'tail padding may cover read-only segments'))
        return e
    need = ['file text on', 'pad_threshold 1..%d' % r1['partial']]
    if e['needs_pad_rodata'] and not (old and kind == 'tail'):
        need.append('pad_rodata 1')
    where = 'on a kernel with head padding, ' if old and kind == 'head' \
        else ''
    e['now'] = ('not padded on this kernel: %s; %swith %s it would be '
                '(+1 region)' % ('; '.join(why), where, _and(need)))
    return e


def link_advice(pmd):
    return ('to pad without hugetext_pad_rodata=1, link with '
            '-Wl,-z,separate-code,-z,max-page-size=%#x: the text then starts '
            'on a %s boundary (file offset and address), so it has no head '
            'to pad, and the next segment at the next %s boundary after the '
            'text, so the tail region holds only linker padding'
            % (pmd, pmd_name(pmd), pmd_name(pmd)))


def analyse_padding(e_type, bits, phdrs, segs, size, pmd, page, kern):
    """Tail and head padding of the text segment by the kernel's rules,
    applied to the file, with hugetext_pad_rodata 0 and 1, and what the
    running kernel does."""
    text = text_phdr(phdrs)
    seg = next((s for s in segs if text and s['offset'] == text['offset']
                and s['vaddr'] == text['vaddr']), None)
    why = pad_prerequisite(e_type, bits, phdrs, bool(seg and
                                                     seg['congruent']))
    res = {}
    for kind, fn in (('tail', pad_tail), ('head', pad_head)):
        if why:
            r0 = r1 = _refused(why)
        else:
            r0, r1 = [fn(phdrs, text, size, pmd, page, rodata)
                      for rodata in (False, True)]
        res[kind] = pad_end(kind, r0, r1, pmd, kern)
    ends = [res['tail'], res['head']]
    res['possible'] = any(e['possible'] for e in ends)
    res['regions'] = sum(e['possible'] for e in ends)
    res['regions_without_pad_rodata'] = sum(
        e['possible'] and not e['needs_pad_rodata'] for e in ends)
    res['regions_now'] = sum(e['applies_now'] for e in ends)
    res['bytes'] = sum(e['bytes'] for e in ends if e['possible'])
    res['applies'] = res['regions_now'] > 0
    res['needs_pad_rodata'] = any(e['needs_pad_rodata'] for e in ends)
    res['reason'] = '; '.join('%s: %s' % (k, res[k]['reason'])
                              for k in ('tail', 'head'))
    res['now'] = '; '.join('%s: %s' % (k, res[k]['now'])
                           for k in ('tail', 'head'))
    res['link_advice'] = (link_advice(pmd) if any(
        e['needs_pad_rodata'] or e['refused_for_segment'] for e in ends)
        else None)
    return res


def check_file(path, pmd, page, kern):
    e_type, bits, phdrs, size = read_elf(path)
    res = {'file': path, 'class': 'ELF%d' % bits, 'size': size,
           'type': ET_NAMES.get(e_type, str(e_type)), 'segments': []}
    if e_type not in (2, 3):
        res['advice'] = ['not an executable or shared object']
        return res
    for ph in phdrs:
        if ph['type'] == PT_LOAD and ph['flags'] & PF_X:
            res['segments'].append(analyse_segment(e_type, ph, pmd, page,
                                                   size))
    res['huge_possible'] = sum(s['huge_possible'] for s in res['segments'])
    res['text_size'] = sum(s['text_size'] for s in res['segments'])
    res['advice'] = [] if res['segments'] else ['no executable segment']
    if not res['segments']:
        return res
    pad = analyse_padding(e_type, bits, phdrs, res['segments'], size, pmd,
                          page, kern)
    res['padding'] = pad
    res['huge_with_padding'] = res['huge_possible'] + pad['regions'] * pmd
    res['huge_with_padding_without_pad_rodata'] = (
        res['huge_possible'] + pad['regions_without_pad_rodata'] * pmd)
    file_on = kern['supported'] and (kern['enabled'] or 0) & 1
    res['huge_on_this_kernel'] = (
        res['huge_possible'] + pad['regions_now'] * pmd if file_on else 0)
    return res


def format_kernel(kern):
    if not kern['supported']:
        return ('kernel: no hugetext support (no %s); results below are for '
                'a kernel with hugetext and file text enabled'
                % HUGETEXT_ENABLED)
    line = 'kernel: %s %s (%s), pad_threshold %s' % (
        kern['knob'], kern['enabled'], _describe_enabled(kern['enabled']),
        '-' if kern['pad_threshold'] is None else kern['pad_threshold'])
    if kern['pad_rodata'] is not None:
        return line + ', pad_rodata %s' % kern['pad_rodata']
    if kern['pad_threshold'] is not None:
        return line + (', no pad_rodata (the kernel predates it: tail '
                       'padding only, which may cover read-only segments)')
    return line


def format_padding_end(kind, e, pmd):
    if e['possible']:
        return '  %s padding: possible%s, +1 x %s region (%s)' % (
            kind, ' with pad_rodata 1 only' if e['needs_pad_rodata'] else '',
            pmd_name(pmd), e['reason'])
    if not e['needed']:
        return '  %s padding: none needed (%s)' % (kind, e['reason'])
    return '  %s padding: refused (%s)' % (kind, e['reason'])


def format_huge_totals(res, pmd):
    pad = res['padding']

    def amount(n):
        return '%s (%d x %s)' % (human(n), n // pmd, pmd_name(pmd))

    line = '  huge: %s without padding' % amount(res['huge_possible'])
    if not pad['regions']:
        return line + ', padding adds nothing'
    ends = [k for k in ('head', 'tail') if pad[k]['possible']]
    line += ', %s with %s padding' % (amount(res['huge_with_padding']),
                                      ' and '.join(ends))
    if pad['needs_pad_rodata']:
        line += ', which needs pad_rodata 1 (%s with pad_rodata 0)' % human(
            res['huge_with_padding_without_pad_rodata'])
    return line


def small_pages(s):
    """What of a text segment stays on small pages, in words."""
    if not s['huge_possible']:
        return 'all of it on small pages'
    parts = ['%s %s' % (human(s[k]), k) for k in ('head', 'tail') if s[k]]
    return '%s on small pages' % ' and '.join(parts) if parts else \
        'nothing on small pages'


def format_check(res, pmd, kern):
    lines = ['%s: %s %s' % (res['file'], res['class'], res['type'])]
    for s in res['segments']:
        lines.append('  text segment: p_offset %#x p_vaddr %#x p_filesz %#x '
                     'p_align %#x' % (s['offset'], s['vaddr'], s['filesz'],
                                      s['align']))
        lines.append('    congruent: %s (%s)' % (
            'yes' if s['congruent'] else 'NO', s['reason']))
        lines.append('    text %s: %s can be huge (%d x %s), %s' % (
            human(s['text_size']), human(s['huge_possible']),
            s['huge_possible'] // pmd, pmd_name(pmd), small_pages(s)))
        for a in s['advice']:
            lines.append('    ' + a)
    pad = res.get('padding')
    if pad:
        for kind in ('tail', 'head'):
            e = pad[kind]
            lines.append(format_padding_end(kind, e, pmd))
            if e['possible']:
                lines.append('    ' + e['now'])
        lines.append(format_huge_totals(res, pmd))
        if kern['supported'] and (kern['enabled'] or 0) & 1:
            lines.append('  on this kernel: %s can be huge now%s' % (
                human(res['huge_on_this_kernel']),
                ' (with %s padding)' % ' and '.join(
                    k for k in ('head', 'tail') if pad[k]['applies_now'])
                if pad['applies'] else ''))
        else:
            lines.append('  on this kernel: hugetext maps none of it (%s); '
                         'with file text on: %s%s' % (
                             'no hugetext' if not kern['supported'] else
                             '%s %s' % (kern['knob'], kern['enabled']),
                             human(res['huge_possible']),
                             ', %s with padding' % human(
                                 res['huge_with_padding'])
                             if pad['possible'] else ''))
        if pad['link_advice']:
            lines.append('  ' + pad['link_advice'])
    for a in res.get('advice', []):
        lines.append('  ' + a)
    return '\n'.join(lines)


# --pmd-size: from a 4 KB page to 1 TB (the PMD sizes are 2 MB, 32 MB
# and 512 MB)
PMD_ARG_RANGE = (1 << 12, 1 << 40)


def pmd_size_arg(text):
    """--pmd-size BYTES: decimal or hex (0x200000, as check prints sizes),
    a power of two in PMD_ARG_RANGE."""
    v = None
    if re.fullmatch(r'[0-9]+|0[xX][0-9a-fA-F]+', text) and len(text) < 20:
        v = int(text, 0 if text[:2].lower() == '0x' else 10)
    if v is None or v & (v - 1) or not \
            PMD_ARG_RANGE[0] <= v <= PMD_ARG_RANGE[1]:
        raise argparse.ArgumentTypeError(
            '%s is not a power of two from %#x to %#x (decimal or 0x hex)'
            % ((printable(text),) + PMD_ARG_RANGE))
    return v


def check_set_argparser(parser):
    parser.add_argument('files', nargs='+', metavar='FILE',
                        help='ELF executables or shared libraries (regular '
                        'files; only their headers are read)')
    parser.add_argument('--pmd-size', type=pmd_size_arg, metavar='BYTES',
                        help='PMD size to assume, decimal or 0x hex, a power '
                        'of two from %#x to %#x (default: read from '
                        'hpage_pmd_size)' % PMD_ARG_RANGE)
    parser.add_argument('--json', action='store_true',
                        help='print machine-readable JSON')


def check_main(args, fs):
    pmd = args.pmd_size or pmd_size(fs)
    page = mmap.PAGESIZE
    kern = kernel_context(fs)
    results = []
    rc = EXIT_OK
    if not args.json:
        print(format_kernel(kern))
    for path in args.files:
        try:
            res = check_file(path, pmd, page, kern)
        except NotRegularFile as e:
            msg = 'not a regular file (%s)' % e
            rc = EXIT_USAGE
        except ValueError as e:
            msg = str(e)
            rc = max(rc, EXIT_ERROR)
        else:
            results.append(res)
            if not args.json:
                print(format_check(res, pmd, kern))
            continue
        print('hugetext: %s: %s' % (path, msg), file=sys.stderr)
        results.append({'file': path, 'error': msg})
    if args.json:
        emit_json(fs, {'pmd_size': pmd, 'kernel': kern, 'files': results})
    return rc
