#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench, second half: the iTLB model on the regions the kernel mapped.

  bench/report_itlb.py --results out/bench/results.json --rootfs out/rootfs \
      [--foreign arm64=qemu-aarch64=out/arm64/rootfs] \
      --out out/bench [--models skylake,goldencove,neoverse-n1]

For each program of the guest bench (bench/guest/bench) and each arch
it ran on, replays the same binary on the same input on this host under
qemu-x86_64 (another arch: --foreign's qemu-user, with that arch's rootfs
as its -L root, where every path of the guest is looked up) with the iTLB
plugin (bench/itlb), one region set per row:
  4 KB           no huge page
  MODE           the 2 MB regions the kernel PMD-mapped at the end of the
                 program's run in the guest booted in MODE (run.sh's
                 all_modes), translated by file and file offset
  MODE, tail     for a padding mode: its regions without the head-padded
                 one (the kernel has one threshold for both ends)
  MODE, oracle   for a capped mode (khugepaged/max_nr_hugetext=N): the N
                 hottest regions of the padded mode's set, by the 4 KB
                 row's fetch counts
Every region set of a program is measured in one replay (the plugin's
sets), so all rows see the same fetch stream; the oracle rows need the
counts first and run in a second replay with its own 4 KB row.  The
guest's files must be this host's (size and sha1), or it stops.

Writes itlb.json, itlb.png (gnuplot) and appends its table to report.md.
Model results under QEMU TCG, not hardware.  Standard library only.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(BENCH)
ITLB = os.path.join(BENCH, 'itlb')
MB2 = 2 << 20
NOTE = 'model under QEMU TCG, not hardware'
# each knob's name in the 6.12 series, then in the 7.3 series
PAD_KNOB = ('hugetext_pad_threshold=', 'exec_pad_threshold=')
CAP_KNOB = ('khugepaged/max_nr_hugetext=', 'khugepaged/max_exec_regions=')
SHARE_BAR = 90.0        # % of the oracle's fetch share the sampler must hold
# the programs, in order: bench/programs (the package beside this file);
# the iTLB model's replay and kregions (bench/itlb)
sys.path[:0] = [BENCH, ITLB]
sys.dont_write_bytecode = True
import programs as bench_programs  # noqa: E402
import kregions  # noqa: E402
import replay  # noqa: E402


class BenchError(Exception):
    pass


# ---- pure logic (bench/tests/test_report_itlb.py) ----

def knob(boot_args, prefix):
    """Value of htknobs' NAME=VALUE for prefix 'NAME=' (or a tuple of
    them: the knob's names in each series) in boot args."""
    for word in boot_args.split():
        if word.startswith('htknobs='):
            for kv in word[len('htknobs='):].split(','):
                if kv.startswith(prefix):
                    return kv.partition('=')[2]
    return None


def mode_kind(boot_args):
    """('cap', N), ('pad', None) or ('plain', None) for a mode."""
    cap = knob(boot_args, CAP_KNOB)
    if cap is not None and int(cap) > 0:
        return 'cap', int(cap)
    pad = knob(boot_args, PAD_KNOB)
    if pad is not None and int(pad) > 0:
        return 'pad', None
    return 'plain', None


def region_set(regions):
    """{path: [offsets]} -> sorted tuple of (path, offset)."""
    return tuple(sorted((p, o) for p, offs in regions.items() for o in offs))


def head_regions(rset, text_start):
    """The regions of rset that lie (partly) below the text segment of
    their file: what head padding added.  text_start: {path: file offset
    of the first executable PT_LOAD}."""
    out = []
    for path, off in rset:
        ts = text_start.get(path)
        if ts is not None and ts % MB2 and off == ts - ts % MB2:
            out.append((path, off))
    return tuple(out)


def oracle(candidates, counts, n):
    """The n hottest regions of candidates by counts {(path, off): insns};
    ties by (path, offset)."""
    ranked = sorted(candidates, key=lambda r: (-counts.get(r, 0), r))
    return tuple(sorted(ranked[:n]))


def share(rset, counts, total):
    return 100.0 * sum(counts.get(r, 0) for r in rset) / total if total else 0.0


