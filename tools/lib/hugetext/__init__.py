# SPDX-License-Identifier: GPL-2.0
"""hugetext - inspect and control PMD-mapped executable code ("hugetext").

The userspace companion of the hugetext kernel series (Linux 6.12 and
7.3), which maps executable code with PMD-sized pages.  One module per
concern:

  common    version, exit codes, sysfs paths, modes, HugetextError
  knobs     the knob table (knobs.list, shipped here) and its parser
  fs        the I/O layer (every /proc and /sys access; --root DIR)
  control   status, enable, disable, set
  smaps     stat: coverage of executable mappings and the reasons
  elf       check: ELF analysis, padding, link advice
  rollback  rollback
  bench     bench
  cli       run (prctl) and the command line: cli.run() is the command

Each subcommand is a pair <name>_set_argparser() / <name>_main() in its
module.  Exit codes: 0 ok, 1 error, 2 bad usage or input, 3 kernel lacks
hugetext.  The executable is tools/hugetext (in the source tree) or the
zipapp tools/mkzipapp makes of this package (make install-tools).
"""
