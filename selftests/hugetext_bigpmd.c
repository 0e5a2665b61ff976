// SPDX-License-Identifier: GPL-2.0
/*
 * hugetext where a PMD is too large for it.  The series keeps hugetext off
 * where a PMD maps more than 32 MB (64 KB pages: 512 MB on arm64) and
 * allows it up to 32 MB (4 KB pages: 2 MB; arm64's 16 KB pages: 32 MB,
 * the boundary, booted as arm64-16k).  This test reads
 * hpage_pmd_size and checks the side that applies.
 *
 * PMD over 32 MB (the arm64-64k boot of scripts/boots.list):
 *  1. a non-zero hugetext= on the command line was refused: the knob reads
 *     0 and the kernel log has one "hugetext=N refused" line;
 *  2. writes of 1, 2, 3 (with and without a newline) fail with EOPNOTSUPP
 *     and leave 0; writing 0 succeeds;
 *  3. prctl(PR_SET_HUGETEXT) with PR_HUGETEXT_TEXT and/or PR_HUGETEXT_JIT
 *     fails with EOPNOTSUPP and leaves PR_HUGETEXT_SYSTEM; PR_HUGETEXT_SET
 *     alone (off) and PR_HUGETEXT_SYSTEM succeed;
 *  4. nothing harmful: with THP "never" and both refusals tried, a
 *     read-write-execute anonymous mapping of two PMDs (1 GB) touched once
 *     in its PMD-aligned region gets no huge page (without the refusal it
 *     got a 512 MB one);
 *  5. the tool (/opt/hugetext/hugetext in the guest's rootfs) says why:
 *     "hugetext enable 1" exits 3 naming EOPNOTSUPP and the PMD size.
 * PMD of 32 MB or less (4 KB- and 16 KB-page kernels), the same calls
 * succeed:
 *  1. writes of 1, 2, 3 read back;
 *  2. PR_HUGETEXT_SET | PR_HUGETEXT_JIT succeeds, and the same mapping
 *     touched once is PMD-mapped with THP "never".
 * Every knob touched is saved and restored.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

/* the tool, where scripts/mkrootfs.sh installs it */
#define TOOL "/opt/hugetext/hugetext"
/* the largest PMD the series runs hugetext with (mm/hugetext.c) */
#define PMD_MAX (32UL << 20)