def translate(rset, files, host_file):
    """Guest (path, offset) -> plugin lines 'file OFF HOSTPATH'.  files:
    the guest's {path: {'size', 'sha1'}}; host_file(path) -> (host path,
    {'size', 'sha1'}) or None."""
    lines = []
    for path, off in rset:
        if off % MB2:
            raise BenchError('%s: region offset %#x is not 2 MB aligned'
                             % (path, off))
        want = files.get(path)
        if want is None:
            raise BenchError('%s: the guest sent no size/sha1 for it' % path)
        got = host_file(path)
        if got is None:
            raise BenchError('%s: not on this host (the guest rootfs must be '
                             "built from this host's files)" % path)
        if got[1] != want:
            raise BenchError('%s: the guest file (%d bytes, sha1 %s) is not '
                             "the host's %s (%d bytes, sha1 %s)"
                             % (path, want['size'], want['sha1'], got[0],
                                got[1]['size'], got[1]['sha1']))
        lines.append('file %#x %s' % (off, got[0]))
    return lines


def usable(rec):
    """A record whose regions can be replayed: the program ran to its
    end; if the guest's PAGEMAP_SCAN/smaps check failed at some sample
    (region_error), its regions are those of the last sample where the
    two agreed, and its row is flagged."""
    return (rec.get('exit_status') == 0 and not rec.get('killed_at_cap')
            and (rec.get('ok') or rec.get('region_error')))


def plan_rows(modes, recs):
    """Rows for one program: [{'row', 'mode', 'kind', 'n', 'set'}]; oracle
    rows get their set later.  modes: [(name, boot_args)] in table order;
    recs: {mode: record}."""
    rows = [{'row': '4 KB', 'mode': None, 'kind': 'none', 'n': None,
             'set': ()}]
    pad_mode = None
    for name, args in modes:
        if name not in recs:
            continue
        kind, n = mode_kind(args)
        rset = region_set(recs[name].get('pmd_regions', {}))
        rows.append({'row': name, 'mode': name, 'kind': kind, 'n': n,
                     'set': rset,
                     'region_error': recs[name].get('region_error')})
        if kind == 'pad' and pad_mode is None:
            pad_mode = name
            rows.append({'row': name + ', tail only', 'mode': name,
                         'kind': 'tail', 'n': None, 'set': None})
    for name, args in modes:
        kind, n = mode_kind(args)
        if kind == 'cap' and name in recs and pad_mode:
            rows.append({'row': name + ', oracle', 'mode': name,
                         'kind': 'oracle', 'n': n, 'set': None,
                         'candidates': pad_mode})
    return rows


def model_cells(res_set, insns, base):
    """{model: cell} for one set's plugin result, with ratios to base
    (the 4 KB set's models: the plugin's result or its cells) when
    given.  The cost: cycles lost
    to instruction translation per 1000 instructions (replay.cost_pki:
    STLB hits x refill cycles + walks x walk cycles, the model table's
    costs), None (n/a) where a needed cost has no sourced figure."""
    out = {}
    for m in res_set['models']:
        c = {'l1_misses': m['l1_misses'], 'stlb_misses': m['stlb_misses'],
             'stlb_hits': replay.stlb_hits(m),
             'stlb_hit_cycles': m.get('stlb_hit_cycles'),
             'walk_cycles': m.get('walk_cycles'),
             'cost_cycles': replay.cost_cycles(m),
             'cost_pki': replay.cost_pki(m, insns),
             'l1_mpki': 1000.0 * m['l1_misses'] / insns if insns else 0.0,
             'stlb_mpki': 1000.0 * m['stlb_misses'] / insns if insns else 0.0}
        if base is not None:
            b = base[m['name']]
            c['l1_ratio'] = (m['l1_misses'] / b['l1_misses']
                             if b['l1_misses'] else None)
            c['stlb_ratio'] = (m['stlb_misses'] / b['stlb_misses']
                               if b['stlb_misses'] else None)
            bc = (b['cost_cycles'] if 'cost_cycles' in b
                  else replay.cost_cycles(b))
            c['cost_ratio'] = (c['cost_cycles'] / bc
                               if c['cost_cycles'] is not None and bc
                               else None)
        out[m['name']] = c
    return out


def lower(a, b):
    """a < b, or None when either is n/a."""
    return None if a is None or b is None else a < b


