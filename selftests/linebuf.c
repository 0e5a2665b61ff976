// SPDX-License-Identifier: GPL-2.0
/*
 * Linked into the THP selftests hugetext_thpcmp.sh runs (thp_khugepaged,
 * thp_khugepaged_mainline): their stdout is a file, fully buffered, and
 * their forked children leave with _exit(), which drops what the buffer
 * holds -- a case line then appears or not depending on how full the
 * buffer was (timing: wait_for_scan() prints a dot a tick), and the
 * comparison of two boots sees a case missing.  Line buffering writes
 * each line as it ends.
 */
#include <stdio.h>

__attribute__((constructor)) static void linebuf(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}
