# SPDX-License-Identifier: GPL-2.0
"""python3 -B bench/programs COMMAND [ARCH], for the shell scripts:
  names [ARCH]     the programs' names (those ARCH's rootfs has), joined
                   by commas (bench/run.sh)
  dirs [ARCH]      their directories, one a line, in order
                   (scripts/mkrootfs.sh sources each one's install.sh)
  packages [ARCH]  the Debian packages they need, one a line
                   (scripts/deps.sh, scripts/fetch-userland.sh)"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import programs  # noqa: E402


def main(argv):
    if not argv or argv[0] not in ('names', 'dirs', 'packages') or len(argv) > 2:
        print('usage: programs names|dirs|packages [ARCH]', file=sys.stderr)
        return 2
    try:
        progs = [p for p in programs.read()
                 if len(argv) == 1 or programs.runs_on(p, argv[1])]
    except (OSError, ImportError, SyntaxError, programs.TableError) as e:
        print('programs: %s' % e, file=sys.stderr)
        return 1
    if argv[0] == 'names':
        print(','.join(p['name'] for p in progs))
        return 0
    if argv[0] == 'dirs':
        vals = [p['dir'] for p in progs]
    else:
        vals = [pkg for p in progs for pkg in p['packages']]
    for v in dict.fromkeys(vals):       # in order, each once
        print(v)
    return 0


sys.exit(main(sys.argv[1:]))