def cap_verdicts(prog_rows, models):
    """Per capped row: does the cap lower the cost (cycles lost to
    instruction translation, model_cells) against the padded mode
    (everything mapped), per model, and the L1 misses; and the sampler's
    fetch share against the oracle's.  'Better' is the cost: a cap that
    trades L1 misses for walks can lower the misses and still cost more.
    A cost comparison is None where a cost is n/a."""
    out = []
    by = {r['row']: r for r in prog_rows}
    for r in prog_rows:
        if r['kind'] != 'cap':
            continue
        orc = by.get(r['row'] + ', oracle')
        full = by.get(orc['candidates']) if orc else None
        if not orc or not full:
            continue
        v = {'row': r['row'], 'n': r['n'], 'models': {},
             'share_sampler': r['share'], 'share_oracle': orc['share'],
             'share_full': full['share']}
        v['share_ratio'] = (100.0 * r['share'] / orc['share']
                            if orc['share'] else None)
        v['share_ok'] = (v['share_ratio'] is not None
                         and v['share_ratio'] >= SHARE_BAR)
        for m in models:
            a, o, f = (x['cells'][m]['l1_misses'] for x in (r, orc, full))
            ca, co, cf = (x['cells'][m].get('cost_pki')
                          for x in (r, orc, full))
            v['models'][m] = {'sampler': a, 'oracle': o, 'all': f,
                              'sampler_lower': a < f, 'oracle_lower': o < f,
                              'cost_sampler': ca, 'cost_oracle': co,
                              'cost_all': cf,
                              'sampler_cost_lower': lower(ca, cf),
                              'oracle_cost_lower': lower(co, cf)}
        out.append(v)
    return out


def label(p):
    """A program's name in the tables: 'cc1', 'cc1 (arm64)'."""
    return p.get('label', p['program'])


def fmt_ratio(x):
    return '-' if x is None else '%.3g' % x


def fmt_cost(c):
    """A table cell: cycles per 1000 instructions (ratio), or n/a."""
    if c.get('cost_pki') is None:
        return 'n/a'
    return '%.3g (%s)' % (c['cost_pki'], fmt_ratio(c.get('cost_ratio')))


def cost_inputs(progs, models):
    """'skylake: STLB hit 22, walk n/a; ...': the cycle costs the rows
    were computed with (from the plugin's results; the first row that
    has the model)."""
    parts = []
    for m in models:
        c = next((r['cells'][m] for p in progs for r in p['rows']
                  if m in r.get('cells', {})), None)
        if c is None:
            continue
        parts.append('%s: STLB hit %s, walk %s' % (
            m, 'n/a' if c.get('stlb_hit_cycles') is None
            else c['stlb_hit_cycles'],
            'n/a' if c.get('walk_cycles') is None else c['walk_cycles']))
    return '; '.join(parts)


def table(progs, models):
    """Markdown lines of the iTLB table."""
    L = ['| program | row | regions | huge fetch % | ' +
         ' | '.join('%s L1 MPKI (×4 KB) | %s walks MPKI (×4 KB) | '
                    '%s cycles/1k insn (×4 KB)' % (m, m, m)
                    for m in models) + ' |',
         '|' + '---|' * (4 + 3 * len(models))]
    for p in progs:
        for r in p['rows']:
            cells = []
            for m in models:
                c = r['cells'][m]
                cells.append('%.3g (%s)' % (c['l1_mpki'],
                                            fmt_ratio(c.get('l1_ratio'))))
                cells.append('%.3g (%s)' % (c['stlb_mpki'],
                                            fmt_ratio(c.get('stlb_ratio'))))
                cells.append(fmt_cost(c))
            L.append('| %s | %s%s | %d | %.1f | %s |' % (
                label(p), r['row'], ' †' if r.get('region_error') else '',
                len(r['set']), r['huge_share'],
                ' | '.join(cells)))
    return L


# ---- the host side ----

def sha_id(path, cache={}):
    if path not in cache:
        cache[path] = kregions.file_id(path)
    return cache[path]


def host_file(path, root=None):
    """(host path, {'size', 'sha1'}) of the guest's path: this host's file,
    or under root (another arch's rootfs), or None."""
    real = os.path.realpath(root + path if root else path)
    if not os.path.isfile(real):
        return None
    return real, sha_id(real)


def exec_start(path):
    """File offset of the first executable PT_LOAD of ELF path."""
    segs = replay.elf_exec_segments(path)
    return min(o for o, _ in segs) if segs else None


