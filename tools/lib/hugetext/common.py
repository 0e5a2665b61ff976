# SPDX-License-Identifier: GPL-2.0
"""What every part of the tool shares: version, exit codes, the sysfs paths
of THP and hugetext, the modes, the prctl numbers, HugetextError."""

VERSION = '1.0'

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_UNSUPPORTED = 3

THP_DIR = '/sys/kernel/mm/transparent_hugepage'
KHP_DIR = THP_DIR + '/khugepaged'
HUGETEXT_ENABLED = THP_DIR + '/hugetext_enabled'
# the 7.3 series' knobs of the same mode, one a bit (knobs.list)
EXEC_FILE_ENABLED = THP_DIR + '/exec_file_enabled'
PMD_SIZE_FILE = THP_DIR + '/hpage_pmd_size'
DROP_CACHES = '/proc/sys/vm/drop_caches'
DEBUGFS = '/sys/kernel/debug'
SPLIT_HUGE_PAGES = DEBUGFS + '/split_huge_pages'

ENABLED_MEANING = {
    0: 'off',
    1: 'file text of executables and shared libraries',
    2: 'anonymous executable memory (JIT)',
    3: 'file text and anonymous executable memory (JIT)',
}
ENABLED_NAMES = {'off': 0, 'file': 1, 'anon': 2, 'all': 3}


class HugetextError(Exception):
    """Printed as 'hugetext: message'; the tool exits with .code."""

    def __init__(self, msg, code=EXIT_ERROR):
        super().__init__(msg)
        self.msg = msg
        self.code = code


# prctl: the first numbers mainline leaves free (74 and 75 are
# PR_GET/SET_SHADOW_STACK_STATUS)
PR_SET_HUGETEXT, PR_GET_HUGETEXT = 82, 83
PR_HUGETEXT_SYSTEM, PR_HUGETEXT_SET = 0, 4      # | bits 0 (text), 1 (JIT)
