/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hugetext_report.c: a program that reports what its exec gave it.  The
 * placement and prctl tests (hugetext_placement.c, hugetext_prctl.c) link
 * it in and run themselves again with HUGETEXT_REPORT=FD in the
 * environment: before main() the copy reads a byte of the first full PMD
 * region of its 4M text blob and writes its report to FD, then exits.
 */
#ifndef __HUGETEXT_REPORT_H
#define __HUGETEXT_REPORT_H

#include <stdbool.h>
#include <sys/types.h>

/* the blob in the program's text: a PIE has a full PMD region to place */
#define BLOB_SIZE 0x400000UL

struct report {
	/* PR_GET_HT, text congruent to its file offset modulo the PMD, AT_SECURE */
	int prctl, congruent, secure;
	/* where the text's file offset 0 is */
	unsigned long base;
	/*
	 * FilePmdMapped (kB) of the mapping holding the blob's first full
	 * region, after its first fault and before it, as exec left it
	 * (-1: pages so large that the blob holds no full region)
	 */
	long pmd_kb, pmd_kb_start;
};

/* run_report()'s @pr that sets nothing: the child keeps what it inherited */
#define PR_KEEP		(~0UL)
/* an unprivileged uid to drop to */
#define NOBODY		65534

/* become @uid (its group too, no others): every capability goes; 0, or -1 */
int drop_to(uid_t uid);
/*
 * Run @exe (this program, or a copy) with prctl(PR_SET_HT, @pr) set before
 * the exec (unless @pr is PR_KEEP), as @uid if not 0: 0 and its report in
 * @r, or -1 (the exec failed)
 */
int run_report(const char *exe, unsigned long pr, uid_t uid, struct report *r);
/* is this program a PIE (ET_DYN with PT_INTERP), which the loader places? */
bool self_is_pie(void);

#endif /* __HUGETEXT_REPORT_H */