class Runner:
    """Runs one program natively or under the plugin, from the guest's
    replay spec: /opt/hugetext/X is the rootfs's, /tmp/X a fresh dir's;
    for another arch (foreign) every other path is the rootfs's too."""

    def __init__(self, spec, rootfs, tmp, logs, foreign=False):
        self.spec, self.rootfs, self.tmp = spec, rootfs, tmp
        self.logs = logs        # log file prefix: LOGS-TAG.log
        self.foreign = foreign

    def path(self, a):
        if a.startswith('--') and '=/' in a:     # --defaults-file=/opt/...
            k, _, v = a.partition('=')
            return k + '=' + self.path(v)
        if a.startswith('/opt/hugetext/'):
            return os.path.join(self.rootfs, a.lstrip('/'))
        if a.startswith('/tmp/'):
            return os.path.join(self.tmp, 'run', a[len('/tmp/'):])
        if self.foreign and a.startswith('/'):
            return os.path.join(self.rootfs, a.lstrip('/'))
        return a

    def prepare(self):
        run = os.path.join(self.tmp, 'run')
        shutil.rmtree(run, ignore_errors=True)
        os.makedirs(run)
        os.chmod(self.tmp, 0o755)
        uid = gid = None
        if self.spec.get('copy'):
            src, dst = (self.path(x) for x in self.spec['copy'])
            shutil.copytree(src, dst, symlinks=True)
            st = os.stat(src)
            uid, gid = st.st_uid, st.st_gid
            for d, dirs, files in os.walk(dst):
                for n in [d] + [os.path.join(d, x) for x in dirs + files]:
                    os.lchown(n, uid, gid)
            os.chown(run, uid, gid)
        if not self.spec.get('user') or uid == os.getuid():
            uid = gid = None
        else:
            os.chown(self.tmp, uid, gid)    # the plugin writes its JSON here
        return uid, gid

    def env(self):
        """The guest's environment; a file it names (LD_PRELOAD) is copied
        into the run's directory, which an unprivileged user can read."""
        out = {}
        for k, v in self.spec.get('env', {}).items():
            if v.startswith('/opt/hugetext/'):
                dst = os.path.join(self.tmp, os.path.basename(v))
                shutil.copyfile(self.path(v), dst)
                os.chmod(dst, 0o755)
                v = dst
            out[k] = v
        return out

    def run(self, prefix, tag):
        """prefix(argv, env) -> (command, environment)."""
        uid, gid = self.prepare()
        argv, env = prefix([self.path(a) for a in self.spec['argv']],
                           self.env())
        stdin = (open(self.path(self.spec['stdin']))
                 if self.spec.get('stdin') else subprocess.DEVNULL)
        log = '%s-%s.log' % (self.logs, tag)
        t0 = time.monotonic()
        with open(log, 'w') as out:
            p = subprocess.Popen(argv, stdin=stdin, stdout=out, env=env,
                                 stderr=subprocess.STDOUT, cwd=self.tmp,
                                 user=uid, group=gid,
                                 extra_groups=[] if uid is not None else None)
            try:
                crc = self.client(log)
                # a server ends after its client's SHUTDOWN: give it a
                # minute after a failed client, ten after a good one
                p.wait(timeout=None if not self.spec.get('client')
                       else 600 if crc == 0 else 60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                raise BenchError('%s did not exit after its client '
                                 '(log %s)' % (argv[0], log))
            except BaseException:
                p.kill()
                p.wait()
                raise
        secs = time.monotonic() - t0
        if stdin is not subprocess.DEVNULL:
            stdin.close()
        if p.returncode:
            raise BenchError('%s exited %d (log %s)' % (argv[0], p.returncode,
                                                         log))
        if crc:
            raise BenchError('%s: its client %s exited %d (log %s)'
                             % (argv[0], self.spec['client'][0], crc,
                                log + '.client'))
        return secs

    def client(self, log):
        """A server's client (the guest's 'client': MariaDB's sysbench):
        run here natively, beside the server, whatever the server's arch
        (it talks to it through a socket in the run's directory); its
        exit status, 0 without one.  It ends the server (SHUTDOWN)."""
        if not self.spec.get('client'):
            return 0
        c = self.spec['client']
        argv = [self.path(c[0])] + [self.path(a) if a.startswith('/tmp/')
                                    else a for a in c[1:]]
        with open(log + '.client', 'w') as out:
            return subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out,
                                  stderr=subprocess.STDOUT,
                                  cwd=self.tmp).returncode


def foreign_tmp(out, root):
    """Where another arch's replay runs: not under /tmp.  qemu-user looks
    an absolute path up in its -L root first, so the guest's own /tmp
    would shadow the host's for a program that walks a path from "/" one
    component at a time (MariaDB's Aria engine: openat("/tmp", O_PATH),
    then the next component relative to that: ENOENT).  The out directory
    is used, when its first component is not in the root."""
    base = os.path.realpath(out)
    first = base.split(os.sep)[1]
    if os.path.lexists(os.path.join(root, first)):
        raise BenchError('%s: its first component /%s is also in %s, which '
                         "qemu-user's -L would look up instead: use an out "
                         'directory elsewhere' % (base, first, root))
    return base