int main(void)
{
	static const char *const on[] = { "1", "2", "3", "1\n", "3\n" };
	static const unsigned long pr_on[] = {
		PR_HUGETEXT_SET | PR_HUGETEXT_TEXT, PR_HUGETEXT_SET | PR_HUGETEXT_JIT,
		PR_HUGETEXT_SET | PR_HUGETEXT_TEXT | PR_HUGETEXT_JIT,
	};
	unsigned long pmd;
	const char *val;
	char line[64];
	int bad = 0, i, n;
	long got, huge;

	ksft_begin_needing(KNOB_ENABLED, "CONFIG_HUGETEXT");
	pmd = pmd_size();
	knobs_save();
	ksft_print_msg("hpage_pmd_size %lu (%lu MB), PAGE_SIZE %ld\n", pmd, pmd >> 20,
		       sysconf(_SC_PAGESIZE));
	if (pmd <= PMD_MAX) {
		ksft_set_plan(2);
		for (i = 0; i < 3; i++) {
			int err = -knob_write(KNOB_ENABLED, on[i]);

			got = knob_read_long(KNOB_ENABLED);
			if (err || got != on[i][0] - '0') {
				ksft_print_msg("writing %s: %s, reads %ld\n", on[i],
					       err ? strerror(err) : "accepted", got);
				bad++;
			}
		}
		ksft_test_result(!bad, "PMD %lu MB is at most 32 MB: hugetext_enabled takes 1, 2, 3\n",
				 pmd >> 20);
		knob_write_or_fail(KNOB_ENABLED, "0");
		knob_write_or_fail("enabled", "never");
		n = prctl(PR_SET_HUGETEXT, PR_HUGETEXT_SET | PR_HUGETEXT_JIT, 0, 0, 0) ? errno : 0;
		huge = rwx_touch_huge(pmd);
		prctl(PR_SET_HUGETEXT, PR_HUGETEXT_SYSTEM, 0, 0, 0);
		ksft_test_result(!n && huge == (long)pmd,
				 "PR_HUGETEXT_SET|PR_HUGETEXT_JIT: %s, a touched RWX region PMD-mapped (%ld of %lu KB)\n",
				 n ? strerror(n) : "accepted", huge >> 10, pmd >> 10);
		ksft_finished();
	}

	ksft_set_plan(5);
	/* 1: the boot parameter */
	val = kernel_param("hugetext");
	got = knob_read_long(KNOB_ENABLED);
	snprintf(line, sizeof(line), "hugetext=%s refused", val ? val : "");
	n = val && strcmp(val, "0") ? klog_count(line) : 0;
	ksft_test_result(got == 0 && (!val || !strcmp(val, "0") || n == 1),
			 "PMD %lu MB: booted with hugetext=%s, the knob reads %ld (expected 0), %d \"%s\" line(s) in the kernel log\n",
			 pmd >> 20, val ? val : "<none>", got, n, line);

	/* 2: the knob */
	for (i = 0; i < (int)(sizeof(on) / sizeof(on[0])); i++) {
		int err = -knob_write(KNOB_ENABLED, on[i]);

		got = knob_read_long(KNOB_ENABLED);
		if (err != EOPNOTSUPP || got != 0) {
			ksft_print_msg("writing \"%.1s\": %s, reads %ld\n", on[i],
				       err ? strerror(err) : "accepted", got);
			bad++;
		}
	}
	n = -knob_write(KNOB_ENABLED, "0");
	if (n) {
		ksft_print_msg("writing 0: %s\n", strerror(n));
		bad++;
	}
	ksft_test_result(!bad, "hugetext_enabled: %zu writes of 1..3 fail with EOPNOTSUPP and leave 0, writing 0 succeeds\n",
			 sizeof(on) / sizeof(on[0]));

	/* 3: prctl */
	bad = 0;
	for (i = 0; i < 3; i++) {
		long rc = prctl(PR_SET_HUGETEXT, pr_on[i], 0, 0, 0);
		int err = rc ? errno : 0;

		got = prctl(PR_GET_HUGETEXT, 0, 0, 0, 0);
		if (err != EOPNOTSUPP || got != PR_HUGETEXT_SYSTEM) {
			ksft_print_msg("PR_SET_HUGETEXT %#lx: %s, PR_GET_HUGETEXT %ld\n", pr_on[i],
				       err ? strerror(err) : "accepted", got);
			bad++;
		}
	}
	if (prctl(PR_SET_HUGETEXT, PR_HUGETEXT_SET, 0, 0, 0) ||
	    prctl(PR_GET_HUGETEXT, 0, 0, 0, 0) != (long)PR_HUGETEXT_SET ||
	    prctl(PR_SET_HUGETEXT, PR_HUGETEXT_SYSTEM, 0, 0, 0) ||
	    prctl(PR_GET_HUGETEXT, 0, 0, 0, 0) != PR_HUGETEXT_SYSTEM) {
		ksft_print_msg("PR_HUGETEXT_SET (off) or PR_HUGETEXT_SYSTEM: %s\n", strerror(errno));
		bad++;
	}
	ksft_test_result(!bad, "PR_SET_HUGETEXT: turning text or JIT on fails with EOPNOTSUPP and changes nothing, off and system succeed\n");

	/* 4: nothing harmful, whatever was tried */
	knob_write_or_fail("enabled", "never");
	knob_write(KNOB_ENABLED, "2");
	prctl(PR_SET_HUGETEXT, PR_HUGETEXT_SET | PR_HUGETEXT_JIT, 0, 0, 0);
	huge = rwx_touch_huge(pmd);
	prctl(PR_SET_HUGETEXT, PR_HUGETEXT_SYSTEM, 0, 0, 0);
	ksft_test_result(huge == 0,
			 "a %lu MB read-write-execute mapping touched once: %ld KB of huge pages (expected 0)\n",
			 2 * pmd >> 20, huge < 0 ? -1 : huge >> 10);

	/* 5: the tool */
	if (access(TOOL, R_OK)) {
		ksft_test_result_skip("no %s in this rootfs\n", TOOL);
	} else {
		char out[1024], size[32], *argv[] = { "/bin/sh", "-c",
			"python3 " TOOL " enable 1 2>&1", NULL };
		int rc = run_helper(argv, out, sizeof(out), NULL, false);

		snprintf(size, sizeof(size), "%lu MB", pmd >> 20);

		got = knob_read_long(KNOB_ENABLED);
		print_indented(out);
		ksft_test_result(rc == 3 && strstr(out, "Operation not supported") &&
				 strstr(out, size) && got == 0,
				 "hugetext enable 1: exit %d (expected 3), says why, knob reads %ld\n",
				 rc, got);
	}
	ksft_finished();
}