def qemu_prefix(qemu, root, argv, env, plugin_args=None):
    """qemu-user's command line for argv: the guest's environment goes
    through -E, not into qemu itself; another arch's root is its -L."""
    exe = shutil.which(argv[0]) or argv[0]
    cmd = [qemu] + (['-L', root] if root else []) + ['-0', argv[0]]
    for k, v in sorted(env.items()):
        cmd += ['-E', '%s=%s' % (k, v)]
    if plugin_args:
        cmd += ['-plugin', ','.join(plugin_args)]
    return cmd + [os.path.realpath(exe)] + argv[1:]


def replay_sets(runner, plugin, models, sets, qemu, tmp, tag):
    """One replay measuring every (name, lines) set; the plugin's JSON."""
    rfile = os.path.join(tmp, 'sets-%s.txt' % tag)
    jfile = os.path.join(tmp, 'itlb-%s.json' % tag)
    with open(rfile, 'w') as f:
        for name, lines in sets:
            f.write('set %s\n' % name)
            f.write(''.join(x + '\n' for x in lines))
    pargs = [plugin, 'regions=' + rfile, 'out=' + jfile, 'quiet=on',
             'models=' + ':'.join(models)]
    if any(',' in a for a in pargs):
        raise BenchError('a path contains a comma (qemu -plugin splits its '
                         'arguments at commas)')

    def prefix(argv, env):
        return (qemu_prefix(qemu, runner.rootfs if runner.foreign else None,
                            argv, env, pargs), None)
    secs = runner.run(prefix, 'replay' + tag)
    with open(jfile) as f:
        res = json.load(f)
    os.unlink(jfile)
    got = [s['name'] for s in res['sets']]
    if got != [n for n, _ in sets]:
        raise BenchError('the plugin measured sets %s, asked %s'
                         % (got, [n for n, _ in sets]))
    return res, secs


def program(name, recs, modes, rootfs, plugin, models, qemu, out,
            arch=None):
    """Every row of one program on one arch (None: this host's; else its
    rootfs is rootfs and its qemu-user qemu); {'program', 'arch', 'rows',
    'replay_s', ...}."""
    def hfile(p):
        return host_file(p, rootfs if arch else None)
    first = next(iter(recs.values()))
    spec = first['replay']
    files = {}
    for r in recs.values():
        if r['replay'] != spec:
            raise BenchError('%s: the modes ran different commands' % name)
        files.update(r.get('files', {}))
    rows = plan_rows(modes, recs)
    exe_paths = {p for r in rows if r['set'] for p, _ in r['set']}
    text_start = {}
    for p in exe_paths:
        hp = hfile(p)
        if hp:
            text_start[p] = exec_start(hp[0])
    for r in rows:
        if r['kind'] == 'tail':
            full = next(x for x in rows if x['row'] == r['mode'])['set']
            r['set'] = tuple(x for x in full
                             if x not in head_regions(full, text_start))
    tag = name + ('-' + arch if arch else '')
    tmp = tempfile.mkdtemp(prefix='bench-itlb-%s-' % tag,
                           dir=foreign_tmp(out, rootfs) if arch else None)
    try:
        os.makedirs(os.path.join(out, 'data'), exist_ok=True)
        runner = Runner(spec, rootfs, tmp,
                        os.path.join(out, 'data', 'itlb-' + tag),
                        foreign=bool(arch))
        if arch:
            # no native run of another arch's code here: its qemu-user
            # without the plugin is the base of the plugin's cost
            native = min(runner.run(lambda a, e: (qemu_prefix(qemu, rootfs,
                                                              a, e), None),
                                    'native')
                         for _ in range(3))
        else:
            native = min(runner.run(lambda a, e: (a, dict(os.environ, **e)),
                                    'native')
                         for _ in range(3))

        def measure(rows_now, tag):
            uniq = []
            for r in rows_now:
                if r['set'] not in uniq:
                    uniq.append(r['set'])
            sets = [('s%d' % i, translate(s, files, hfile))
                    for i, s in enumerate(uniq)]
            res, secs = replay_sets(runner, plugin, models, sets, qemu, tmp,
                                    tag)
            insns = res['instructions']
            base = {m['name']: m for m in res['sets'][0]['models']}
            for r in rows_now:
                i = uniq.index(r['set'])
                r['cells'] = model_cells(res['sets'][i], insns, base)
                r['huge_share'] = (100.0 * res['sets'][i]['huge_instructions']
                                   / insns if insns else 0.0)
                r['instructions'] = insns
            return res, secs
        plain = [r for r in rows if r['kind'] != 'oracle']
        res1, secs1 = measure(plain, '1')
        counts = {}
        for g in res1['regions']:
            if g['file']:
                counts[(g['name'], g['offset'])] = g['instructions']
        # the plugin names files by host path: back to the guest's
        host_to_guest = {hfile(p)[0]: p for p in exe_paths}
        counts = {(host_to_guest.get(p, p), o): c
                  for (p, o), c in counts.items()}
        total = res1['instructions']
        orc = [r for r in rows if r['kind'] == 'oracle']
        for r in orc:
            cand = next(x for x in rows if x['row'] == r['candidates'])['set']
            r['set'] = oracle(cand, counts, r['n'])
        replay_s = [secs1]
        if orc:
            # its own 4 KB row (not shown): the oracle's ratios' base
            res2, secs2 = measure([dict(rows[0])] + orc, '2')
            replay_s.append(secs2)
            if res2['instructions'] != total:
                print('bench-itlb: %s: the second replay ran %d instructions,'
                      ' the first %d (the oracle rows are compared with the '
                      "4 KB row of their own replay)"
                      % (name, res2['instructions'], total), file=sys.stderr)
        for r in rows:
            r['share'] = share(r['set'], counts, total)
            r['set'] = [list(x) for x in r['set']]
        top = sorted(counts.items(), key=lambda kv: -kv[1])[:12]
        return {'program': name, 'arch': arch,
                'label': name + (' (%s)' % arch if arch else ''),
                'native': 'native' if not arch else os.path.basename(qemu),
                'what': first['what'],
                'command': spec['argv'], 'rows': rows,
                'instructions': total, 'native_s': round(native, 3),
                'replay_s': [round(s, 1) for s in replay_s],
                'sets_per_replay': [len({tuple(map(tuple, r['set']))
                                         for r in rows if r['kind'] != 'oracle'}),
                                    len(orc) + 1 if orc else 0],
                'hottest': [[p, o, c] for (p, o), c in top]}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def plot(out, progs, models):
    dat = os.path.join(out, 'data', 'itlb.dat')
    os.makedirs(os.path.dirname(dat), exist_ok=True)
    rownames = []
    for p in progs:
        for r in p['rows']:
            if r['row'] not in rownames:
                rownames.append(r['row'])
    with open(dat, 'w') as f:
        f.write('# row ' + ' '.join('%s:%s' % (label(p), m)
                                     for m in models for p in progs) + '\n')
        for rn in rownames:
            vals = []
            for m in models:
                for p in progs:
                    r = next((x for x in p['rows'] if x['row'] == rn), None)
                    vals.append('%.4f' % r['cells'][m]['l1_mpki'] if r else '?')
            f.write('"%s" %s\n' % (rn, ' '.join(vals)))
    gp = ['set terminal pngcairo size 1400,%d font ",10" noenhanced'
          % (420 * len(models)),
          "set output '%s'" % os.path.join(out, 'itlb.png'),
          'set multiplot layout %d,1 title "L1 iTLB misses per 1000 '
          'instructions by huge-region set (%s)"' % (len(models), NOTE),
          'set style data histogram', 'set style histogram clustered gap 1',
          'set style fill solid 0.8 border -1', 'set xtics rotate by -30',
          'set logscale y', 'set grid ytics', 'set datafile missing "?"',
          'set ylabel "L1 iTLB MPKI (log)"', 'set key outside right']
    for i, m in enumerate(models):
        cols = ', '.join("'%s' using %d:xtic(1) title '%s'"
                         % (dat, 2 + i * len(progs) + j, label(p))
                         for j, p in enumerate(progs))
        gp.append('set title "%s"' % m)
        gp.append('plot ' + cols)
    gp.append('unset multiplot')
    path = os.path.join(out, 'data', 'itlb.gp')
    with open(path, 'w') as f:
        f.write('\n'.join(gp) + '\n')
    subprocess.run(['gnuplot', path], check=True)


def report_lines(doc):
    models = doc['models']
    L = ['## iTLB model: the regions the kernel mapped, replayed', '',
         '> **%s.** Each program was replayed on this host under '
         '`qemu-x86_64` (an arm64 one under `qemu-aarch64`, from the arm64 '
         'rootfs) with the iTLB plugin (`bench/itlb`), same binary '
         '(size and sha1 checked against the guest\'s) and same input, '
         'once with every row\'s region set (the oracle rows in a second '
         'replay with its own 4 KB row). Regions: what the kernel '
         'PMD-mapped at the end of the program\'s run in that mode\'s '
         'guest (PAGEMAP_SCAN, checked against FilePmdMapped). In '
         'parentheses: misses / misses of the 4 KB row, and cost / cost '
         'of the 4 KB row. Cost: the model\'s cycles lost to instruction '
         'translation per 1000 instructions, (STLB hits × refill cycles '
         '+ walks × walk cycles) × 1000 / instructions, with the cycle '
         'costs of `bench/itlb/itlb_models.c` (each with its source '
         'there; n/a where a needed cost has no sourced figure): %s.' % (
             NOTE[0].upper() + NOTE[1:],
             cost_inputs(doc['programs'], models) or 'none'),
         '']
    L += table(doc['programs'], models)
    L.append('')
    errs = [(label(p), r['row'], r['region_error'])
            for p in doc['programs'] for r in p['rows']
            if r.get('region_error')]
    if errs:
        L.append('† In that guest, at a later sample of the run, PAGEMAP_SCAN '
                 'and smaps disagreed (the guest failed the program for '
                 'it); the row uses the regions of the last sample where '
                 'they agreed:')
        L.append('')
        for prog, row, e in errs:
            L.append('- %s, %s: %s' % (prog, row, e))
        L.append('')
    L.append('Rows: `4 KB` nothing huge; a mode name: the regions the '
             'kernel mapped in that guest; `tail only`: the padded mode\'s '
             'regions without the head-padded one; `oracle`: the cap\'s N '
             'hottest regions of the padded mode\'s set by the 4 KB '
             'replay\'s fetch counts. JIT code (jitbench, javac\'s code '
             'cache) is anonymous: no file to replay it from.')
    L.append('')
    L.append('### The cap: sampler and oracle against mapping everything')
    L.append('')
    L.append('Judged by the cost (cycles lost to instruction translation '
             'per 1000 instructions, the table\'s cost column), not by L1 '
             'misses alone: lower or higher than mapping everything '
             '(`all`); n/a where the cost is. Model results under QEMU '
             'TCG.')
    L.append('')

    def cmp(lower):
        return 'n/a' if lower is None else 'lower' if lower else 'not lower'
    for p in doc['programs']:
        for v in p['verdicts']:
            parts = []
            for m in models:
                x = v['models'][m]
                parts.append('%s cost sampler %s, oracle %s, all %s '
                             '(sampler %s, oracle %s), L1 misses sampler '
                             '%d, oracle %d, all %d'
                             % (m, replay.fmt_cost(x.get('cost_sampler')),
                                replay.fmt_cost(x.get('cost_oracle')),
                                replay.fmt_cost(x.get('cost_all')),
                                cmp(x.get('sampler_cost_lower')),
                                cmp(x.get('oracle_cost_lower')),
                                x['sampler'], x['oracle'], x['all']))
            L.append('- %s %s: fetch share of the sampler\'s regions %.1f %%, '
                     'oracle\'s %.1f %%, all %.1f %%: sampler holds %s %% of '
                     'the oracle (%s %.0f %%); %s' % (
                         label(p), v['row'], v['share_sampler'],
                         v['share_oracle'], v['share_full'],
                         '-' if v['share_ratio'] is None
                         else '%.1f' % v['share_ratio'],
                         'meets' if v['share_ok'] else 'BELOW', SHARE_BAR,
                         '; '.join(parts)))
    L.append('')
    L.append('### Replay cost')
    L.append('')
    L.append('| program | instructions | native s | replay s (sets) | '
             'replay / native |')
    L.append('|---|---|---|---|---|')
    for p in doc['programs']:
        L.append('| %s | %d | %.2f%s | %s | %s |' % (
            label(p), p['instructions'], p['native_s'],
            '' if p.get('native', 'native') == 'native'
            else ' (%s, no plugin)' % p['native'],
            ' + '.join('%.0f (%d)' % (s, n) for s, n in
                       zip(p['replay_s'], p['sets_per_replay'])),
            ' + '.join('%.0f×' % (s / p['native_s']) for s in p['replay_s'])))
    L.append('')
    L.append('![L1 iTLB MPKI by region set](itlb.png)')
    return L


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--results', required=True)
    ap.add_argument('--rootfs', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--models', default='skylake,goldencove,neoverse-n1')
    ap.add_argument('--qemu', default='qemu-x86_64')
    ap.add_argument('--foreign', action='append', default=[],
                    metavar='ARCH=QEMU=ROOTFS',
                    help="another arch's modes (kernels KERNEL@ARCH) replay "
                    'under QEMU (qemu-user) with ROOTFS as its root')
    ap.add_argument('--programs', help='comma-separated (default: every '
                    'program of bench/programs with a file target)')
    a = ap.parse_args()
    try:
        with open(a.results) as f:
            res = json.load(f)
    except (OSError, ValueError) as e:
        print('bench-itlb: %s: %s' % (a.results, e), file=sys.stderr)
        return 1
    foreign = {}
    for f in a.foreign:
        parts = f.split('=')
        if len(parts) != 3 or not all(parts):
            print('bench-itlb: --foreign %s: want ARCH=QEMU=ROOTFS' % f,
                  file=sys.stderr)
            return 2
        foreign[parts[0]] = (parts[1], os.path.abspath(parts[2]))
    for q in [a.qemu] + [q for q, _ in foreign.values()]:
        if not shutil.which(q):
            print('bench-itlb: %s not found (scripts/deps.sh installs '
                  'qemu-user)' % q, file=sys.stderr)
            return 1
    models = a.models.split(',')
    modes = [(m, res['mode_args'][m]) for m in res['modes']]
    byprog = {}
    for r in res['records']:
        if 'replay' not in r or not usable(r):
            continue
        # KERNEL@ARCH: a mode of another arch (bench/run.sh)
        arch = r.get('kernel_name', '').partition('@')[2] or None
        byprog.setdefault((r['program'], arch), {})[r['mode']] = r
    want = a.programs.split(',') if a.programs else None
    plugin = replay.build_plugin()
    doc = {'note': NOTE, 'models': models, 'programs': [],
           'generated': time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}
    rc = tried = 0
    arches = [None] + sorted({k[1] for k in byprog if k[1]})
    for arch in arches:
        for prog in bench_programs.read():
            name, recs = prog['name'], byprog.get((prog['name'], arch))
            if not recs or (want and name not in want):
                continue
            if not prog['target'] or not any(r.get('files')
                                             for r in recs.values()):
                continue        # a JIT: anonymous code, no file regions
            tried += 1
            t0 = time.monotonic()
            what = name + (' (%s)' % arch if arch else '')
            if arch and arch not in foreign:
                print('bench-itlb: %s: no --foreign %s=QEMU=ROOTFS'
                      % (what, arch), file=sys.stderr)
                rc = 1
                continue
            qemu, rootfs = (foreign[arch] if arch else
                            (a.qemu, os.path.abspath(a.rootfs)))
            print('bench-itlb: %s: replaying' % what, flush=True)
            try:
                p = program(name, recs, modes, rootfs, plugin, models, qemu,
                            a.out, arch)
            except (BenchError, OSError) as e:
                print('bench-itlb: %s: %s' % (what, e), file=sys.stderr)
                rc = 1
                continue
            p['verdicts'] = cap_verdicts(p['rows'], models)
            doc['programs'].append(p)
            print('bench-itlb: %s: %.0f s' % (what, time.monotonic() - t0),
                  flush=True)
    if not tried:
        # e.g. HUGETEXT_BENCH_PROGRAMS=jit,javac: nothing is wrong
        print('bench-itlb: no program run has file text to replay '
              '(JIT code is anonymous)', file=sys.stderr)
        return 0
    if not doc['programs']:
        print('bench-itlb: nothing replayed', file=sys.stderr)
        return 1
    with open(os.path.join(a.out, 'itlb.json'), 'w') as f:
        json.dump(doc, f, indent=1)
        f.write('\n')
    plot(a.out, doc['programs'], models)
    lines = report_lines(doc)
    rep = os.path.join(a.out, 'report.md')
    try:
        with open(rep) as f:
            text = f.read()
    except FileNotFoundError:
        text = ''
    # replaces the section a previous run of this script appended
    text = text.split('\n' + lines[0] + '\n')[0].rstrip('\n') + '\n'
    with open(rep, 'w') as f:
        f.write(text + '\n' + '\n'.join(lines) + '\n')
    print('\n'.join(lines))
    return rc


if __name__ == '__main__':
    sys.exit(main())
